package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/toolroute/toolroute/registry/session"
)

// The PostgreSQL versions of sessions.go, messages.go, settings.go,
// memories.go and tasks.go, with the same answers. Lists sort by the
// bytes of their keys (COLLATE "C"), as SQLite does, whatever the
// database's collation.

const pgSessionColumns = `id, title, created, updated,
	(SELECT count(*) FROM messages WHERE session_id = sessions.id)`

// pgCollect reads rows as pgx.CollectRows does, but returns nil for none,
// as the SQLite store does.
func pgCollect[T any](rows pgx.Rows, fn pgx.RowToFunc[T]) ([]T, error) {
	list, err := pgx.CollectRows(rows, fn)
	if len(list) == 0 {
		list = nil
	}
	return list, err
}

func pgScanSession(row pgx.Row) (Session, error) {
	var (
		s                Session
		created, updated int64
		n                int64
	)
	if err := row.Scan(&s.ID, &s.Title, &created, &updated, &n); err != nil {
		return Session{}, err
	}
	s.Created, s.Updated, s.Messages = fromNanos(created), fromNanos(updated), int(n)
	return s, nil
}

func (db *pgDB) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+pgSessionColumns+` FROM sessions
		WHERE EXISTS (SELECT 1 FROM messages WHERE session_id = sessions.id)
		ORDER BY updated DESC, id COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", pgError(err))
	}
	list, err := pgCollect(rows, func(r pgx.CollectableRow) (Session, error) { return pgScanSession(r) })
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	return list, nil
}

func (db *pgDB) Session(ctx context.Context, id string) (Session, bool, error) {
	s, err := pgScanSession(db.pool.QueryRow(ctx, `SELECT `+pgSessionColumns+` FROM sessions WHERE id = $1`, id))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Session{}, false, nil
	case err != nil:
		return Session{}, false, fmt.Errorf("store: read session %q: %w", id, pgError(err))
	}
	return s, true, nil
}

func (db *pgDB) Rename(ctx context.Context, id, title string) error {
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		return pgMustChange(tx.Exec(ctx, `UPDATE sessions SET title = $1 WHERE id = $2`, title, id))
	})
	if err != nil {
		return fmt.Errorf("store: rename session %q: %w", id, err)
	}
	return nil
}

func (db *pgDB) DeleteSession(ctx context.Context, id string) error {
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		db.turnsMu.Lock()
		_, mine := db.turns[id]
		db.turnsMu.Unlock()
		if mine {
			return ErrSessionBusy
		}
		// The turn lock, for this transaction: refused while anyone holds it.
		var free bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, turnKey(id)).Scan(&free); err != nil {
			return err
		}
		if !free {
			return ErrSessionBusy
		}
		return pgMustChange(tx.Exec(ctx, `DELETE FROM sessions WHERE id = $1`, id))
	})
	db.history.drop(id)
	if err != nil {
		return fmt.Errorf("store: delete session %q: %w", id, err)
	}
	return nil
}

func (db *pgDB) Messages(ctx context.Context, sessionID string) ([]session.Message, error) {
	msgs, _, err := db.MessagesFrom(ctx, sessionID, 0)
	return msgs, err
}

func (db *pgDB) MessagesFrom(ctx context.Context, sessionID string, n int) ([]session.Message, int, error) {
	all, err := db.messages(ctx, sessionID, db.history.get(sessionID))
	if err != nil {
		return nil, 0, fmt.Errorf("store: read session %q: %w", sessionID, pgError(err))
	}
	return tail(all, n), len(all), nil
}

// messages reads the log as SQLite's messages does (messages.go): all of
// it, or, with the cached log, its last row (to check it is still the
// session's) and the rows after; the slice is the cache's.
func (db *pgDB) messages(ctx context.Context, sessionID string, cached *cachedLog) ([]session.Message, error) {
	from := 0
	if cached != nil {
		from = len(cached.msgs) - 1
	}
	rows, err := db.pool.Query(ctx, `
		SELECT m.seq, m.id, m.json, s.created FROM messages m JOIN sessions s ON s.id = m.session_id
		WHERE m.session_id = $1 AND m.seq >= $2 ORDER BY m.seq`, sessionID, from)
	if err != nil {
		return nil, err
	}
	var (
		seq            int32
		row, created   int64
		lastRow, bytes int64
		text           []byte
		add            []session.Message
		first, stale   = true, false
	)
	_, err = pgx.ForEachRow(rows, []any{&seq, &row, &text, &created}, func() error {
		lastRow = row
		if first && cached != nil {
			first = false
			if int(seq) != from || row != cached.lastRow || created != cached.created {
				stale = true
				return errStale
			}
			return nil
		}
		first = false
		var m session.Message
		if err := json.Unmarshal(text, &m); err != nil {
			return fmt.Errorf("message %d: %w", seq, err)
		}
		add = append(add, m)
		bytes += int64(len(text))
		return nil
	})
	if cached != nil && err == nil && lastRow == 0 {
		stale = true // the session is gone
	}
	switch {
	case stale:
		db.history.drop(sessionID)
		return db.messages(ctx, sessionID, nil)
	case err != nil:
		return nil, err
	case cached == nil && len(add) == 0:
		return nil, nil
	case cached == nil:
		db.history.put(&cachedLog{id: sessionID, created: created, lastRow: lastRow, msgs: add, bytes: int(bytes)})
		return add, nil
	}
	return db.history.extend(cached, add, lastRow, int(bytes)).msgs, nil
}

// pgText makes s storable in a text column, which holds valid UTF-8 and no
// NUL: the JSON column keeps a message exactly; the others, for listing
// and search, may lose what no one reads.
func pgText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

func (db *pgDB) Append(ctx context.Context, sessionID string, msgs ...session.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	n := len(msgs)
	var (
		texts, types, contents, tools = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		times                         = make([]*int64, n)
		terms                         = make([]*[]string, n)
		title                         string
	)
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("store: append to session %q: message %d: %w", sessionID, i, err)
		}
		texts[i], types[i], contents[i], tools[i] = string(b), pgText(string(m.Type)), pgText(m.Content), pgText(m.ToolName)
		if !m.Time.IsZero() {
			at := m.Time.UnixNano()
			times[i] = &at
		}
		if searched(m.Type) {
			t := searchTerms(m.Content)
			if t == nil {
				t = []string{}
			}
			terms[i] = &t
		}
		if title == "" && m.Type == session.User {
			title = pgText(Title(m.Content))
		}
	}
	err := db.withTurn(ctx, sessionID, func(ctx context.Context, conn pgExecer, checkLock bool) error {
		args := append([]any{sessionID, checkLock, turnKey(sessionID), title, db.now().UnixNano()},
			pgTermArgs(types, contents, tools, times, texts, terms)...)
		_, err := conn.Exec(ctx, `SELECT toolroute_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, args...)
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "TR001" {
			return ErrTurnRunning
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: append to session %q: %w", sessionID, err)
	}
	return nil
}

