package store

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// pgBackend is testBackends' PostgreSQL.
var pgBackend = testBackends[1]

// A turn lock held on a connection that ends (the server restarted, the
// network cut, an administrator's pg_terminate_backend) is lost: the
// holder's Append refuses with ErrTurnLost, and another holder takes the
// lock at once.
func TestPGLockTurnLost(t *testing.T) {
	dbs := pgBackend.openShared(t, 2)
	a, b := dbs[0], dbs[1]
	must(t, a.Append(t.Context(), "s", userMessage("before")))
	unlockA := lockTurn(t, a, "s", true)
	lockTurn(t, b, "s", false)
	if n := queryInt(t, b, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); n != 1 {
		t.Fatalf("ended %d connections holding advisory locks, want a's 1", n)
	}
	if err := a.Append(t.Context(), "s", userMessage("late")); !errors.Is(err, ErrTurnLost) {
		t.Errorf("a.Append after losing the lock = %v, want ErrTurnLost", err)
	}
	unlockB := lockSoon(t, b, "s")
	must(t, b.Append(t.Context(), "s", userMessage("b's turn")))
	unlockA() // releases nothing of b's
	lockTurn(t, a, "s", false)
	unlockB()
	lockTurn(t, a, "s", true)
	msgs, err := a.Messages(t.Context(), "s")
	if err != nil || len(msgs) != 2 || msgs[1].Content != "b's turn" {
		t.Errorf("the log = %+v, %v; want before and b's turn", msgs, err)
	}
}

// Processes opening a new database at once make its schema once.
func TestPGOpenConcurrently(t *testing.T) {
	where := pgBackend.where(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(t.Context(), where)
			if err == nil {
				err = db.Append(t.Context(), "s", userMessage("hi"))
				db.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	db := openAt(t, where)
	if msgs, err := db.Messages(t.Context(), "s"); err != nil || len(msgs) != len(errs) {
		t.Errorf("Messages = %d, %v; want %d", len(msgs), err, len(errs))
	}
}

// What Open says about a URL it cannot use: each error says what to do,
// and none shows the password.
func TestPGOpenErrors(t *testing.T) {
	good := pgBackend.where(t)
	u, err := url.Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	withDB := func(name string) string {
		v := *u
		v.Path = "/" + name
		return v.String()
	}
	// A database holding a table of another program, and one a newer
	// toolroute made.
	foreign := pgBackend.where(t)
	conn, err := pgx.Connect(t.Context(), foreign)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(t.Context(), `CREATE TABLE invoices (id int)`)
	conn.Close(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	newer := pgBackend.where(t)
	execSQL(t, openAt(t, newer), `UPDATE toolroute_schema SET version = 99`)
	// A loopback port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().String()
	l.Close()

	tests := []struct {
		name, url string
		want      []string // in the error, in order
	}{
		{"bad url", "postgres://secretuser:hunter2@host:notaport/db",
			[]string{"store: the PostgreSQL URL is not valid", "give one like postgres://user:password@host:5432/database"}},
		{"unreachable", "postgres://toolroute:hunter2@" + closedPort + "/db?connect_timeout=5",
			[]string{"store: open postgres://toolroute:xxxxx@" + closedPort + "/db", "cannot reach the PostgreSQL server at " + closedPort, "start it, or check the host and port in the URL"}},
		{"no such database", withDB("nosuchdb"),
			[]string{`the database "nosuchdb" does not exist on the server; create it (createdb nosuchdb) or name another in the URL`}},
		{"not toolroute's", foreign,
			[]string{`holds tables that are not toolroute's (invoices); give toolroute a database or schema of its own`}},
		{"newer", newer,
			[]string{"schema version 99 is newer than this toolroute knows (1); upgrade toolroute"}},
		{"missing schema", good + "&options=-csearch_path%3Dnosuchschema",
			[]string{"no schema to create toolroute's tables in", "create it (CREATE SCHEMA) or set another"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(t.Context(), tt.url)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%s) succeeded", tt.url)
			}
			msg := err.Error()
			if strings.Contains(msg, "hunter2") {
				t.Errorf("the error shows the password: %s", msg)
			}
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the error %q does not say %q (in order)", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://u:pw@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable"},
		{"postgresql://u@h/db", "postgresql://u@h/db"},
		{"postgres://u:p%40ss@h/db", "postgres://u:xxxxx@h/db"},
	}
	for _, tt := range tests {
		if got := redactURL(tt.in); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Path gives the URL, without the password.
func TestPGPath(t *testing.T) {
	where := pgBackend.where(t)
	if db := openAt(t, where); db.Path() != where {
		t.Errorf("Path() = %q, want %q", db.Path(), where)
	}
}
