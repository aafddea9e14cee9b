package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/registry/session"
)

// defaultLease is how long a turn lock lasts unless renewed. It is renewed
// every third of that, so a slow disk or a busy database can miss two
// renewals before the lock is lost.
const defaultLease = 30 * time.Second

// releaseTimeout bounds the write that releases a turn lock; if it fails,
// the lease expires instead.
const releaseTimeout = 15 * time.Second

// ErrTurnRunning is returned, wrapped, by Append to a session whose turn
// another process runs.
var ErrTurnRunning = errors.New("a turn is running in another process")

// ErrSessionBusy is returned, wrapped, by DeleteSession while a turn runs
// in the session, in this process or another.
var ErrSessionBusy = errors.New("a turn is running in the session")

// ErrTurnLost is returned, wrapped, by Append to a session whose turn lock
// this DB took and then lost, so another process may run a turn: with
// SQLite its lease went unrenewed past its time (the process was stopped,
// the disk stalled) and another process took it; with PostgreSQL the
// connection holding it ended. The error says which.
var ErrTurnLost = errors.New("this process's turn lock was lost")

// errLeaseLost is ErrTurnLost in SQLite's terms.
var errLeaseLost = fmt.Errorf("%w: it went unrenewed past its lease (this process was stopped, or the disk stalled) and another process may run a turn", ErrTurnLost)

// LockTurn takes the session's turn lock unless another holder has it, and
// reports whether it did; unlock releases it. It implements host.TurnLocker.
//
// # Notes
//
// The lock is a lease row in the database file, so it holds across the
// processes sharing the file. It is taken in one write transaction (BEGIN
// IMMEDIATE) if the session has no lease, or one that expired, or one
// whose process is gone from this machine. While held it is renewed every
// 10 seconds for 30 more: a process killed holding it frees the session at
// once for the processes of its machine (its id is no longer running), and
// within 30 seconds for others, or if its id was reused.
//
// Append checks the lease in its transaction, which fences a holder that
// lost its lock: while this DB holds a session's lock, Append commits only
// if the lease is still this lock's (ErrTurnLost otherwise); while another
// holder's lease is live, it refuses (ErrTurnRunning).
//
// Two DBs open on one file are two holders, as two processes are; a second
// LockTurn of a session through the DB that holds it reports false.
func (db *liteDB) LockTurn(ctx context.Context, sessionID string) (unlock func(), ok bool, err error) {
	db.turnsMu.Lock()
	if _, held := db.turns[sessionID]; held {
		db.turnsMu.Unlock()
		return nil, false, nil
	}
	// Reserved: no token until the lease is taken, so Append does not
	// check it.
	t := &liteTurn{}
	db.turns[sessionID] = t
	db.turnsMu.Unlock()

	token := rand.Text()
	took := false
	var verified *cachedLog
	err = db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		now := db.now().UnixNano()
		// Expired leases are free: their holders died or lost them.
		if _, err := db.exec(ctx, tx, `DELETE FROM turn_leases WHERE expires <= ?`, now); err != nil {
			return err
		}
		l, found, err := db.readLease(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		if found && db.leaseHeld(sessionID, l, now) {
			return nil
		}
		if _, err := db.exec(ctx, tx, `
			INSERT INTO turn_leases (session_id, owner, machine, pid, expires) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner,
				machine = excluded.machine, pid = excluded.pid, expires = excluded.expires`,
			sessionID, token, machine(), os.Getpid(), now+int64(db.lease)); err != nil {
			return err
		}
		took = true
		// The session's cached log, if it is still the file's, stands for
		// it while the lease holds: only this DB can append to it then.
		verified = nil
		if c := db.history.get(sessionID); c != nil {
			ok, err := db.cacheCurrent(ctx, tx, c)
			if err != nil {
				return err
			}
			if ok {
				verified = c
			}
		}
		return nil
	})
	if err != nil || !took {
		db.forget(sessionID)
		if err != nil {
			return nil, false, fmt.Errorf("store: lock a turn of session %q: %w", sessionID, err)
		}
		return nil, false, nil
	}
	db.turnsMu.Lock()
	t.token, t.log = token, verified
	delete(db.stale, sessionID) // the lease taken replaced it
	if !db.renewing {
		db.renewing = true
		go db.renew()
	}
	db.turnsMu.Unlock()
	return func() { db.endTurn(sessionID, t, true) }, true, nil
}

// liteTurn is a turn lock this DB holds, or is taking.
type liteTurn struct {
	// token is the lease's owner, "" while the lock is being taken.
	token string
	once  sync.Once
	// log, once the lease is taken, is the session's whole log when known:
	// the cached log checked against the file in the lease's transaction,
	// or read from it under the lease, and extended by the appends since.
	// While the lease holds only this DB appends to the session, so reads
	// take the log from here, without a query. appends counts the
	// appends committed under the lease (appended).
	log     *cachedLog
	appends int
}

