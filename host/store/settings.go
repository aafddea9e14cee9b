package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Setting is one key/value pair of the settings: the model name,
// environment variables tools may read, tool states...
type Setting struct {
	Key, Value string
}

// Setting returns the value of a setting, and false if it is not set.
func (db *liteDB) Setting(ctx context.Context, key string) (string, bool, error) {
	var value string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&value)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("store: read setting %q: %w", key, err)
	}
	return value, true, nil
}

// SetSetting sets a setting, replacing its value if it is set.
func (db *liteDB) SetSetting(ctx context.Context, key, value string) error {
	if key == "" {
		return errors.New("store: set setting: empty key")
	}
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set setting %q: %w", key, err)
	}
	return nil
}

// DeleteSetting unsets a setting. It does nothing if the setting is not set.
func (db *liteDB) DeleteSetting(ctx context.Context, key string) error {
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete setting %q: %w", key, err)
	}
	return nil
}

// Settings returns the settings whose keys start with prefix, all of them
// for "", sorted by key (byte order).
func (db *liteDB) Settings(ctx context.Context, prefix string) ([]Setting, error) {
	// substr and length count characters alike, so this is a byte prefix
	// test for valid UTF-8; unlike LIKE or GLOB it has no special characters.
	rows, err := db.sql.QueryContext(ctx, `
		SELECT key, value FROM settings
		WHERE substr(key, 1, length(?1)) = ?1
		ORDER BY key`, prefix)
	if err != nil {
		return nil, fmt.Errorf("store: list settings %q: %w", prefix, err)
	}
	defer rows.Close()
	var list []Setting
	for rows.Next() {
		var s Setting
		if err := rows.Scan(&s.Key, &s.Value); err != nil {
			return nil, fmt.Errorf("store: list settings %q: %w", prefix, err)
		}
		list = append(list, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list settings %q: %w", prefix, err)
	}
	return list, nil
}
