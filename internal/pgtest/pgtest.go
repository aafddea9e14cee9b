// Package pgtest starts a PostgreSQL server for tests: one per test
// binary, in a temporary folder, listening on a unix socket there only,
// started by the first test that asks for a database and stopped by Run
// when the binary's tests end. Each test gets a database of its own.
//
// The server's programs (initdb, postgres) are found in $PG_BIN, else in
// the newest /usr/lib/postgresql/*/bin (Debian's postgresql package, which
// make test installs), else on $PATH. Without them a test asking for a
// database fails saying so, unless TOOLROUTE_SKIP_POSTGRES=1 is set: then
// it is skipped. PostgreSQL refuses to run as root; run as root, the server
// runs as the user "postgres" (the Debian package makes it), or "nobody".
//
// The server runs with fsync off: the tests do not crash the machine.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// SkipEnv is the environment variable that, set to 1, skips the tests
// needing PostgreSQL when it is not installed.
const SkipEnv = "TOOLROUTE_SKIP_POSTGRES"

// Server is a running PostgreSQL server.
type Server struct {
	dir  string // the data folder, which holds the socket too
	cmd  *exec.Cmd
	exit chan struct{}
	n    atomic.Int64 // databases made
	mu   sync.Mutex   // one CREATE DATABASE at a time
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Run runs the binary's tests and then stops the server if one started:
// call it from TestMain, as os.Exit(pgtest.Run(m)).
func Run(m *testing.M) int {
	defer StopShared()
	return m.Run()
}

// StopShared stops the server URL started, if it did: for a TestMain that
// runs the tests otherwise than by Run.
func StopShared() {
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
}

// URL returns the URL of a new empty database on the binary's server,
// starting the server if it is the first. It fails t if the server cannot
// start, and skips it if PostgreSQL is missing and SkipEnv is set.
func URL(t testing.TB) string {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = Start(Options{}) })
	if sharedErr != nil {
		if errors.Is(sharedErr, errMissing) && os.Getenv(SkipEnv) == "1" {
			t.Skipf("%v (skipped: %s=1)", sharedErr, SkipEnv)
		}
		t.Fatal(sharedErr)
	}
	u, err := shared.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

var errMissing = errors.New("PostgreSQL is not installed")

// Durable starts a server of tb's own with fsync on, as a real server
// runs, for a benchmark: stopped when tb ends. It fails or skips tb as URL
// does.
func Durable(tb testing.TB) *Server {
	tb.Helper()
	s, err := Start(Options{Durable: true})
	if err != nil {
		if errors.Is(err, errMissing) && os.Getenv(SkipEnv) == "1" {
			tb.Skipf("%v (skipped: %s=1)", err, SkipEnv)
		}
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// Bin returns the folder of PostgreSQL's programs.
func Bin() (string, error) {
	if dir := os.Getenv("PG_BIN"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err != nil {
			return "", fmt.Errorf("%w: PG_BIN=%s has no initdb (%v); set PG_BIN to the folder of initdb and postgres", errMissing, dir, err)
		}
		return dir, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("%w (no initdb in /usr/lib/postgresql/*/bin or on PATH): install it (Debian: apt-get install postgresql; make test does), "+
		"or set PG_BIN to the folder of its initdb and postgres, or %s=1 to skip these tests", errMissing, SkipEnv)
}

// version is the major version in a path /usr/lib/postgresql/N/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Options change how Start runs the server.
type Options struct {
	// Durable keeps fsync on, as a real server runs: for benchmarks.
	Durable bool
}

// Start initializes a database cluster in a new temporary folder and starts
// a server on it; Stop stops it and removes the folder.
func Start(opts Options) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolroute-pg-")
	if err != nil {
		return nil, err
	}
	cred, err := runAs(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "toolroute",
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	fsync := "off"
	if opts.Durable {
		fsync = "on"
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir,
		"-c", "listen_addresses=", "-c", "fsync="+fsync, "-c", "max_connections=300",
		"-c", "shared_buffers=64MB")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGTERM}
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	s := &Server{dir: dir, cmd: cmd, exit: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exit) }()
	if err := s.waitReady(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		s.Stop()
		return nil, fmt.Errorf("pgtest: %v\n%s", err, log)
	}
	return s, nil
}

// runAs makes dir usable by the server's user and returns that user's
// credential: nil (this process's) unless this process is root, which
// PostgreSQL refuses.
func runAs(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, and no user postgres or nobody to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.url("postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		select {
		case <-s.exit:
			return fmt.Errorf("postgres exited: %v", s.cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after 30s: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// url returns the URL of a database of the server.
func (s *Server) url(db string) string {
	return "postgres://toolroute@localhost/" + db + "?host=" + url.QueryEscape(s.dir)
}

// NewDatabase makes a new empty database and returns its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("test%d", s.n.Add(1))
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return s.url(name), nil
}

// Dir is the folder of the server's socket, for URLs of one's own.
func (s *Server) Dir() string { return s.dir }

// Stop stops the server (a fast shutdown: sessions are ended) and removes
// its folder.
func (s *Server) Stop() error {
	defer os.RemoveAll(s.dir)
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exit:
		return nil
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exit
		return errors.New("pgtest: postgres did not stop within 30s; killed")
	}
}
