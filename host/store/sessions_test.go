package store

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/registry/session"
)

func TestSessions(t *testing.T) {
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
				must(t, db.CreateSession(ctx, "b", "Bee"))          // at(0)
				must(t, db.CreateSession(ctx, "a", "Ay"))           // at(1)
				must(t, db.Append(ctx, "c", msg))                   // at(2)
				must(t, db.Append(ctx, "b", msg, msg))              // at(3)
				must(t, db.CreateSession(ctx, "b", "not this one")) // at(4), no-op
				must(t, db.SetTitle(ctx, "c", "Sea"))               // no clock
				must(t, db.Append(ctx, "c", msg))                   // at(5)
				must(t, db.Append(ctx, "d", msg))                   // at(6)
				must(t, db.DeleteSession(ctx, "d"))
			},
			want: []Session{
				{ID: "c", Title: "Sea", Created: at(2), Updated: at(5), Messages: 2},
				{ID: "b", Title: "Bee", Created: at(0), Updated: at(3), Messages: 2},
				{ID: "a", Title: "Ay", Created: at(1), Updated: at(1), Messages: 0},
			},
		},
		{
			name: "same time: by id",
			ops: func(t *testing.T, db *DB) {
				db.now = func() time.Time { return clockStart }
				ctx := t.Context()
				for _, id := range []string{"z", "m", "é", "a", "A"} {
					must(t, db.CreateSession(ctx, id, ""))
				}
			},
			want: []Session{
				{ID: "A", Created: at(0), Updated: at(0)},
				{ID: "a", Created: at(0), Updated: at(0)},
				{ID: "m", Created: at(0), Updated: at(0)},
				{ID: "z", Created: at(0), Updated: at(0)},
				{ID: "é", Created: at(0), Updated: at(0)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openTest(t)
			db.now = fakeClock(clockStart)
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

func TestSessionMissing(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	if s, ok, err := db.Session(ctx, "nobody"); err != nil || ok || s != (Session{}) {
		t.Errorf("Session(nobody) = %v, %v, %v; want zero, false, nil", s, ok, err)
	}
	tests := []struct {
		name    string
		call    func() error
		wantErr string
	}{
		{"SetTitle", func() error { return db.SetTitle(ctx, "nobody", "x") }, `store: set title of session "nobody": not found`},
		{"DeleteSession", func() error { return db.DeleteSession(ctx, "nobody") }, `store: delete session "nobody": not found`},
		{"CreateSession empty id", func() error { return db.CreateSession(ctx, "", "x") }, "store: create session: empty session id"},
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

func TestDeleteSession(t *testing.T) {
	db := openTest(t)
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
	var rows, indexed int
	must(t, db.sql.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&rows))
	must(t, db.sql.QueryRowContext(ctx, `SELECT count(*) FROM messages_fts_docsize`).Scan(&indexed))
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
