package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema's versions: migrations[i] takes a database from
// version i to i+1, the version being kept in PRAGMA user_version. Never edit
// a migration once released; add a new one.
var migrations = []string{
	// 1: sessions, messages and their search index, memories, settings.
	`
CREATE TABLE sessions (
	id      TEXT PRIMARY KEY,
	title   TEXT NOT NULL DEFAULT '',
	created INTEGER NOT NULL, -- Unix nanoseconds
	updated INTEGER NOT NULL  -- Unix nanoseconds
) STRICT;
CREATE INDEX sessions_by_updated ON sessions (updated DESC, id);

-- messages is append-only: rows are inserted and deleted, never updated.
CREATE TABLE messages (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL, -- position in the session's log, from 0
	type       TEXT NOT NULL,
	content    TEXT NOT NULL,
	tool_name  TEXT NOT NULL,
	time       INTEGER,          -- Unix nanoseconds, NULL for the zero time
	json       TEXT NOT NULL,    -- the session.Message
	UNIQUE (session_id, seq)
) STRICT;
CREATE TRIGGER messages_append_only BEFORE UPDATE ON messages BEGIN
	SELECT RAISE(ABORT, 'messages are append-only');
END;

CREATE VIRTUAL TABLE messages_fts USING fts5 (
	content,
	content = 'messages',
	content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
WHEN new.type IN ('user', 'assistant', 'tool_result') BEGIN
	INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
WHEN old.type IN ('user', 'assistant', 'tool_result') BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;

CREATE TABLE memories (
	id      INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused
	text    TEXT NOT NULL,
	created INTEGER NOT NULL -- Unix nanoseconds
) STRICT;

CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
`,
	// 2: the turn locks that keep processes sharing the file from running
	// turns of one session at once.
	`
-- turn_leases has a row per session whose turn a process runs, or ran and
-- died in: the lease is free once expires is past, or once the process is
-- gone if it ran on this machine.
CREATE TABLE turn_leases (
	session_id TEXT PRIMARY KEY,
	owner      TEXT NOT NULL,    -- a random token per lock taken
	machine    TEXT NOT NULL,    -- the holder's machine and process id space
	pid        INTEGER NOT NULL, -- the holder's process id there
	expires    INTEGER NOT NULL  -- Unix nanoseconds
) STRICT, WITHOUT ROWID;
`,
	// 3: a session is stored with its first message; older versions stored
	// one at "new session" and kept it, empty, if nothing was sent.
	`
DELETE FROM sessions WHERE NOT EXISTS (SELECT 1 FROM messages WHERE session_id = sessions.id);
`,
	// 4: messages join the search index in batches, not one transaction
	// each (indexing one message was 60 % of an append): an append notes
	// the message in fts_pending, and indexPending indexes those noted
	// (search.go). Written to run again harmlessly.
	`
CREATE TABLE IF NOT EXISTS fts_pending (
	id INTEGER PRIMARY KEY -- messages.id, not yet in messages_fts
) STRICT;
DROP TRIGGER IF EXISTS messages_fts_insert;
DROP TRIGGER IF EXISTS messages_fts_delete;
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
WHEN new.type IN ('user', 'assistant', 'tool_result') BEGIN
	INSERT INTO fts_pending (id) VALUES (new.id);
END;
-- A message still pending was never indexed: it is only forgotten.
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
WHEN old.type IN ('user', 'assistant', 'tool_result') BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content)
		SELECT 'delete', old.id, old.content WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE id = old.id);
	DELETE FROM fts_pending WHERE id = old.id;
END;
`,
	// 5: scheduled tasks (the scheduled_tasks group), each a JSON record
	// the host reads and writes whole, with its next run's time beside it
	// for the query of the tasks that are due.
	`
CREATE TABLE IF NOT EXISTS scheduled_tasks (
	name     TEXT PRIMARY KEY,
	next_run INTEGER,       -- Unix nanoseconds, NULL when it will not run again
	json     TEXT NOT NULL  -- the task's record
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS scheduled_tasks_by_next_run ON scheduled_tasks (next_run) WHERE next_run IS NOT NULL;
`,
}

// migrate brings the schema up to the latest version in one transaction.
func (db *liteDB) migrate(ctx context.Context) error {
	return db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		var version int
		if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
			return err
		}
		switch {
		case version > len(migrations):
			return fmt.Errorf("schema version %d is newer than this toolroute knows (%d); upgrade toolroute", version, len(migrations))
		case version == len(migrations):
			return nil
		case version == 0:
			var objects int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&objects); err != nil {
				return err
			}
			if objects > 0 {
				return fmt.Errorf("a SQLite database that is not toolroute's (it has %d schema objects and no version); choose another path", objects)
			}
		}
		for v := version; v < len(migrations); v++ {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
			}
		}
		// PRAGMA takes no parameters; the version is our own integer.
		_, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations)))
		return err
	})
}
