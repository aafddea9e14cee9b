package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolroute/toolroute/registry/session"
)

// Messages returns a session's log in append order; an unknown session has
// none. It implements host.Store.
func (db *DB) Messages(ctx context.Context, sessionID string) ([]session.Message, error) {
	rows, err := db.sql.QueryContext(ctx,
		`SELECT seq, json FROM messages WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: read session %q: %w", sessionID, err)
	}
	defer rows.Close()
	var msgs []session.Message
	for rows.Next() {
		var (
			seq  int
			text string
			m    session.Message
		)
		if err := rows.Scan(&seq, &text); err != nil {
			return nil, fmt.Errorf("store: read session %q: %w", sessionID, err)
		}
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			return nil, fmt.Errorf("store: read session %q: message %d: %w", sessionID, seq, err)
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read session %q: %w", sessionID, err)
	}
	return msgs, nil
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
func (db *DB) Append(ctx context.Context, sessionID string, msgs ...session.Message) error {
	if sessionID == "" {
		return errors.New("store: append: empty session id")
	}
	if len(msgs) == 0 {
		return nil
	}
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
	err := db.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := db.checkLease(ctx, tx, sessionID); err != nil {
			return err
		}
		now := db.now().UnixNano()
		if _, err := db.exec(ctx, tx, `
			INSERT INTO sessions (id, title, created, updated) VALUES (?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET updated = excluded.updated,
				title = CASE WHEN sessions.title = '' THEN excluded.title ELSE sessions.title END`,
			sessionID, title, now, now); err != nil {
			return err
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
		insert, err := db.prepared(ctx, tx, `
			INSERT INTO messages (session_id, seq, type, content, tool_name, time, json)
			VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		for i, m := range msgs {
			var at sql.NullInt64
			if !m.Time.IsZero() {
				at = sql.NullInt64{Int64: m.Time.UnixNano(), Valid: true}
			}
			if _, err := insert.ExecContext(ctx,
				sessionID, next+i, string(m.Type), m.Content, m.ToolName, at, texts[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: append to session %q: %w", sessionID, err)
	}
	return nil
}
