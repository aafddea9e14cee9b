package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pgMigrations are the PostgreSQL schema's versions, as migrations are
// SQLite's: pgMigrations[i] takes a database from version i to i+1, the
// version being the one row of toolroute_schema. Never edit a migration
// once released; add a new one. Times are Unix nanoseconds, as in SQLite.
var pgMigrations = []string{
	// 1: everything SQLite's five versions hold. terms are the words
	// search matches (search_terms.go), NULL for the messages not searched.
	`
CREATE TABLE toolroute_schema (version integer NOT NULL);
INSERT INTO toolroute_schema (version) VALUES (0);

CREATE TABLE sessions (
	id      text PRIMARY KEY,
	title   text NOT NULL DEFAULT '',
	created bigint NOT NULL,
	updated bigint NOT NULL
);
CREATE INDEX sessions_by_updated ON sessions (updated DESC, id);

CREATE TABLE messages (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        integer NOT NULL,
	type       text NOT NULL,
	content    text NOT NULL,
	tool_name  text NOT NULL,
	time       bigint,
	json       text NOT NULL,
	terms      text[],
	UNIQUE (session_id, seq)
);
CREATE INDEX messages_terms ON messages USING gin (terms);
-- messages is append-only, as in SQLite: the history cache relies on it.
CREATE FUNCTION toolroute_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'messages are append-only';
END
$$;
CREATE TRIGGER messages_append_only BEFORE UPDATE ON messages
	FOR EACH ROW EXECUTE FUNCTION toolroute_append_only();

CREATE TABLE memories (
	id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	text    text NOT NULL,
	created bigint NOT NULL
);

CREATE TABLE settings (
	key   text PRIMARY KEY,
	value text NOT NULL
);

CREATE TABLE scheduled_tasks (
	name     text PRIMARY KEY,
	next_run bigint,
	json     text NOT NULL
);
CREATE INDEX scheduled_tasks_by_next_run ON scheduled_tasks (next_run) WHERE next_run IS NOT NULL;

-- toolroute_append is Append in one round trip (pgdata.go): it refuses
-- with SQLSTATE TR001 while another holder has the session's turn lock,
-- when asked to check it; creates or updates the session; and adds the
-- messages after the last. Each statement sees what committed before it
-- ran, so the next seq is read once the session's row is locked.
CREATE FUNCTION toolroute_append(
	p_session text, p_check_lock boolean, p_key bigint, p_title text, p_now bigint,
	p_types text[], p_contents text[], p_tools text[], p_times bigint[], p_json text[],
	p_lo integer[], p_hi integer[], p_terms text[], p_searched boolean[]
) RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
	next integer;
BEGIN
	IF p_check_lock AND NOT pg_try_advisory_xact_lock_shared(p_key) THEN
		RAISE EXCEPTION 'a turn is running in another process' USING ERRCODE = 'TR001';
	END IF;
	INSERT INTO sessions (id, title, created, updated) VALUES (p_session, p_title, p_now, p_now)
	ON CONFLICT (id) DO UPDATE SET updated = excluded.updated,
		title = CASE WHEN sessions.title = '' THEN excluded.title ELSE sessions.title END;
	SELECT coalesce(max(seq) + 1, 0) INTO next FROM messages WHERE session_id = p_session;
	INSERT INTO messages (session_id, seq, type, content, tool_name, time, json, terms)
	SELECT p_session, next + m.i - 1, m.type, m.content, m.tool_name, m.time, m.json,
		CASE WHEN m.searched THEN coalesce(p_terms[m.lo:m.hi], '{}') END
	FROM unnest(p_types, p_contents, p_tools, p_times, p_json, p_lo, p_hi, p_searched)
		WITH ORDINALITY AS m (type, content, tool_name, time, json, lo, hi, searched, i);
END
$$;
`,
}

// pgMigrateLock is the advisory lock key that keeps processes opening one
// database at once from migrating it together.
const pgMigrateLock = 0x746f6f6c726f7574 // "toolrout"

// migrate brings the schema up to the latest version in one transaction.
func (db *pgDB) migrate(ctx context.Context) error {
	return db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgMigrateLock)); err != nil {
			return err
		}
		var schema *string
		if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return err
		}
		if schema == nil {
			return fmt.Errorf("no schema to create toolroute's tables in: the URL's search_path names none that exists; create it (CREATE SCHEMA) or set another")
		}
		var known bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass('toolroute_schema') IS NOT NULL`).Scan(&known); err != nil {
			return err
		}
		version := 0
		if known {
			if err := tx.QueryRow(ctx, `SELECT version FROM toolroute_schema`).Scan(&version); err != nil {
				return err
			}
		} else {
			var tables []string
			rows, err := tx.Query(ctx, `SELECT table_name FROM information_schema.tables
				WHERE table_schema = current_schema() ORDER BY table_name LIMIT 5`)
			if err != nil {
				return err
			}
			if tables, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
				return err
			}
			if len(tables) > 0 {
				return fmt.Errorf("schema %q holds tables that are not toolroute's (%s); give toolroute a database or schema of its own",
					*schema, strings.Join(tables, ", "))
			}
		}
		switch {
		case version > len(pgMigrations):
			return fmt.Errorf("schema version %d is newer than this toolroute knows (%d); upgrade toolroute", version, len(pgMigrations))
		case version == len(pgMigrations):
			return nil
		}
		for v := version; v < len(pgMigrations); v++ {
			if _, err := tx.Exec(ctx, pgMigrations[v]); err != nil {
				return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
			}
		}
		_, err := tx.Exec(ctx, `UPDATE toolroute_schema SET version = $1`, len(pgMigrations))
		return err
	})
}
