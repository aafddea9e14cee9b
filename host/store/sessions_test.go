package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/registry/session"
)

func TestSessions(t *testing.T) { forBackends(t, testSessions) }

func testSessions(t *testing.T, be testBackend) {
	msg := session.Message{Type: session.User, Content: "hi"}
	at := func(i int) time.Time { return clockStart.Add(time.Duration(i) * time.Second) }
	tests := []struct {
		name string
		// ops changes a database whose clock reads clockStart, then a
		// second later at each reading.
		ops  func(t *testing.T, db *DB)
		want []Session
	}{
		{name: "none", ops: func(t *testing.T, db *DB) {}},
		{
			name: "most recently updated first",
			ops: func(t *testing.T, db *DB) {
				ctx := t.Context()
				must(t, db.Append(ctx, "b", userMessage("Bee")))    // at(0)
				must(t, db.Append(ctx, "c", msg))                   // at(1)
				must(t, db.Append(ctx, "b", msg, msg))              // at(2)
				must(t, db.Rename(ctx, "c", "Sea"))                 // no clock
				must(t, db.Append(ctx, "c", userMessage("not me"))) // at(3)
				must(t, db.Append(ctx, "d", msg))                   // at(4)
				must(t, db.DeleteSession(ctx, "d"))
			},
			want: []Session{
				{ID: "c", Title: "Sea", Created: at(1), Updated: at(3), Messages: 2},
				{ID: "b", Title: "Bee", Created: at(0), Updated: at(2), Messages: 3},
			},
		},
		{
			name: "titled by the first user message",
			ops: func(t *testing.T, db *DB) {
				ctx := t.Context()
				must(t, db.Append(ctx, "s",
					session.Message{Type: session.Assistant, Content: "not this"},
					userMessage("  What  time is it\nin Paris? "),
					userMessage("nor this")))
			},
			want: []Session{{ID: "s", Title: "What time is it in Paris?", Created: at(0), Updated: at(0), Messages: 3}},
		},
		{
			name: "same time: by id",
			ops: func(t *testing.T, db *DB) {
				db.setClock(func() time.Time { return clockStart })
				ctx := t.Context()
				for _, id := range []string{"z", "m", "é", "a", "A"} {
					must(t, db.Append(ctx, id, msg))
				}
			},
			want: []Session{
				{ID: "A", Title: "hi", Created: at(0), Updated: at(0), Messages: 1},
				{ID: "a", Title: "hi", Created: at(0), Updated: at(0), Messages: 1},
				{ID: "m", Title: "hi", Created: at(0), Updated: at(0), Messages: 1},
				{ID: "z", Title: "hi", Created: at(0), Updated: at(0), Messages: 1},
				{ID: "é", Title: "hi", Created: at(0), Updated: at(0), Messages: 1},
			},
		},
		{
			name: "an empty session is not listed",
			ops: func(t *testing.T, db *DB) {
				// As an older toolroute stored one at "new session".
				execSQL(t, db, `INSERT INTO sessions (id, title, created, updated) VALUES ('empty', 'Empty', 1, 1)`)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := be.open(t)
			db.setClock(fakeClock(clockStart))
			tt.ops(t, db)
			got, err := db.Sessions(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Sessions (-want +got):\n%s", diff)
			}
			for _, want := range tt.want {
				s, ok, err := db.Session(t.Context(), want.ID)
				if err != nil || !ok {
					t.Fatalf("Session(%q) = _, %v, %v", want.ID, ok, err)
				}
				if diff := cmp.Diff(want, s); diff != "" {
					t.Errorf("Session(%q) (-want +got):\n%s", want.ID, diff)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSessionMissing(t *testing.T) { forBackends(t, testSessionMissing) }

func testSessionMissing(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	if s, ok, err := db.Session(ctx, "nobody"); err != nil || ok || s != (Session{}) {
		t.Errorf("Session(nobody) = %v, %v, %v; want zero, false, nil", s, ok, err)
	}
	tests := []struct {
		name    string
		call    func() error
		wantErr string
	}{
		{"Rename", func() error { return db.Rename(ctx, "nobody", "x") }, `store: rename session "nobody": not found`},
		{"DeleteSession", func() error { return db.DeleteSession(ctx, "nobody") }, `store: delete session "nobody": not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v, want %s", err, tt.wantErr)
			}
			if strings.HasSuffix(tt.wantErr, "not found") && !errors.Is(err, ErrNotFound) {
				t.Errorf("error %v does not wrap ErrNotFound", err)
			}
		})
	}
}

func TestDeleteSession(t *testing.T) { forBackends(t, testDeleteSession) }

func testDeleteSession(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	msgs := []session.Message{
		{Type: session.User, Content: "delete these unicorns"},
		{Type: session.ToolCall, ToolName: "t", ToolInput: "{}"},
		{Type: session.ToolResult, Content: "unicorns deleted"},
	}
	must(t, db.Append(ctx, "gone", msgs...))
	must(t, db.Append(ctx, "kept", session.Message{Type: session.Assistant, Content: "unicorns stay"}))
	must(t, db.DeleteSession(ctx, "gone"))

	if _, ok, err := db.Session(ctx, "gone"); err != nil || ok {
		t.Errorf("Session(gone) after delete: ok = %v, err = %v", ok, err)
	}
	if got, err := db.Messages(ctx, "gone"); err != nil || len(got) != 0 {
		t.Errorf("Messages(gone) after delete = %v, %v; want none", got, err)
	}
	hits, err := db.Search(ctx, "unicorns", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].SessionID != "kept" {
		t.Errorf("Search(unicorns) after delete = %+v, want only the kept session's message", hits)
	}
	rows, indexed := queryInt(t, db, `SELECT count(*) FROM messages`), 1
	if be.name == "sqlite" {
		indexed = queryInt(t, db, `SELECT count(*) FROM messages_fts_docsize`)
	}
	if rows != 1 || indexed != 1 {
		t.Errorf("after delete: %d message rows and %d indexed, want 1 and 1", rows, indexed)
	}
	checkIntegrity(t, db)

	// The id can be used again, from the start.
	must(t, db.Append(ctx, "gone", msgs[0]))
	if got, err := db.Messages(ctx, "gone"); err != nil || len(got) != 1 {
		t.Errorf("Messages(gone) after a new Append = %v, %v; want one", got, err)
	}
}

// titleCases are testdata/sessions/titles.json, which the JS hosts replay
// too (web/packages/toolroute/test/session-names.test.js).
type titleCases struct {
	Titles []struct {
		Name, Text, Want string
	}
	Renames []struct {
		Name, Title, Want, Error string
	}
}

func readTitleCases(t *testing.T) titleCases {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sessions", "titles.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c titleCases
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Titles) == 0 || len(c.Renames) == 0 {
		t.Fatal("no cases")
	}
	return c
}

func TestTitle(t *testing.T) {
	for _, tt := range readTitleCases(t).Titles {
		t.Run(tt.Name, func(t *testing.T) {
			if got := Title(tt.Text); got != tt.Want {
				t.Errorf("Title(%q) = %q, want %q", tt.Text, got, tt.Want)
			}
		})
	}
}

func TestRename(t *testing.T) { forBackends(t, testRename) }

func testRename(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	must(t, db.Append(ctx, "s", userMessage("first")))
	// A title a user gives is the module's to clean or refuse
	// (toolroute_check's session_title, which internal/module's tests replay
	// these cases through); the store keeps what it is given.
	for _, tt := range readTitleCases(t).Renames {
		if tt.Error != "" {
			continue
		}
		t.Run(tt.Name, func(t *testing.T) {
			must(t, db.Rename(ctx, "s", tt.Want))
			if s, _, _ := db.Session(ctx, "s"); s.Title != tt.Want {
				t.Errorf("after Rename the title is %q, want %q", s.Title, tt.Want)
			}
		})
	}
}

// A session whose turn runs, here or in another process sharing the file,
// is not deleted: the turn would go on writing to it.
func TestDeleteSessionBusy(t *testing.T) { forBackends(t, testDeleteSessionBusy) }

func testDeleteSessionBusy(t *testing.T, be testBackend) {
	dbs := be.openShared(t, 2)
	here, there := dbs[0], dbs[1]
	ctx := t.Context()
	must(t, here.Append(ctx, "s", userMessage("hi")))
	unlock := lockTurn(t, here, "s", true)
	for i, db := range []*DB{here, there} {
		if err := db.DeleteSession(ctx, "s"); !errors.Is(err, ErrSessionBusy) {
			t.Errorf("from process %d: DeleteSession = %v, want ErrSessionBusy", i, err)
		}
	}
	unlock()
	must(t, there.DeleteSession(ctx, "s"))
	if _, ok, _ := here.Session(ctx, "s"); ok {
		t.Error("the session is still there")
	}
}

// Version 3 of the schema drops the empty sessions older versions kept.
func TestMigrationDropsEmptySessions(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "toolroute.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	must(t, db.Append(ctx, "kept", userMessage("hello")))
	_, err = lite(db).sql.ExecContext(ctx, `INSERT INTO sessions (id, title, created, updated) VALUES ('empty', 'Empty', 1, 1)`)
	must(t, err)
	_, err = lite(db).sql.ExecContext(ctx, `PRAGMA user_version = 2`)
	must(t, err)
	must(t, db.Close())

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, ok, _ := db.Session(ctx, "empty"); ok {
		t.Error("the empty session is kept")
	}
	if s, ok, _ := db.Session(ctx, "kept"); !ok || s.Messages != 1 || s.Title != "hello" {
		t.Errorf("kept = %+v, %v", s, ok)
	}
}
