package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Task is a scheduled task as the store keeps it: its name, its record
// (JSON the caller defines: internal/schedule's Task) and when it runs next
// (the zero time when it will not run again).
type Task struct {
	Name    string
	NextRun time.Time
	JSON    string
}

// PutTask stores a task, replacing the one of the same name.
func (db *liteDB) PutTask(ctx context.Context, t Task) error {
	if t.Name == "" {
		return errors.New("store: put task: empty name")
	}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO scheduled_tasks (name, next_run, json) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET next_run = excluded.next_run, json = excluded.json`,
			t.Name, nanosOrNull(t.NextRun), t.JSON)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put task %q: %w", t.Name, err)
	}
	return nil
}

// ClaimTask replaces a task's record with t only if its next run is still
// due (a time, not none): of several processes sharing the store that
// found the task due, exactly one claims that run. It reports whether
// this one did.
func (db *liteDB) ClaimTask(ctx context.Context, t Task, due time.Time) (bool, error) {
	if due.IsZero() {
		return false, fmt.Errorf("store: claim task %q: no run to claim", t.Name)
	}
	var n int64
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		res, err := tx.ExecContext(ctx, `UPDATE scheduled_tasks SET next_run = ?, json = ? WHERE name = ? AND next_run = ?`,
			nanosOrNull(t.NextRun), t.JSON, t.Name, due.UnixNano())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: claim task %q: %w", t.Name, err)
	}
	return n == 1, nil
}

// Task returns the task of that name, and false if there is none.
func (db *liteDB) Task(ctx context.Context, name string) (Task, bool, error) {
	row := db.sql.QueryRowContext(ctx, `SELECT name, next_run, json FROM scheduled_tasks WHERE name = ?`, name)
	t, err := scanTask(row.Scan)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Task{}, false, nil
	case err != nil:
		return Task{}, false, fmt.Errorf("store: read task %q: %w", name, err)
	}
	return t, true, nil
}

// DeleteTask removes a task; it reports whether there was one.
func (db *liteDB) DeleteTask(ctx context.Context, name string) (bool, error) {
	var n int64
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM scheduled_tasks WHERE name = ?`, name)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: delete task %q: %w", name, err)
	}
	return n > 0, nil
}

// Tasks returns every task, by name (byte order).
func (db *liteDB) Tasks(ctx context.Context) ([]Task, error) {
	return db.tasks(ctx, `SELECT name, next_run, json FROM scheduled_tasks ORDER BY name`)
}

// DueTasks returns the tasks whose next run is at or before now, the
// earliest first.
func (db *liteDB) DueTasks(ctx context.Context, now time.Time) ([]Task, error) {
	return db.tasks(ctx, `SELECT name, next_run, json FROM scheduled_tasks
		WHERE next_run IS NOT NULL AND next_run <= ? ORDER BY next_run, name`, now.UnixNano())
}

// NextTaskRun returns the earliest next run of any task, and false if no
// task will run again.
func (db *liteDB) NextTaskRun(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	if err := db.sql.QueryRowContext(ctx, `SELECT min(next_run) FROM scheduled_tasks`).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("store: the next task's run: %w", err)
	}
	if !next.Valid {
		return time.Time{}, false, nil
	}
	return fromNanos(next.Int64), true, nil
}

func (db *liteDB) tasks(ctx context.Context, query string, args ...any) ([]Task, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows.Scan)
		if err != nil {
			return nil, fmt.Errorf("store: list tasks: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list tasks: %w", err)
	}
	return out, nil
}

func scanTask(scan func(...any) error) (Task, error) {
	var (
		t    Task
		next sql.NullInt64
	)
	if err := scan(&t.Name, &next, &t.JSON); err != nil {
		return Task{}, err
	}
	if next.Valid {
		t.NextRun = fromNanos(next.Int64)
	}
	return t, nil
}

func nanosOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}
