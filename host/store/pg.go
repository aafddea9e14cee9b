package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgDB is a DB in a PostgreSQL database, which several processes share.
//
// A write method returns once its transaction is committed: with the
// server's default synchronous_commit = on, flushed to its disk. Writes of
// different callers run in parallel transactions on the pool's connections;
// the server flushes commits that come together at once (its own group
// commit), so the host needs no queue of its own. A write's statements run
// with a context that is never canceled, as the SQLite writer's do: a
// caller whose ctx ends while it waits for a connection returns at once and
// the write never runs; once running, it completes.
//
// Turn locks are session-level advisory locks (pg_advisory_lock), each
// held on a connection of its own for the turn (pglock.go): the server
// frees it when that connection ends, at once if the process dies.
type pgDB struct {
	pool *pgxpool.Pool
	// locks holds the connections of the turn locks: apart from pool, so
	// turns holding locks never leave the reads they need without one.
	locks *pgxpool.Pool
	url   string // without the password
	now   func() time.Time
	// history keeps the logs Messages read (history.go).
	history historyCache

	// turnsMu guards turns: the turn locks this DB holds, by session.
	turnsMu sync.Mutex
	turns   map[string]*pgTurn
}

// pgMaxConns bounds the connections for reads and writes; pgMaxLocks those
// holding turn locks, so the turns running at once.
const (
	pgMaxConns = 8
	pgMaxLocks = 64
)

// pgConnectTimeout bounds connecting when the URL sets no connect_timeout.
const pgConnectTimeout = 10 * time.Second

func openPG(ctx context.Context, rawURL string) (*pgDB, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil && isKeywordValue(rawURL) {
		return nil, fmt.Errorf("store: the PostgreSQL connection string is not valid (%s); give one like host=HOST port=5432 user=USER password=PASSWORD dbname=DATABASE, with a value holding spaces in quotes (password='...')", pgParseReason(rawURL, err))
	}
	if err != nil {
		return nil, fmt.Errorf("store: the PostgreSQL URL is not valid (%s); give one like postgres://user:password@host:5432/database, with any '@', ':', '/', '?' or '&' in the password percent-encoded (%%40, %%3A, %%2F, %%3F, %%26)", pgParseReason(rawURL, err))
	}
	if !isKeywordValue(rawURL) && pgAmbiguous(rawURL) {
		// pgx would take part of the password for the host and show it
		// in its errors.
		return nil, fmt.Errorf("store: the PostgreSQL URL %s has more than one '@' before its database: percent-encode an '@' in the password, as %%40", redactConn(rawURL))
	}
	shown := redactConn(rawURL)
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = pgConnectTimeout
	}
	cfg.MaxConns = pgMaxConns
	lcfg := cfg.Copy()
	lcfg.MaxConns = pgMaxLocks
	lcfg.MinConns = 0
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, pgOpenError(shown, cfg, err)
	}
	locks, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		pool.Close()
		return nil, pgOpenError(shown, cfg, err)
	}
	db := &pgDB{pool: pool, locks: locks, url: shown, now: time.Now, turns: map[string]*pgTurn{}}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, pgOpenError(shown, cfg, err)
	}
	return db, nil
}

// pgOpenError says what to do about a failure to open the database.
func pgOpenError(shown string, cfg *pgxpool.Config, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "3D000":
			return fmt.Errorf("store: open %s: the database %q does not exist on the server; create it (createdb %s) or name another in the URL: %w",
				shown, cfg.ConnConfig.Database, cfg.ConnConfig.Database, err)
		case "28P01", "28000":
			return fmt.Errorf("store: open %s: the server refused the login of user %q; check the user and password in the URL: %w",
				shown, cfg.ConnConfig.User, err)
		case "42501":
			return fmt.Errorf("store: open %s: user %q may not create toolroute's tables; grant it CREATE on the schema, or connect as the database's owner: %w",
				shown, cfg.ConnConfig.User, err)
		case "3F000":
			return fmt.Errorf("store: open %s: the schema in the URL's search_path does not exist; create it (CREATE SCHEMA) or name another: %w", shown, err)
		}
		return fmt.Errorf("store: open %s: %w", shown, err)
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("store: open %s: cannot reach the PostgreSQL server at %s; start it, or check the host and port in the URL: %w",
			shown, pgAddress(cfg), err)
	}
	return fmt.Errorf("store: open %s: %w", shown, err)
}

func pgAddress(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	if strings.HasPrefix(c.Host, "/") {
		return fmt.Sprintf("%s/.s.PGSQL.%d", c.Host, c.Port)
	}
	return net.JoinHostPort(c.Host, fmt.Sprint(c.Port))
}

// Close closes the database once the writes running are done; it releases
// the turn locks still held. Calls made after it return errors.
func (db *pgDB) Close() error {
	db.turnsMu.Lock()
	held := make([]*pgTurn, 0, len(db.turns))
	for _, t := range db.turns {
		if t != nil {
			held = append(held, t)
		}
	}
	db.turnsMu.Unlock()
	for _, t := range held {
		t.unlock()
	}
	db.locks.Close()
	db.pool.Close()
	return nil
}

// Path returns the database's URL without its password.
func (db *pgDB) Path() string { return db.url }

func (db *pgDB) ReleaseCaches() { db.history.clear() }

func (db *pgDB) setClock(now func() time.Time) { db.now = now }

// write runs fn in a transaction on a connection of the pool and returns
// once it is committed, or failed and rolled back.
func (db *pgDB) write(ctx context.Context, fn func(context.Context, pgx.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return pgError(err)
	}
	defer c.Release()
	run := context.WithoutCancel(ctx)
	return pgError(pgx.BeginFunc(run, c, func(tx pgx.Tx) error { return fn(run, tx) }))
}

// ErrUnreachable is returned, wrapped, by a call to a PostgreSQL database
// whose server cannot be reached, or whose connection broke during the
// call: the server stopped or restarted, or the network failed. What was
// committed before is kept.
var ErrUnreachable = errors.New("the PostgreSQL server cannot be reached")

// pgError words the errors any call to the server may give, in its terms:
// the pool's after Close is errClosed; a server whose disk is full
// (SQLSTATE 53100) ErrDiskFull; a server that cannot be reached, or whose
// connection broke or was ended (a dial or network error, an end of
// stream, SQLSTATE class 08 or 57P01 to 57P03) ErrUnreachable. Any other
// error is returned as it is.
func pgError(err error) error {
	if err == nil || errors.Is(err, errClosed) || errors.Is(err, ErrUnreachable) || errors.Is(err, ErrDiskFull) || errors.Is(err, ErrTurnLost) {
		return err
	}
	if strings.Contains(err.Error(), "closed pool") {
		return errClosed
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "53100":
			return fmt.Errorf("%w on the PostgreSQL server (%w): free space on its disk, then try again", ErrDiskFull, err)
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
			return pgUnreachable(err)
		}
		return err
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) {
		return pgUnreachable(err)
	}
	return err
}

func pgUnreachable(err error) error {
	return fmt.Errorf("%w (%w): start it, or check the network and the URL's host and port; what was stored before is kept", ErrUnreachable, err)
}

// pgMustChange returns ErrNotFound if a statement that succeeded changed no
// row, and err otherwise.
func pgMustChange(tag pgconn.CommandTag, err error) error {
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}
