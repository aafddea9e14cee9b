package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolroute/toolroute/registry/session"
)

// The turn locks on PostgreSQL. A session's turn lock is the session-level
// advisory lock of turnKey(session id), taken with pg_try_advisory_lock on a
// connection of db.locks that the turn keeps until it unlocks: the server
// holds it while that connection lives, and frees it when it ends, however
// it ends (unlock, Close, the process killed, the network gone). Nothing
// needs renewing.
//
// Append fences as SQLite's leases do. While this DB holds the session's
// lock, Append runs on the lock's own connection; if that connection is
// gone, so is the lock, and Append refuses with ErrTurnLost. Otherwise
// Append takes the same advisory lock shared, for its transaction
// (pg_try_advisory_xact_lock_shared), which fails while another holder has
// it: ErrTurnRunning. DeleteSession takes it exclusive for its transaction:
// ErrSessionBusy.

// pgTurn is a turn lock this DB holds.
type pgTurn struct {
	mu     sync.Mutex // one transaction at a time on conn
	conn   *pgxpool.Conn
	key    int64
	unlock func()
	done   bool // unlocked: conn is no longer the lock's
}

// turnKey is the advisory lock key of a session's turn: the first 8 bytes
// of a SHA-256 of its id, so two sessions share a key once in 2^64.
func turnKey(sessionID string) int64 {
	sum := sha256.Sum256([]byte("toolroute turn\x00" + sessionID))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

func (db *pgDB) LockTurn(ctx context.Context, sessionID string) (unlock func(), ok bool, err error) {
	db.turnsMu.Lock()
	if _, held := db.turns[sessionID]; held {
		db.turnsMu.Unlock()
		return nil, false, nil
	}
	db.turns[sessionID] = nil // reserved until the lock is taken
	db.turnsMu.Unlock()

	key := turnKey(sessionID)
	conn, err := db.locks.Acquire(ctx)
	if err == nil {
		err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok)
		if err != nil || !ok {
			conn.Release()
		}
	}
	if err != nil || !ok {
		db.forget(sessionID)
		if err != nil {
			return nil, false, fmt.Errorf("store: lock a turn of session %q: %w", sessionID, pgError(err))
		}
		return nil, false, nil
	}
	t := &pgTurn{conn: conn, key: key}
	var once sync.Once
	t.unlock = func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.done = true
			ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
			defer cancel()
			var released bool
			err := conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1)`, key).Scan(&released)
			if err != nil || !released {
				// Ending the connection releases every lock it holds.
				conn.Hijack().Close(ctx)
			} else {
				conn.Release()
			}
			db.forget(sessionID)
		})
	}
	db.turnsMu.Lock()
	db.turns[sessionID] = t
	db.turnsMu.Unlock()
	return t.unlock, true, nil
}

func (db *pgDB) forget(sessionID string) {
	db.turnsMu.Lock()
	delete(db.turns, sessionID)
	db.turnsMu.Unlock()
}

// pgExecer runs a statement: a pool, or a connection.
type pgExecer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// withTurn runs fn, a write to the session in one statement, fenced by its
// turn lock: on the lock's connection if this DB holds it; else on the
// pool's, with checkLock set: fn must then refuse while another holder has
// the lock (ErrTurnRunning).
func (db *pgDB) withTurn(ctx context.Context, sessionID string, fn func(ctx context.Context, conn pgExecer, checkLock bool) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	db.turnsMu.Lock()
	t := db.turns[sessionID]
	db.turnsMu.Unlock()
	if t == nil {
		c, err := db.pool.Acquire(ctx)
		if err != nil {
			return pgError(err)
		}
		defer c.Release()
		return pgError(fn(context.WithoutCancel(ctx), c, true))
	}
	t.mu.Lock()
	if t.done {
		t.mu.Unlock()
		return db.withTurn(ctx, sessionID, fn)
	}
	defer t.mu.Unlock()
	conn := t.conn.Conn()
	if conn.IsClosed() {
		return pgTurnLost(nil)
	}
	err := fn(context.WithoutCancel(ctx), conn, false)
	if err != nil && conn.IsClosed() {
		return pgTurnLost(err)
	}
	return pgError(err)
}

// pgTurnLost is ErrTurnLost in PostgreSQL's terms: the lock's connection
// ended, with err if a statement saw it end.
func pgTurnLost(err error) error {
	const why = "the connection to the PostgreSQL server that held the session's turn lock ended (the server stopped or restarted, the network failed, or an administrator ended it), so another process may run a turn; what the turn stored before is kept: send the message again once the server answers"
	if err == nil {
		return fmt.Errorf("%w: %s", ErrTurnLost, why)
	}
	return fmt.Errorf("%w: %s (%w)", ErrTurnLost, why, err)
}

// AppendUnlock appends msgs as Append does and then releases the session's
// turn lock this DB holds, as its unlock would (an advisory lock is not
// part of a transaction, so the two are two steps). If the append fails,
// the lock is still held. Without the lock it is Append.
func (db *pgDB) AppendUnlock(ctx context.Context, sessionID string, msgs ...session.Message) error {
	if err := db.Append(ctx, sessionID, msgs...); err != nil {
		return err
	}
	db.turnsMu.Lock()
	t := db.turns[sessionID]
	db.turnsMu.Unlock()
	if t != nil && t.unlock != nil {
		t.unlock()
	}
	return nil
}
