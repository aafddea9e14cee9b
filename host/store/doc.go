// Package store is toolroute's store: sessions and their message logs,
// full-text search over them, saved memories, settings and scheduled tasks.
// By default it is an embedded SQLite file, through
// github.com/ncruces/go-sqlite3: SQLite's C compiled to wasm and that wasm
// translated to Go source (wasm2go), so no cgo, and nothing to compile
// when a process starts. Given a postgres:// URL or a libpq keyword=value
// string (Open), it is a PostgreSQL database instead, through
// github.com/jackc/pgx, which processes on several machines share (pg.go
// says how its writes and turn locks work; pgredact.go how a password is
// never shown). The rest of this comment is about SQLite.
//
// A [DB] is one database file in WAL mode with synchronous=NORMAL: a write
// method returns once its transaction is committed to the database's log
// (the WAL), and a process killed at any moment leaves every transaction
// either whole or absent and loses nothing committed. The log is flushed to
// the disk (fsync) at each checkpoint, when it has grown by 1,000 pages
// (about 4 MB), not at each commit: a crash of the machine itself (power,
// kernel) may undo the transactions committed since the last checkpoint,
// always the most recent ones, leaving the database consistent. A fsync per
// commit made a turn's four writes cost 3 to 5 times more (BenchmarkTurnWrites).
//
// A DB is safe for concurrent use by many goroutines. The writes queued
// while one commits run together in the next transaction, each in a
// savepoint of its own (writer.go), so sessions writing at once share a
// commit; a write alone runs on its caller's goroutine. Reads run in
// parallel on other connections. Several processes may open the same file.
//
// *DB implements host.Store, and host.TurnLocker with a lease per session
// in the file, so processes sharing it run a session's turns one at a time.
// A host turn commits three times: the lease taken, the user's message, and
// the reply with the lease released (AppendUnlock, host.TurnEnder). While a
// DB holds a session's lease no one else appends to it, so the session's
// cached log, checked against the file in the lease's transaction and
// extended by the DB's own appends, answers the turn's reads without a
// query (turns.go). The writes' transactions and statements run on the
// writer's SQLite connection directly, prepared once (writer.go), not
// through database/sql.
// Messages are kept as the JSON encoding/json gives for session.Message,
// plus columns for search. Full-text search (SQLite FTS5) covers the content
// of user, assistant and tool_result messages; they join its index in
// batches, at the latest before the next search (search.go).
package store
