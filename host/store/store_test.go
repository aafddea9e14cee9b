package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ncruces/go-sqlite3"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/pgtest"
	"github.com/toolroute/toolroute/registry/session"
)

// TestMain stops the PostgreSQL server the tests started, if they did.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// testBackend is a kind of database the tests shared by both run on.
type testBackend struct {
	name string
	// where returns where a new empty database is: a SQLite file's path,
	// a PostgreSQL URL.
	where func(t *testing.T) string
}

var testBackends = []testBackend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "toolroute.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
}

// forBackends runs test on each backend, as a subtest named after it.
func forBackends(t *testing.T, test func(t *testing.T, b testBackend)) {
	for _, b := range testBackends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// open opens a new empty database, closed at the end of the test.
func (b testBackend) open(t *testing.T) *DB { return openAt(t, b.where(t)) }

// openShared opens n DBs on one database, as n processes would.
func (b testBackend) openShared(t *testing.T, n int) []*DB {
	t.Helper()
	where := b.where(t)
	dbs := make([]*DB, n)
	for i := range dbs {
		dbs[i] = openAt(t, where)
	}
	return dbs
}

func openAt(t *testing.T, where string) *DB {
	t.Helper()
	db, err := Open(t.Context(), where)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

// lite returns the SQLite database of db, nil if it is PostgreSQL's.
func lite(db *DB) *liteDB {
	l, _ := db.backend.(*liteDB)
	return l
}

// execSQL runs statements of the test's own on either backend.
func execSQL(t *testing.T, db *DB, query string) {
	t.Helper()
	var err error
	switch b := db.backend.(type) {
	case *liteDB:
		_, err = b.sql.ExecContext(t.Context(), query)
	case *pgDB:
		_, err = b.pool.Exec(t.Context(), query)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// queryInt runs a query of one integer on either backend.
func queryInt(t *testing.T, db *DB, query string) int {
	t.Helper()
	var (
		n   int
		err error
	)
	switch b := db.backend.(type) {
	case *liteDB:
		err = b.sql.QueryRowContext(t.Context(), query).Scan(&n)
	case *pgDB:
		err = b.pool.QueryRow(t.Context(), query).Scan(&n)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var _ host.Store = (*DB)(nil)

// openTest opens a new SQLite database in a temporary folder, closed at the
// end of the test.
func openTest(t *testing.T) *DB { return testBackends[0].open(t) }

// fakeClock returns a clock that starts at start and advances by a second at
// each reading, so the times a test sees are distinct and ordered.
func fakeClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	next := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := next
		next = next.Add(time.Second)
		return t
	}
}

var clockStart = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// checkIntegrity checks a SQLite database file and its search index.
// PostgreSQL keeps no index of its own to check: the words searched are a
// column of the messages.
func checkIntegrity(t *testing.T, pdb *DB) {
	t.Helper()
	db := lite(pdb)
	if db == nil {
		return
	}
	ctx := t.Context()
	var result string
	if err := db.sql.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&result); err != nil {
		t.Fatal(err)
	}
	if result != "ok" {
		t.Errorf("integrity_check: %s", result)
	}
	// The messages waiting for the index go in first: then the index must
	// hold exactly the indexed messages of the table.
	if err := db.indexPending(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx,
		`INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("search index integrity-check: %v", err)
	}
}

func TestOpen(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares the folder and returns the path to open.
		setup   func(t *testing.T, dir string) string
		wantErr string // a substring of the error; "" for success
		notADB  bool   // the error wraps sqlite3.NOTADB
		// check checks the refused file after Open.
		check func(t *testing.T, path string)
	}{
		{
			name:  "new file in new folders",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "a", "b", "c", "toolroute.db") },
		},
		{
			name:  "characters URIs give a meaning",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "x?y#z%20 é&_pragma=1", "t.db") },
		},
		{
			name: "empty existing file",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "empty.db")
				writeFile(t, path, nil)
				return path
			},
		},
		{
			name: "garbage",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "garbage.db")
				writeFile(t, path, []byte(strings.Repeat("this is not a database\n", 500)))
				return path
			},
			wantErr: "is not a SQLite database",
			notADB:  true,
			check: func(t *testing.T, path string) {
				if got, _ := os.ReadFile(path); string(got) != strings.Repeat("this is not a database\n", 500) {
					t.Error("Open changed the file it refused")
				}
			},
		},
		{
			name: "another program's SQLite database",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "other.db")
				db, err := sqlite3.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if err := db.Exec(`CREATE TABLE things (x)`); err != nil {
					t.Fatal(err)
				}
				return path
			},
			wantErr: "not toolroute's",
			check: func(t *testing.T, path string) {
				// Connecting made it WAL, but the schema is untouched.
				db, err := sqlite3.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				stmt, _, err := db.Prepare(`SELECT group_concat(name) FROM sqlite_schema`)
				if err != nil {
					t.Fatal(err)
				}
				defer stmt.Close()
				if !stmt.Step() {
					t.Fatal(stmt.Err())
				}
				if got := stmt.ColumnText(0); got != "things" {
					t.Errorf("schema objects after Open: %s, want things", got)
				}
			},
		},
		{
			name: "newer schema",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "newer.db")
				db, err := Open(t.Context(), path)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if _, err := lite(db).sql.ExecContext(t.Context(), `PRAGMA user_version = 99`); err != nil {
					t.Fatal(err)
				}
				return path
			},
			wantErr: "schema version 99 is newer",
		},
		{
			name: "parent is a file",
			setup: func(t *testing.T, dir string) string {
				writeFile(t, filepath.Join(dir, "file"), []byte("x"))
				return filepath.Join(dir, "file", "toolroute.db")
			},
			wantErr: "create its folder",
		},
		{
			name:    "empty path",
			setup:   func(t *testing.T, dir string) string { return "" },
			wantErr: "empty path",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.setup(t, t.TempDir())
			db, err := Open(t.Context(), path)
			if tt.wantErr != "" {
				if err == nil {
					db.Close()
					t.Fatalf("Open succeeded, want an error with %q", tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "store: ") || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Open error = %q, want it to start with \"store: \" and contain %q", err, tt.wantErr)
				}
				if got := errors.Is(err, sqlite3.NOTADB); got != tt.notADB {
					t.Errorf("errors.Is(err, sqlite3.NOTADB) = %v, want %v", got, tt.notADB)
				}
				if tt.check != nil {
					tt.check(t, path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			abs, _ := filepath.Abs(path)
			if db.Path() != abs {
				t.Errorf("Path() = %q, want %q", db.Path(), abs)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("database file: %v", err)
			}
			if err := db.Append(t.Context(), "s", session.Message{Type: session.User, Content: "hello"}); err != nil {
				t.Fatal(err)
			}
			checkIntegrity(t, db)
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPragmas(t *testing.T) {
	db := openTest(t)
	// Each connection of the pool must have run the pragmas: hold several
	// at once.
	ctx := t.Context()
	for i := range 3 {
		conn, err := lite(db).sql.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, p := range []struct{ pragma, want string }{
			{"journal_mode", "wal"},
			{"synchronous", "1"}, // NORMAL: see the package doc
			{"busy_timeout", "10000"},
			{"foreign_keys", "1"},
		} {
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != p.want {
				t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, p.pragma, got, p.want)
			}
		}
	}
}

func TestReopenKeepsEverything(t *testing.T) { forBackends(t, testReopenKeepsEverything) }

func testReopenKeepsEverything(t *testing.T, be testBackend) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "toolroute.db")
	msgs := []session.Message{
		{Type: session.User, Content: "remember the milk", Time: clockStart},
		{Type: session.Assistant, Content: "I will remember the milk."},
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.setClock(fakeClock(clockStart))
	if err := db.Append(ctx, "s1", msgs...); err != nil {
		t.Fatal(err)
	}
	if err := db.Rename(ctx, "s1", "Groceries"); err != nil {
		t.Fatal(err)
	}
	memory, err := db.SaveMemory(ctx, "The user likes milk.")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "model", "claude"); err != nil {
		t.Fatal(err)
	}
	wantSessions, err := db.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkIntegrity(t, db)
	gotMsgs, err := db.Messages(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, gotMsgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	gotSessions, err := db.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantSessions, gotSessions); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	gotMemories, err := db.Memories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Memory{memory}, gotMemories); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
	if v, ok, err := db.Setting(ctx, "model"); err != nil || !ok || v != "claude" {
		t.Errorf(`Setting("model") = %q, %v, %v; want "claude", true, nil`, v, ok, err)
	}
	hits, err := db.Search(ctx, "milk", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Errorf("Search(milk) found %d messages, want 2", len(hits))
	}
}

func TestClosed(t *testing.T) { forBackends(t, testClosed) }

func testClosed(t *testing.T, be testBackend) {
	db, err := Open(t.Context(), be.where(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	err = db.Append(t.Context(), "s", session.Message{Type: session.User, Content: "hi"})
	if err == nil || !strings.HasPrefix(err.Error(), "store: ") {
		t.Errorf("Append after Close = %v, want a store: error", err)
	}
	if _, err := db.Messages(t.Context(), "s"); err == nil {
		t.Error("Messages after Close succeeded")
	}
}

func TestCanceledContext(t *testing.T) { forBackends(t, testCanceledContext) }

func testCanceledContext(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := db.Append(ctx, "s", session.Message{Type: session.User, Content: "hi"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a canceled context = %v, want context.Canceled", err)
	}
	msgs, err := db.Messages(t.Context(), "s")
	if err != nil || len(msgs) != 0 {
		t.Errorf("Messages = %v, %v; want none", msgs, err)
	}
}