// cacheCurrent reports whether c is still the file's log of its session:
// its last row is the session's last message, of the same session.
func (db *liteDB) cacheCurrent(ctx context.Context, tx *sql.Conn, c *cachedLog) (bool, error) {
	row, err := db.queryRow(ctx, tx, `
		SELECT m.seq, m.id, s.created FROM messages m JOIN sessions s ON s.id = m.session_id
		WHERE m.session_id = ? ORDER BY m.seq DESC LIMIT 1`, c.id)
	if err != nil {
		return false, err
	}
	var (
		seq              int
		lastRow, created int64
	)
	switch err := row.Scan(&seq, &lastRow, &created); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	return seq == len(c.msgs)-1 && lastRow == c.lastRow && created == c.created, nil
}

// leased returns the lock this DB holds on the session, nil if none, with
// its log (liteTurn's log, nil if not known) and how many appends were
// committed under it so far.
func (db *liteDB) leased(sessionID string) (t *liteTurn, log *cachedLog, appends int) {
	db.turnsMu.Lock()
	defer db.turnsMu.Unlock()
	if t := db.turns[sessionID]; t != nil && t.token != "" {
		return t, t.log, t.appends
	}
	return nil, nil, 0
}

// readUnderLease keeps c, a log just read from the file while this DB held
// t, the session's lock, as t's log if t is still held and no append was
// committed under it since appends was counted (leased): the read may have
// missed it.
func (db *liteDB) readUnderLease(t *liteTurn, c *cachedLog, appends int) {
	db.turnsMu.Lock()
	defer db.turnsMu.Unlock()
	if db.turns[c.id] == t && t.log == nil && t.appends == appends {
		t.log = c
	}
}

// appended extends the log kept under the lease with msgs, committed as
// rows first to lastRow of the session's log (texts are their JSON), if
// they follow it; else that log is dropped and reads go to the file.
func (db *liteDB) appended(sessionID string, first int, lastRow int64, texts []string) {
	db.turnsMu.Lock()
	defer db.turnsMu.Unlock()
	t := db.turns[sessionID]
	if t == nil || t.token == "" {
		return
	}
	t.appends++
	if t.log == nil {
		return
	}
	if first != len(t.log.msgs) {
		t.log = nil
		return
	}
	add := make([]session.Message, len(texts))
	bytes := 0
	for i, text := range texts {
		// Decoded as a read decodes it, so a read gives the same.
		if err := json.Unmarshal([]byte(text), &add[i]); err != nil {
			t.log = nil
			return
		}
		bytes += len(text)
	}
	t.log = db.history.extend(t.log, add, lastRow, bytes)
}

// endTurn stops renewing t's lease and forgets it, once; release deletes
// the lease too, unless AppendUnlock deleted it already.
func (db *liteDB) endTurn(sessionID string, t *liteTurn, release bool) {
	t.once.Do(func() {
		if release {
			db.release(sessionID, t.token)
		}
		db.forget(sessionID)
	})
}

// AppendUnlock appends msgs as Append does and, in the same transaction,
// releases the session's turn lock this DB holds: the end of a turn in one
// commit instead of two. The unlock that LockTurn returned then does
// nothing. If it fails, nothing is appended and the lock is still held
// (unlock releases it); a process killed before the commit leaves the lease
// to expire as any other. Without the lock it is Append. It implements
// host.TurnEnder.
func (db *liteDB) AppendUnlock(ctx context.Context, sessionID string, msgs ...session.Message) error {
	db.turnsMu.Lock()
	t := db.turns[sessionID]
	db.turnsMu.Unlock()
	if t == nil || t.token == "" {
		return db.Append(ctx, sessionID, msgs...)
	}
	if len(msgs) == 0 {
		db.endTurn(sessionID, t, true)
		return nil
	}
	if err := db.appendTx(ctx, sessionID, msgs, t.token); err != nil {
		return err
	}
	db.endTurn(sessionID, t, false)
	return nil
}

// lease is a row of turn_leases.
type lease struct {
	owner, machine string
	pid, expires   int64
}

func (db *liteDB) readLease(ctx context.Context, tx *sql.Conn, sessionID string) (lease, bool, error) {
	var l lease
	row, err := db.queryRow(ctx, tx,
		`SELECT owner, machine, pid, expires FROM turn_leases WHERE session_id = ?`, sessionID)
	if err != nil {
		return lease{}, false, err
	}
	err = row.Scan(&l.owner, &l.machine, &l.pid, &l.expires)
	if errors.Is(err, sql.ErrNoRows) {
		return lease{}, false, nil
	}
	return l, err == nil, err
}

// leaseHeld reports whether l, the session's lease, holds at now: it is
// live, and it is not one this DB released without deleting it (stale).
func (db *liteDB) leaseHeld(sessionID string, l lease, now int64) bool {
	if !l.live(now) {
		return false
	}
	db.turnsMu.Lock()
	defer db.turnsMu.Unlock()
	return db.stale[sessionID] != l.owner
}

