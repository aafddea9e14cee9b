// Package store is toolroute's embedded SQLite store: sessions and their
// message logs, full-text search over them, saved memories and settings. It
// runs SQLite in wazero through github.com/ncruces/go-sqlite3, pure Go with
// no cgo.
//
// A [DB] is one database file in WAL mode with synchronous=FULL: a write
// method returns once its transaction is committed to disk, and a process
// killed at any moment leaves every transaction either whole or absent. A DB
// is safe for concurrent use by many goroutines; it writes one transaction at
// a time and reads in parallel. Several processes may open the same file.
//
// *DB implements host.Store, and host.TurnLocker with a lease per session
// in the file, so processes sharing it run a session's turns one at a time.
// Messages are kept as the JSON encoding/json gives for session.Message,
// plus columns for search. Full-text search (SQLite FTS5) covers the content
// of user, assistant and tool_result messages.
package store

import (
	_ "github.com/ncruces/go-sqlite3/driver" // database/sql driver "sqlite3"
	_ "github.com/ncruces/go-sqlite3/embed"  // the SQLite wasm build
)
