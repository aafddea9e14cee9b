package store

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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

// A password, in every form a connection string gives it, is shown as
// xxxxx: in Open's errors (a server it cannot reach, a login it refuses, a
// string it cannot parse or will not take) and in Path. Each form is
// opened against the test server, which lets the user toolroute in without
// a password and refuses any other, and against a closed port. The
// passwords are made of two pieces joined by what breaks a naive
// redaction; neither piece may show.
func TestPGPasswordNeverShown(t *testing.T) {
	server, err := url.Parse(pgBackend.where(t))
	if err != nil {
		t.Fatal(err)
	}
	socket, db := server.Query().Get("host"), strings.TrimPrefix(server.Path, "/")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	closedHost, closedPort, _ := net.SplitHostPort(closed)
	const a, b = "Hunt3r", "Tw0Pw"
	tests := []struct {
		name string
		// form is the connection string, with USER, HOST (host[:port]),
		// SOCKET (a URL's ?host= for the server) or KV (keyword=value
		// host and port) and DB to fill in.
		form string
		// opens says Open succeeds on the server (else it is refused
		// before connecting, or the user is not toolroute).
		opens bool
	}{
		{"userinfo", "postgres://USER:" + a + b + "@HOST/DB?SOCKET", true},
		{"postgresql scheme", "postgresql://USER:" + a + b + "@HOST/DB?SOCKET", true},
		{"?password=", "postgres://USER@HOST/DB?SOCKET&password=" + a + b, true},
		{"?password= first", "postgres://USER@HOST/DB?password=" + a + b + "&SOCKET", true},
		{"?PASSWORD=", "postgres://USER@HOST/DB?SOCKET&PASSWORD=" + a + b, false},
		{"?password= key percent-encoded", "postgres://USER@HOST/DB?SOCKET&pass%77ord=" + a + b, true},
		{"?sslpassword=", "postgres://USER@HOST/DB?SOCKET&sslpassword=" + a + b, true},
		{"both", "postgres://USER:" + a + "@HOST/DB?SOCKET&password=" + b, true},
		{"percent-encoded @ and :", "postgres://USER:" + a + "%40%3A" + b + "@HOST/DB?SOCKET", true},
		{"percent-encoded throughout", "postgres://USER:%48%75%6e%74%33%72" + b + "@HOST/DB?SOCKET", true},
		{"an unencoded :", "postgres://USER:" + a + ":" + b + "@HOST/DB?SOCKET", true},
		{"an unencoded ?", "postgres://USER:" + a + "?" + b + "@HOST/DB?SOCKET", true},
		{"an unencoded #", "postgres://USER:" + a + "#" + b + "@HOST/DB?SOCKET", true},
		{"an unencoded @", "postgres://USER:" + a + "@" + b + "@HOST/DB?SOCKET", false},
		{"two unencoded @", "postgres://USER:" + a + "@x@" + b + "@HOST/DB?SOCKET", false},
		{"an unencoded /", "postgres://USER:" + a + "/" + b + "@HOST/DB?SOCKET", false},
		{"a space", "postgres://USER:" + a + " " + b + "@HOST/DB?SOCKET", false},
		{"an unencoded & in ?password=", "postgres://USER@HOST/DB?SOCKET&password=" + a + "&" + b, false},
		{"keyword=value", "KV user=USER password=" + a + b + " dbname=DB", true},
		{"keyword=value, spaces around =", "KV user=USER password = " + a + b + " dbname=DB", true},
		{"keyword=value, quoted", `KV user=USER password='` + a + ` \' ` + b + `' dbname=DB`, true},
		{"keyword=value, an unquoted space", "KV user=USER password=" + a + " " + b + " dbname=DB", false},
		{"keyword=value, sslpassword", "KV user=USER sslpassword=" + a + b + " dbname=DB", true},
		{"keyword=value, first", "password=" + a + b + " KV user=USER dbname=DB", true},
	}
	for _, tt := range tests {
		fill := func(user, host, socket, kv string) string {
			return strings.NewReplacer("USER", user, "HOST", host, "SOCKET", socket, "KV", kv, "DB", db).Replace(tt.form)
		}
		check := func(t *testing.T, what, text string) {
			t.Helper()
			if strings.Contains(text, a) || strings.Contains(text, b) {
				t.Errorf("%s shows the password: %s", what, text)
			}
		}
		t.Run(tt.name, func(t *testing.T) {
			where := fill("toolroute", "localhost", "host="+url.QueryEscape(socket), "host="+socket)
			got, err := Open(t.Context(), where)
			if err == nil {
				defer got.Close()
				check(t, "Path", got.Path())
				if !strings.Contains(got.Path(), "xxxxx") {
					t.Errorf("Path() = %s, want the password as xxxxx", got.Path())
				}
			} else {
				check(t, "the error", err.Error())
			}
			if tt.opens != (err == nil) {
				t.Errorf("Open(%s) = %v, want it to open: %v", where, err, tt.opens)
			}
			other := fill("someone", "localhost", "host="+url.QueryEscape(socket), "host="+socket)
			if _, err := Open(t.Context(), other); err == nil {
				t.Errorf("Open(%s) opened, as a user the server does not know", other)
			} else {
				check(t, "the login's error", err.Error())
			}
			unreachable := fill("toolroute", closed, "connect_timeout=5", "host="+closedHost+" port="+closedPort)
			if _, err := Open(t.Context(), unreachable); err == nil {
				t.Errorf("Open(%s) opened a closed port", unreachable)
			} else {
				check(t, "the unreachable server's error", err.Error())
			}
		})
	}
}

