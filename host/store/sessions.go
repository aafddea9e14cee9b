package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Session describes one chat session.
type Session struct {
	ID    string
	Title string
	// Created is when the session was created; Updated is when messages
	// were last appended to it, or Created if none were.
	Created, Updated time.Time
	// Messages is the number of messages in the session's log.
	Messages int
}

// sessionColumns are the columns scanSession reads, in order.
const sessionColumns = `id, title, created, updated,
	(SELECT count(*) FROM messages WHERE session_id = sessions.id)`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var (
		s                Session
		created, updated int64
	)
	if err := row.Scan(&s.ID, &s.Title, &created, &updated, &s.Messages); err != nil {
		return Session{}, err
	}
	s.Created, s.Updated = fromNanos(created), fromNanos(updated)
	return s, nil
}

// Sessions returns the sessions that have messages, the most recently
// updated first, then by id. A session is stored with its first message;
// an empty one (an older toolroute made them) is not listed.
func (db *liteDB) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := db.sql.QueryContext(ctx,
		`SELECT `+sessionColumns+` FROM sessions
		WHERE EXISTS (SELECT 1 FROM messages WHERE session_id = sessions.id)
		ORDER BY updated DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	defer rows.Close()
	var list []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list sessions: %w", err)
		}
		list = append(list, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	return list, nil
}

// Session returns the session with that id, and false if there is none.
func (db *liteDB) Session(ctx context.Context, id string) (Session, bool, error) {
	s, err := scanSession(db.sql.QueryRowContext(ctx,
		`SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Session{}, false, nil
	case err != nil:
		return Session{}, false, fmt.Errorf("store: read session %q: %w", id, err)
	}
	return s, true, nil
}

// Rename gives a session a title, leaving its updated time alone: one the
// module's session_title check gave (host.Host.CheckArgs) when a user
// chose it, or Title's. It returns an error wrapping ErrNotFound if there
// is no such session.
func (db *liteDB) Rename(ctx context.Context, id, title string) error {
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, id)
		return mustChange(res, err)
	})
	if err != nil {
		return fmt.Errorf("store: rename session %q: %w", id, err)
	}
	return nil
}

// DeleteSession deletes a session, its messages and their search entries.
// It returns an error wrapping ErrNotFound if there is no such session, and
// one wrapping ErrSessionBusy while a turn runs in it, in this process or
// another sharing the file: the turn would go on writing to it.
func (db *liteDB) DeleteSession(ctx context.Context, id string) error {
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		db.turnsMu.Lock()
		_, mine := db.turns[id]
		db.turnsMu.Unlock()
		l, found, err := db.readLease(ctx, tx, id)
		switch {
		case err != nil:
			return err
		case mine || found && l.live(db.now().UnixNano()):
			return ErrSessionBusy
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		return mustChange(res, err)
	})
	db.history.drop(id)
	if err != nil {
		return fmt.Errorf("store: delete session %q: %w", id, err)
	}
	return nil
}

// mustChange returns ErrNotFound if a statement that succeeded changed no
// row, and err otherwise.
func mustChange(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
