package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// ErrNotFound is returned, wrapped, by the methods that change or delete a
// session or a memory that does not exist.
var ErrNotFound = errors.New("not found")

// maxConns bounds the pool: each connection is a SQLite instance with
// a linear memory of its own.
const maxConns = 8

// liteDB is a DB in a SQLite file.
type liteDB struct {
	sql  *sql.DB
	path string
	// The writes (writer.go): those queued, whether a leader runs them
	// (and how many run, for Close), and the connection they run on.
	qmu     sync.Mutex
	pending []*writeReq
	leading bool
	closed  bool
	leaders sync.WaitGroup
	wconn   *sql.Conn
	// wraw is wconn's SQLite connection, and wstmts the statements
	// prepared on it (rawStmt): the leader's only.
	wraw   *sqlite3.Conn
	wstmts map[string]*sqlite3.Stmt
	// closing is closed by Close, for the indexer.
	closing   chan struct{}
	closeOnce sync.Once
	// unindexed is set by Append: messages wait for the search index
	// (search.go's indexer, stopped by Close, which closes indexerDone).
	unindexed   atomic.Bool
	indexerDone chan struct{}
	// history keeps the logs Messages read (history.go).
	history historyCache
	// stmts are the statements prepared for reads (stmt).
	stmtsMu sync.Mutex
	stmts   map[string]*sql.Stmt
	// now is the clock of the sessions' and memories' times, and of the
	// turn leases.
	now func() time.Time
	// lease is how long a turn lock lasts unless renewed: the longest a
	// session stays locked after its process died in a turn.
	lease time.Duration
	// turnsMu guards turns: the sessions whose turn lock this DB holds
	// or is taking, and their tokens.
	turnsMu sync.Mutex
	turns   map[string]*liteTurn
	// stale are the leases this DB released without deleting them (the
	// write failed: a full disk, say), by session: free for this DB, and
	// deleted by renew once a write goes through. Guarded by turnsMu.
	stale map[string]string
	// renewing is whether the goroutine renewing the leases runs (renew);
	// guarded by turnsMu.
	renewing bool
}

// openLite opens the SQLite database at path, creating the file and its
// parent folders if needed, and brings its schema up to date. It refuses a
// file that is not a SQLite database, or a SQLite database that is not
// toolroute's.
func openLite(ctx context.Context, path string) (*liteDB, error) {
	if path == "" {
		return nil, errors.New("store: open: empty path; give the database file's path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("store: open %s: create its folder: %w", abs, err)
	}
	// Each connection gets FTS5, which the driver builds as an extension
	// of its own, for the search index.
	sdb, err := driver.Open(dsn(abs), fts5.Register)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	// The writer's connection and maxConns for reading.
	sdb.SetMaxOpenConns(maxConns + 1)
	sdb.SetMaxIdleConns(maxConns + 1)
	db := &liteDB{sql: sdb, path: abs, now: time.Now, lease: defaultLease, turns: map[string]*liteTurn{}, stale: map[string]string{},
		stmts: map[string]*sql.Stmt{}, wstmts: map[string]*sqlite3.Stmt{}, closing: make(chan struct{}), indexerDone: make(chan struct{})}
	if db.wconn, err = sdb.Conn(ctx); err != nil {
		sdb.Close()
		return nil, openError(abs, err)
	}
	go db.indexer()
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, openError(abs, err)
	}
	return db, nil
}

func openError(abs string, err error) error {
	if errors.Is(err, sqlite3.NOTADB) {
		return fmt.Errorf("store: %s is not a SQLite database; move it away or choose another path: %w", abs, err)
	}
	return fmt.Errorf("store: open %s: %w", abs, err)
}

// dsn returns the driver's file: URI for an absolute path, with the pragmas
// every connection runs. busy_timeout comes first, as the driver advises.
func dsn(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:/C:/...
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q["_pragma"] = []string{
		"busy_timeout(10000)",
		"journal_mode(wal)",
		"synchronous(normal)",
		"foreign_keys(on)",
	}
	return "file:" + (&url.URL{Path: p}).EscapedPath() + "?" + q.Encode()
}

// Close closes the database, once the write running, if any, is done;
// writes still queued fail. Calls made after it return errors.
func (db *liteDB) Close() error {
	db.closeOnce.Do(func() {
		// What this DB appended goes into the search index before it
		// closes; if that fails, the next search indexes it.
		if db.unindexed.Load() {
			ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
			db.indexPending(ctx)
			cancel()
		}
		close(db.closing)
		db.stopWrites()
		db.closeRaw()
		db.wconn.Close()
	})
	<-db.indexerDone
	db.stmtsMu.Lock()
	for _, s := range db.stmts {
		s.Close()
	}
	clear(db.stmts)
	db.stmtsMu.Unlock()
	if err := db.sql.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}

// Path returns the absolute path of the database file.
func (db *liteDB) Path() string { return db.path }

func (db *liteDB) ReleaseCaches() { db.history.clear() }

func (db *liteDB) setClock(now func() time.Time) { db.now = now }

// fromNanos returns a time stored as Unix nanoseconds.
func fromNanos(n int64) time.Time { return time.Unix(0, n) }