// pgTermArgs returns Append's arrays, the terms of all messages flattened
// into one array with each message's bounds in it (PostgreSQL arrays of
// arrays must be rectangular).
func pgTermArgs(types, contents, tools []string, times []*int64, texts []string, terms []*[]string) []any {
	var (
		flat     []string
		lo, hi   = make([]int32, len(terms)), make([]int32, len(terms))
		searched = make([]bool, len(terms))
	)
	for i, t := range terms {
		lo[i] = int32(len(flat) + 1)
		if t != nil {
			searched[i] = true
			flat = append(flat, *t...)
		}
		hi[i] = int32(len(flat))
	}
	if flat == nil {
		flat = []string{}
	}
	return []any{types, contents, tools, times, texts, lo, hi, flat, searched}
}

func (db *pgDB) Setting(ctx context.Context, key string) (string, bool, error) {
	var value string
	err := db.pool.QueryRow(ctx, `SELECT value FROM settings WHERE key = $1`, key).Scan(&value)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("store: read setting %q: %w", key, pgError(err))
	}
	return value, true, nil
}

func (db *pgDB) SetSetting(ctx context.Context, key, value string) error {
	if key == "" {
		return errors.New("store: set setting: empty key")
	}
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO settings (key, value) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set setting %q: %w", key, err)
	}
	return nil
}

