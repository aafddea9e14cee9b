// Package store is toolroute's embedded SQLite store: sessions and their
// message logs, full-text search over them, saved memories and settings. It
// runs SQLite in wazero through github.com/ncruces/go-sqlite3, pure Go with
// no cgo.
package store

import (
	_ "github.com/ncruces/go-sqlite3/driver" // database/sql driver "sqlite3"
	_ "github.com/ncruces/go-sqlite3/embed"  // the SQLite wasm build
)
