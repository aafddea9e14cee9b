package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/toolroute/toolroute/registry/session"
)

// Messages returns a session's log in append order; an unknown session has
// none. It implements host.Store.
//
// A log read before is kept decoded (history.go), within a budget, and a
// later read decodes only the messages appended since.
func (db *liteDB) Messages(ctx context.Context, sessionID string) ([]session.Message, error) {
	msgs, _, err := db.MessagesFrom(ctx, sessionID, 0)
	return msgs, err
}

// MessagesFrom returns the session's messages after the first n, and how
// many it holds: a turn on the instance that keeps the session needs only
// those, and copying the whole cached log for each turn made a long
// session's turns slower with every turn.
//
// While this DB holds the session's turn lock, the log read under it, or
// checked in the lock's transaction, is kept with the appends since: as no
// one else appends, a turn's reads then need no query.
func (db *liteDB) MessagesFrom(ctx context.Context, sessionID string, n int) ([]session.Message, int, error) {
	held, leased, appends := db.leased(sessionID)
	if leased != nil {
		return tail(leased.msgs, n), len(leased.msgs), nil
	}
	all, err := db.messages(ctx, sessionID, db.history.get(sessionID))
	if err != nil {
		return nil, 0, fmt.Errorf("store: read session %q: %w", sessionID, err)
	}
	if c := db.history.get(sessionID); held != nil && c != nil && len(c.msgs) == len(all) {
		db.readUnderLease(held, c, appends)
	}
	return tail(all, n), len(all), nil
}

// tail is a copy of msgs after the first n, nil when there are none: the
// cached log they come from is shared.
func tail(msgs []session.Message, n int) []session.Message {
	if n < 0 {
		n = 0
	}
	if n >= len(msgs) {
		return nil
	}
	return slices.Clone(msgs[n:])
}

// errStale is messages's answer when the cached log is not the file's.
var errStale = errors.New("the cached log is stale")

// messages reads the log: all of it, or, with the cached log, its last row
// (to check it) and the rows after. The slice it gives is the cache's:
// callers copy what they hand out.
func (db *liteDB) messages(ctx context.Context, sessionID string, cached *cachedLog) ([]session.Message, error) {
	from := 0
	if cached != nil {
		from = len(cached.msgs) - 1
	}
	var (
		created, lastRow int64
		add              []session.Message
		addBytes         int
	)
	err := func() error {
		read, err := db.stmt(ctx, `
			SELECT m.seq, m.id, m.json, s.created FROM messages m JOIN sessions s ON s.id = m.session_id
			WHERE m.session_id = ? AND m.seq >= ? ORDER BY m.seq`)
		if err != nil {
			return err
		}
		rows, err := read.QueryContext(ctx, sessionID, from)
		if err != nil {
			return err
		}
		defer rows.Close()
		for first := true; rows.Next(); first = false {
			var (
				seq  int
				text []byte
				m    session.Message
			)
			if err := rows.Scan(&seq, &lastRow, &text, &created); err != nil {
				return err
			}
			if first && cached != nil {
				if seq != from || lastRow != cached.lastRow || created != cached.created {
					return errStale
				}
				continue
			}
			if err := json.Unmarshal(text, &m); err != nil {
				return fmt.Errorf("message %d: %w", seq, err)
			}
			add = append(add, m)
			addBytes += len(text)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if cached != nil && lastRow == 0 {
			return errStale // the session is gone
		}
		return nil
	}()
	switch {
	case errors.Is(err, errStale):
		db.history.drop(sessionID)
		return db.messages(ctx, sessionID, nil)
	case err != nil:
		return nil, err
	case cached == nil && len(add) == 0:
		return nil, nil
	case cached == nil:
		db.history.put(&cachedLog{id: sessionID, created: created, lastRow: lastRow, msgs: add, bytes: addBytes})
		return add, nil
	}
	return db.history.extend(cached, add, lastRow, addBytes).msgs, nil
}

// Append adds msgs to the end of a session's log in one transaction,
// creating the session if needed and setting its updated time to now. A
// session without a title (a new one) gets one made by Title from the
// first user message among msgs: a session is stored with its first
// message and titled after it. It returns once the transaction is
// committed (see the package doc for what a crash of the machine can
// undo): the messages are then all kept, and if it fails or the process
// dies first none of them are. Appending no messages does nothing. It
// implements host.Store.
//
// Append refuses, with an error wrapping ErrTurnRunning, while another
// process holds the session's turn lock, and with one wrapping ErrTurnLost
// if this DB held it and lost it (see LockTurn).
func (db *liteDB) Append(ctx context.Context, sessionID string, msgs ...session.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	return db.appendTx(ctx, sessionID, msgs, "")
}

// appendTx is Append's transaction; with a release token (AppendUnlock's),
// it also deletes the lease that token owns.
func (db *liteDB) appendTx(ctx context.Context, sessionID string, msgs []session.Message, release string) error {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("store: append to session %q: message %d: %w", sessionID, i, err)
		}
		texts[i] = string(b)
	}
	title := ""
	for _, m := range msgs {
		if m.Type == session.User {
			title = Title(m.Content)
			break
		}
	}
	var (
		first   int
		lastRow int64
	)
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		if err := db.checkLease(ctx, tx, sessionID); err != nil {
			return err
		}
		now := db.now().UnixNano()
		// The session is there but for a log's first append: an update
		// that finds it costs less than an insert that fails first.
		res, err := db.exec(ctx, tx, `
			UPDATE sessions SET updated = ?, title = CASE WHEN title = '' THEN ? ELSE title END
			WHERE id = ?`, now, title, sessionID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := db.exec(ctx, tx, `INSERT INTO sessions (id, title, created, updated) VALUES (?, ?, ?, ?)`,
				sessionID, title, now, now); err != nil {
				return err
			}
		}
		var next int
		row, err := db.queryRow(ctx, tx,
			`SELECT coalesce(max(seq) + 1, 0) FROM messages WHERE session_id = ?`, sessionID)
		if err != nil {
			return err
		}
		if err := row.Scan(&next); err != nil {
			return err
		}
		first = next
		for i, m := range msgs {
			var at sql.NullInt64
			if !m.Time.IsZero() {
				at = sql.NullInt64{Int64: m.Time.UnixNano(), Valid: true}
			}
			res, err := db.exec(ctx, tx, `
				INSERT INTO messages (session_id, seq, type, content, tool_name, time, json)
				VALUES (?, ?, ?, ?, ?, ?, ?)`,
				sessionID, next+i, string(m.Type), m.Content, m.ToolName, at, texts[i])
			if err != nil {
				return err
			}
			if lastRow, err = res.LastInsertId(); err != nil {
				return err
			}
		}
		if release != "" {
			// checkLease saw the lease is release's.
			if _, err := db.exec(ctx, tx,
				`DELETE FROM turn_leases WHERE session_id = ? AND owner = ?`, sessionID, release); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: append to session %q: %w", sessionID, err)
	}
	db.appended(sessionID, first, lastRow, texts)
	db.unindexed.Store(true)
	return nil
}