func (db *pgDB) DeleteSetting(ctx context.Context, key string) error {
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM settings WHERE key = $1`, key)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete setting %q: %w", key, err)
	}
	return nil
}

func (db *pgDB) Settings(ctx context.Context, prefix string) ([]Setting, error) {
	rows, err := db.pool.Query(ctx, `SELECT key, value FROM settings
		WHERE left(key, length($1)) = $1 ORDER BY key COLLATE "C"`, prefix)
	if err != nil {
		return nil, fmt.Errorf("store: list settings %q: %w", prefix, pgError(err))
	}
	list, err := pgCollect(rows, pgx.RowToStructByPos[Setting])
	if err != nil {
		return nil, fmt.Errorf("store: list settings %q: %w", prefix, err)
	}
	return list, nil
}

func (db *pgDB) SaveMemory(ctx context.Context, text string) (Memory, error) {
	if strings.TrimSpace(text) == "" {
		return Memory{}, errors.New("store: save memory: empty text")
	}
	m := Memory{Text: text, Created: fromNanos(db.now().UnixNano())}
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		return tx.QueryRow(ctx, `INSERT INTO memories (text, created) VALUES ($1, $2) RETURNING id`,
			text, m.Created.UnixNano()).Scan(&m.ID)
	})
	if err != nil {
		return Memory{}, fmt.Errorf("store: save memory: %w", err)
	}
	return m, nil
}

func (db *pgDB) Memories(ctx context.Context) ([]Memory, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, text, created FROM memories ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: list memories: %w", pgError(err))
	}
	list, err := pgCollect(rows, func(r pgx.CollectableRow) (Memory, error) {
		var (
			m       Memory
			created int64
		)
		err := r.Scan(&m.ID, &m.Text, &created)
		m.Created = fromNanos(created)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: list memories: %w", err)
	}
	return list, nil
}

func (db *pgDB) DeleteMemory(ctx context.Context, id int64) error {
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		return pgMustChange(tx.Exec(ctx, `DELETE FROM memories WHERE id = $1`, id))
	})
	if err != nil {
		return fmt.Errorf("store: delete memory %d: %w", id, err)
	}
	return nil
}

func (db *pgDB) PutTask(ctx context.Context, t Task) error {
	if t.Name == "" {
		return errors.New("store: put task: empty name")
	}
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO scheduled_tasks (name, next_run, json) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET next_run = excluded.next_run, json = excluded.json`,
			t.Name, nanosOrNull(t.NextRun), t.JSON)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put task %q: %w", t.Name, err)
	}
	return nil
}

func (db *pgDB) Task(ctx context.Context, name string) (Task, bool, error) {
	t, err := pgScanTask(db.pool.QueryRow(ctx, `SELECT name, next_run, json FROM scheduled_tasks WHERE name = $1`, name))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Task{}, false, nil
	case err != nil:
		return Task{}, false, fmt.Errorf("store: read task %q: %w", name, pgError(err))
	}
	return t, true, nil
}

func (db *pgDB) ClaimTask(ctx context.Context, t Task, due time.Time) (bool, error) {
	if due.IsZero() {
		return false, fmt.Errorf("store: claim task %q: no run to claim", t.Name)
	}
	var n int64
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE scheduled_tasks SET next_run = $1, json = $2 WHERE name = $3 AND next_run = $4`,
			nanosOrNull(t.NextRun), t.JSON, t.Name, due.UnixNano())
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: claim task %q: %w", t.Name, err)
	}
	return n == 1, nil
}

func (db *pgDB) DeleteTask(ctx context.Context, name string) (bool, error) {
	var n int64
	err := db.write(ctx, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM scheduled_tasks WHERE name = $1`, name)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: delete task %q: %w", name, err)
	}
	return n > 0, nil
}

func (db *pgDB) Tasks(ctx context.Context) ([]Task, error) {
	return db.tasks(ctx, `SELECT name, next_run, json FROM scheduled_tasks ORDER BY name COLLATE "C"`)
}

func (db *pgDB) DueTasks(ctx context.Context, now time.Time) ([]Task, error) {
	return db.tasks(ctx, `SELECT name, next_run, json FROM scheduled_tasks
		WHERE next_run IS NOT NULL AND next_run <= $1 ORDER BY next_run, name COLLATE "C"`, now.UnixNano())
}

func (db *pgDB) NextTaskRun(ctx context.Context) (time.Time, bool, error) {
	var next *int64
	if err := db.pool.QueryRow(ctx, `SELECT min(next_run) FROM scheduled_tasks`).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("store: the next task's run: %w", pgError(err))
	}
	if next == nil {
		return time.Time{}, false, nil
	}
	return fromNanos(*next), true, nil
}

func (db *pgDB) tasks(ctx context.Context, query string, args ...any) ([]Task, error) {
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", pgError(err))
	}
	out, err := pgCollect(rows, func(r pgx.CollectableRow) (Task, error) { return pgScanTask(r) })
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	return out, nil
}

func pgScanTask(row pgx.Row) (Task, error) {
	var (
		t    Task
		next *int64
	)
	if err := row.Scan(&t.Name, &next, &t.JSON); err != nil {
		return Task{}, err
	}
	if next != nil {
		t.NextRun = fromNanos(*next)
	}
	return t, nil
}