// live reports whether the lease still holds at now: it has not expired,
// and its process is running or cannot be checked from here.
func (l lease) live(now int64) bool {
	if l.expires <= now {
		return false
	}
	if m := machine(); m == "" || l.machine != m {
		return true
	}
	return processAlive(int(l.pid))
}

// machine names this machine and its process id space, so a lease's pid
// is checked only by processes for which it means the same process: the
// host name, and on Linux the pid namespace (containers sharing a file).
// It is "" if the host name is unknown: no pid is checked then.
var machine = sync.OnceValue(func() string {
	name, err := os.Hostname()
	if err != nil || name == "" {
		return ""
	}
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		name += " " + ns
	}
	return name
})

// renew renews the leases of the turn locks this DB holds, all of them
// every third of the lease in one transaction, and deletes the stale ones
// (release), until it holds none or closes: one goroutine for the DB rather than one per turn, so that a
// turn costs no goroutine, timer or wake-up of its own. A lock is renewed
// within a third of a lease of being taken. A lease found gone or another's was lost: Append refuses
// from then on, and reads go to the file, which another holder may append
// to.
func (db *liteDB) renew() {
	for {
		wait := time.NewTimer(db.lease / 3)
		select {
		case <-db.closing:
			wait.Stop()
			db.turnsMu.Lock()
			db.renewing = false
			db.turnsMu.Unlock()
			return
		case <-wait.C:
		}
		type held struct {
			session, token string
			t              *liteTurn
		}
		var locks, stale []held
		db.turnsMu.Lock()
		for id, t := range db.turns {
			if t.token != "" {
				locks = append(locks, held{id, t.token, t})
			}
		}
		for id, token := range db.stale {
			stale = append(stale, held{id, token, nil})
		}
		if len(locks) == 0 && len(stale) == 0 {
			db.renewing = false
			db.turnsMu.Unlock()
			return
		}
		db.turnsMu.Unlock()
		bySession := func(a, b held) int { return strings.Compare(a.session, b.session) }
		slices.SortFunc(locks, bySession)
		slices.SortFunc(stale, bySession)
		var lost []*liteTurn
		err := db.write(context.Background(), func(ctx context.Context, tx *sql.Conn) error {
			lost = lost[:0] // a retried transaction starts again
			for _, l := range stale {
				if _, err := db.exec(ctx, tx,
					`DELETE FROM turn_leases WHERE session_id = ? AND owner = ?`, l.session, l.token); err != nil {
					return err
				}
			}
			expires := db.now().Add(db.lease).UnixNano()
			for _, l := range locks {
				res, err := db.exec(ctx, tx,
					`UPDATE turn_leases SET expires = ? WHERE session_id = ? AND owner = ?`,
					expires, l.session, l.token)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil {
					return err
				} else if n != 1 {
					lost = append(lost, l.t)
				}
			}
			return nil
		})
		if err == nil {
			db.turnsMu.Lock()
			for _, t := range lost {
				t.log = nil
			}
			for _, l := range stale {
				if db.stale[l.session] == l.token {
					delete(db.stale, l.session)
				}
			}
			db.turnsMu.Unlock()
		}
	}
}

// release deletes the lease if it is still this lock's and forgets it. If
// the delete cannot be written (the disk is full, say: the turn likely
// failed for the same reason), the lease is kept as stale: this DB takes
// it as free at once, and renew deletes it once a write goes through, so
// the others need not wait for it to expire.
func (db *liteDB) release(sessionID, token string) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	err := db.write(ctx, func(ctx context.Context, tx *sql.Conn) error {
		_, err := db.exec(ctx, tx,
			`DELETE FROM turn_leases WHERE session_id = ? AND owner = ?`, sessionID, token)
		return err
	})
	db.turnsMu.Lock()
	delete(db.turns, sessionID)
	if err != nil && !errors.Is(err, errClosed) {
		db.stale[sessionID] = token
		if !db.renewing {
			db.renewing = true
			go db.renew()
		}
	}
	db.turnsMu.Unlock()
}

func (db *liteDB) forget(sessionID string) {
	db.turnsMu.Lock()
	delete(db.turns, sessionID)
	db.turnsMu.Unlock()
}

// checkLease returns why tx must not append to the session: ErrTurnLost if
// this DB holds the session's lock but the lease is no longer its own,
// ErrTurnRunning if another holder's lease is live.
func (db *liteDB) checkLease(ctx context.Context, tx *sql.Conn, sessionID string) error {
	mine := ""
	db.turnsMu.Lock()
	if t := db.turns[sessionID]; t != nil {
		mine = t.token
	}
	db.turnsMu.Unlock()
	l, found, err := db.readLease(ctx, tx, sessionID)
	switch {
	case err != nil:
		return err
	case mine != "" && (!found || l.owner != mine):
		return errLeaseLost
	case mine == "" && found && db.leaseHeld(sessionID, l, db.now().UnixNano()):
		return ErrTurnRunning
	}
	return nil
}
