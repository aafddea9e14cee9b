package store

import (
	"errors"
	"strings"
	"testing"
)

// Both stores hold the same session ids: those CheckSessionID takes are
// stored, read, locked and deleted alike; the others are refused by every
// method with a *SessionIDError that gives the rule, before either backend
// sees them, and nothing is stored. A NUL byte was stored by SQLite and
// refused by PostgreSQL (SQLSTATE 22021).
func TestSessionIDs(t *testing.T) { forBackends(t, testSessionIDs) }

func testSessionIDs(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	good := []string{"work", "20260102-150405-a1b2c3", "agent-helper-20260102-150405-a1b2c3", "notes été", "a/b?c", strings.Repeat("é", MaxSessionIDChars)}
	for _, id := range good {
		if err := CheckSessionID(id); err != nil {
			t.Errorf("CheckSessionID(%q) = %v, want nil", id, err)
		}
		unlock, ok, err := db.LockTurn(ctx, id)
		if err != nil || !ok {
			t.Fatalf("LockTurn(%q) = %v, %v", id, ok, err)
		}
		must(t, db.AppendUnlock(ctx, id, userMessage("hi")))
		unlock()
		if msgs, err := db.Messages(ctx, id); err != nil || len(msgs) != 1 {
			t.Errorf("Messages(%q) = %d, %v; want 1", id, len(msgs), err)
		}
		if _, ok, err := db.Session(ctx, id); err != nil || !ok {
			t.Errorf("Session(%q) = %v, %v", id, ok, err)
		}
		must(t, db.DeleteSession(ctx, id))
	}
	bad := []struct{ id, reason string }{
		{"", "is empty"},
		{"a\x00b", "holds the control character U+0000"},
		{"line\nbreak", "holds the control character U+000A"},
		{"tab\there", "holds the control character U+0009"},
		{"c1\u0085", "holds the control character U+0085"},
		{"bad\xffutf8", "is not valid UTF-8"},
		{strings.Repeat("x", MaxSessionIDChars+1), "has 129 characters"},
	}
	for _, c := range bad {
		calls := map[string]error{}
		calls["CheckSessionID"] = CheckSessionID(c.id)
		calls["Append"] = db.Append(ctx, c.id, userMessage("hi"))
		calls["AppendUnlock"] = db.AppendUnlock(ctx, c.id, userMessage("hi"))
		_, _, calls["LockTurn"] = db.LockTurn(ctx, c.id)
		_, calls["Messages"] = db.Messages(ctx, c.id)
		_, _, calls["MessagesFrom"] = db.MessagesFrom(ctx, c.id, 0)
		_, _, calls["Session"] = db.Session(ctx, c.id)
		calls["Rename"] = db.Rename(ctx, c.id, "title")
		calls["DeleteSession"] = db.DeleteSession(ctx, c.id)
		for _, name := range []string{"CheckSessionID", "Append", "AppendUnlock", "LockTurn", "Messages", "MessagesFrom", "Session", "Rename", "DeleteSession"} {
			err := calls[name]
			var idErr *SessionIDError
			if !errors.As(err, &idErr) || idErr.Reason != c.reason || !strings.Contains(err.Error(), SessionIDRule) {
				t.Errorf("%s(%q) = %v, want a *SessionIDError: %s", name, c.id, err, c.reason)
			}
		}
	}
	if list, err := db.Sessions(ctx); err != nil || len(list) != 0 {
		t.Errorf("Sessions = %+v, %v; want none stored", list, err)
	}
}
