package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Memory is a note kept across sessions (the save_memory tool).
type Memory struct {
	// ID identifies the memory; ids are never reused.
	ID      int64
	Text    string
	Created time.Time
}

// SaveMemory saves a memory and returns it.
func (db *liteDB) SaveMemory(ctx context.Context, text string) (Memory, error) {
	if strings.TrimSpace(text) == "" {
		return Memory{}, errors.New("store: save memory: empty text")
	}
	m := Memory{Text: text, Created: fromNanos(db.now().UnixNano())}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO memories (text, created) VALUES (?, ?)`, text, m.Created.UnixNano())
		if err != nil {
			return err
		}
		m.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("store: save memory: %w", err)
	}
	return m, nil
}

// Memories returns all the memories, oldest first.
func (db *liteDB) Memories(ctx context.Context) ([]Memory, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, text, created FROM memories ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: list memories: %w", err)
	}
	defer rows.Close()
	var list []Memory
	for rows.Next() {
		var (
			m       Memory
			created int64
		)
		if err := rows.Scan(&m.ID, &m.Text, &created); err != nil {
			return nil, fmt.Errorf("store: list memories: %w", err)
		}
		m.Created = fromNanos(created)
		list = append(list, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list memories: %w", err)
	}
	return list, nil
}

// DeleteMemory deletes a memory. It returns an error wrapping ErrNotFound
// if there is no memory with that id.
func (db *liteDB) DeleteMemory(ctx context.Context, id int64) error {
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, id)
		return mustChange(res, err)
	})
	if err != nil {
		return fmt.Errorf("store: delete memory %d: %w", id, err)
	}
	return nil
}