func TestRedactConn(t *testing.T) {
	for _, tt := range []struct{ name, input, want string }{
		{"userinfo", "postgres://u:pw@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable"},
		{"no password", "postgresql://u@h/db", "postgresql://u@h/db"},
		{"percent-encoded", "postgres://u:p%40ss@h/db", "postgres://u:xxxxx@h/db"},
		{"a ? in the password", "postgres://u:p?ss@h/db?sslmode=disable", "postgres://u:xxxxx@h/db?sslmode=disable"},
		{"an @ in the password", "postgres://u:p@ss@h/db", "postgres://u:xxxxx@h/db"},
		{"a / in the password", "postgres://u:p/ss@h/db", "postgres://u:xxxxx@h/db"},
		{"a ? in the user, two @", "postgres://?:secret1@@", "postgres://?:xxxxx@"},
		{"query", "postgres://u@h/db?sslmode=disable&password=pw&application_name=a@b", "postgres://u@h/db?sslmode=disable&password=xxxxx&application_name=a@b"},
		{"query, an & in the password", "postgres://u@h/db?password=p&ss&sslmode=disable", "postgres://u@h/db?password=xxxxx&sslmode=disable"},
		{"query, any case", "postgres://u@h/db?PassWord=pw", "postgres://u@h/db?PassWord=xxxxx"},
		{"keyword=value", "host=h user=u password=pw dbname=db", "host=h user=u password=xxxxx dbname=db"},
		{"keyword=value, quoted", `host=h password='p w\' x' dbname=db`, "host=h password=xxxxx dbname=db"},
		{"keyword=value, an unquoted space", "host=h password=p w dbname=db", "host=h password=xxxxx  dbname=db"},
		{"keyword=value, spaced =", "host=h password = pw", "host=h password = xxxxx"},
		{"a SQLite path", "/home/u/password=pw.db", "/home/u/password=pw.db"},
	} {
		if got := redactConn(tt.input); got != tt.want {
			t.Errorf("%s: redactConn(%q) = %q, want %q", tt.name, tt.input, got, tt.want)
		}
	}
}

// A password pgx reads from a connection string, written there once as it
// is, is never in what redactConn shows.
func FuzzRedactConn(f *testing.F) {
	for _, s := range []string{"postgres://u:secret1@h/db", "postgres://u@h/db?password=secret1", "host=h password=secret1",
		"postgres://u:sec@ret1@h/db", "host=h password='sec ret1' user=u", "postgresql://u@h/db?sslpassword=secret1&password=secret2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !IsPostgresURL(s) {
			return
		}
		cfg, err := pgconn.ParseConfig(s)
		if err != nil || len(cfg.Password) < 6 || strings.Count(s, cfg.Password) != 1 {
			return
		}
		if got := redactConn(s); strings.Contains(got, cfg.Password) {
			t.Errorf("redactConn(%q) = %q shows the password %q", s, got, cfg.Password)
		}
	})
}

// Path gives the URL, without the password.
func TestPGPath(t *testing.T) {
	where := pgBackend.where(t)
	if db := openAt(t, where); db.Path() != where {
		t.Errorf("Path() = %q, want %q", db.Path(), where)
	}
}
