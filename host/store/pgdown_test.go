package store

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/pgtest"
)

// A PostgreSQL server that stops in the middle of a turn: the turn's next
// write says the connection holding its lock ended, in PostgreSQL's terms,
// not SQLite's lease; the other calls say the server cannot be reached and
// to start it. Nothing says "lease".
func TestPGServerStopsMidTurn(t *testing.T) {
	srv, err := pgtest.Start(pgtest.Options{})
	if err != nil {
		if os.Getenv(pgtest.SkipEnv) == "1" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.Stop()
		}
	}()
	where, err := srv.NewDatabase(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	db := openAt(t, where)
	ctx := t.Context()
	must(t, db.Append(ctx, "s", userMessage("before")))
	lockTurn(t, db, "s", true)
	must(t, db.Append(ctx, "s", userMessage("the turn's question")))
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	err = db.AppendUnlock(ctx, "s", userMessage("the turn's answer"))
	if !errors.Is(err, ErrTurnLost) || !strings.Contains(err.Error(), "the connection to the PostgreSQL server that held the session's turn lock ended") {
		t.Errorf("AppendUnlock after the server stopped = %v; want ErrTurnLost in PostgreSQL's terms", err)
	}
	ctx2, cancel := context.WithTimeout(ctx, pgConnectTimeout*3)
	defer cancel()
	_, _, err = db.Session(ctx2, "s")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "the PostgreSQL server cannot be reached (") || !strings.Contains(err.Error(), "): start it, or check the network") {
		t.Errorf("Session after the server stopped = %v; want ErrUnreachable", err)
	}
	for _, err := range []error{err, db.Append(ctx2, "t", userMessage("x"))} {
		if err == nil || strings.Contains(err.Error(), "lease") {
			t.Errorf("an error after the server stopped = %v; want one in PostgreSQL's terms", err)
		}
	}
}
