package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/ncruces/go-sqlite3"
)

// The writes of a DB are grouped (group commit): a write joins the queue,
// and if no write is running, its caller becomes the leader and runs the
// queued writes, its own first, all in one transaction, each in a savepoint
// of its own, then commits once. The writes queued meanwhile wait for the
// next batch. One session's turn writes a few times, so many sessions
// writing at once share a commit instead of queueing for one each; a write
// alone runs on its caller's goroutine, as it would by itself, without a
// savepoint. A leader whose own write is done hands what is still queued to
// a new goroutine, so no caller serves others for long.
//
// A write is still all or nothing, and its caller still returns only after
// the commit: a write that fails is rolled back to its savepoint and does
// not touch the rest of the batch; a commit that fails fails every write
// of the batch.

// maxBatch bounds the writes of one transaction.
const maxBatch = 128

var errClosed = errors.New("the database is closed")

// writeReq is one queued write.
type writeReq struct {
	ctx context.Context
	fn  func(context.Context, *sql.Conn) error
	// state moves from queued to running (a leader) or to abandoned
	// (the caller, gone on its context): whichever comes first.
	state atomic.Int32
	done  chan error
}

const (
	queued int32 = iota
	running
	abandoned
)

// write runs fn in a write transaction, on the writer's connection (inside
// the transaction: fn must not begin or end one), and returns once it is
// committed, or fails (wrapping ErrDiskFull if for want of space: diskFull).
// fn gets a context that is never canceled: a
// statement interrupted inside the shared transaction would roll all of it
// back. A caller whose ctx ends while its write waits in the queue returns
// at once and the write never runs; once running, it completes.
func (db *liteDB) write(ctx context.Context, fn func(context.Context, *sql.Conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	db.qmu.Lock()
	if db.closed {
		db.qmu.Unlock()
		return errClosed
	}
	db.pending = append(db.pending, r)
	lead := !db.leading
	if lead {
		db.leading = true
		db.leaders.Add(1)
	}
	db.qmu.Unlock()
	if lead {
		db.lead(r)
	}
	select {
	case err := <-r.done:
		return db.diskFull(err)
	case <-ctx.Done():
		if r.state.CompareAndSwap(queued, abandoned) {
			return ctx.Err()
		}
		return db.diskFull(<-r.done)
	}
}

// lead runs the queued writes in batches until none is left, or, once own's
// batch is done, hands the rest to a new goroutine. Only the leader uses
// the DB's write connection.
func (db *liteDB) lead(own *writeReq) {
	ownDone := false
	for {
		db.qmu.Lock()
		if len(db.pending) == 0 {
			db.leading = false
			db.qmu.Unlock()
			db.leaders.Done()
			return
		}
		if ownDone {
			db.qmu.Unlock()
			go db.lead(nil) // the leadership passes on
			return
		}
		n := min(len(db.pending), maxBatch)
		batch := append([]*writeReq(nil), db.pending[:n]...)
		db.pending = append(db.pending[:0], db.pending[n:]...)
		db.qmu.Unlock()
		db.runBatch(db.wconn, batch)
		ownDone = ownDone || slices.Contains(batch, own)
	}
}

// stopWrites fails the writes still queued and waits for the running
// batch, if any: Close's first step.
func (db *liteDB) stopWrites() {
	db.qmu.Lock()
	db.closed = true
	rest := db.pending
	db.pending = nil
	db.qmu.Unlock()
	for _, r := range rest {
		r.done <- errClosed
	}
	db.leaders.Wait()
}

// runBatch runs the batch's writes in one transaction and answers each.
func (db *liteDB) runBatch(conn *sql.Conn, batch []*writeReq) {
	live := batch[:0:0]
	for _, r := range batch {
		if r.state.CompareAndSwap(queued, running) {
			live = append(live, r)
		} else {
			r.done <- r.ctx.Err()
		}
	}
	if len(live) == 0 {
		return
	}
	bg := context.Background()
	if _, err := db.exec(bg, conn, `BEGIN IMMEDIATE`); err != nil {
		for _, r := range live {
			r.done <- err
		}
		return
	}
	if len(live) == 1 {
		r := live[0]
		if err := r.fn(context.WithoutCancel(r.ctx), conn); err != nil {
			db.rollback()
			r.done <- err
			return
		}
		r.done <- db.commit()
		return
	}
	results := make([]error, len(live))
	for i, r := range live {
		if _, err := db.exec(bg, conn, `SAVEPOINT write`); err != nil {
			db.failBatch(live, fmt.Errorf("a write of the batch: %w", err))
			return
		}
		results[i] = r.fn(context.WithoutCancel(r.ctx), conn)
		var err error
		if results[i] != nil {
			_, err = db.exec(bg, conn, `ROLLBACK TO write`)
		}
		if err == nil {
			_, err = db.exec(bg, conn, `RELEASE write`)
		}
		if err != nil {
			// SQLite rolled the whole transaction back (an I/O error, a
			// full disk): the writes before this one are gone too.
			if results[i] != nil {
				err = fmt.Errorf("%w (then: %w)", results[i], err)
			}
			db.failBatch(live, err)
			return
		}
	}
	err := db.commit()
	for i, r := range live {
		if err != nil {
			r.done <- err
		} else {
			r.done <- results[i]
		}
	}
}

// commit commits the writer's transaction, or rolls it back if the commit
// failed and left it open.
func (db *liteDB) commit() error {
	_, err := db.exec(context.Background(), nil, `COMMIT`)
	if err != nil && !db.wraw.GetAutocommit() {
		db.rollback()
	}
	return err
}

// rollback rolls the writer's transaction back; SQLite may have done so
// already (an I/O error), and then there is nothing to do.
func (db *liteDB) rollback() {
	if !db.wraw.GetAutocommit() {
		db.exec(context.Background(), nil, `ROLLBACK`)
	}
}

// failBatch rolls the transaction back and fails every write of it.
func (db *liteDB) failBatch(live []*writeReq, err error) {
	db.rollback()
	for _, r := range live {
		r.done <- err
	}
}

// stmt returns query prepared once per connection and kept, for reads
// outside a transaction.
func (db *liteDB) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	db.stmtsMu.Lock()
	s, ok := db.stmts[query]
	db.stmtsMu.Unlock()
	if !ok {
		var err error
		if s, err = db.sql.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		db.stmtsMu.Lock()
		if kept, raced := db.stmts[query]; raced {
			s.Close()
			s = kept
		} else {
			db.stmts[query] = s
		}
		db.stmtsMu.Unlock()
	}
	return s, nil
}

// The writes' transactions and statements run on the writer's SQLite
// connection itself (raw), prepared once and kept: database/sql's layers
// cost several times what SQLite does for a point query or a one-row
// insert (6 µs against 1 µs), a turn runs about fifteen, and its Tx starts
// a goroutine per transaction. A write's fn gets the connection as a
// *sql.Conn, for the statements run once in a while. Only the leader uses
// the connection, so they need no lock.

// rawStmt returns query prepared on the writer's connection.
func (db *liteDB) rawStmt(query string) (*sqlite3.Stmt, error) {
	if s, ok := db.wstmts[query]; ok {
		return s, nil
	}
	if db.wraw == nil {
		err := db.wconn.Raw(func(c any) error {
			r, ok := c.(interface{ Raw() *sqlite3.Conn })
			if !ok {
				return fmt.Errorf("the driver's connection is a %T, not a SQLite one", c)
			}
			db.wraw = r.Raw()
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	s, _, err := db.wraw.Prepare(query)
	if err != nil {
		return nil, err
	}
	db.wstmts[query] = s
	return s, nil
}

// closeRaw closes the writer's statements; no write runs any more.
func (db *liteDB) closeRaw() {
	for q, s := range db.wstmts {
		s.Close()
		delete(db.wstmts, q)
	}
}

// bind binds args to s's parameters, in order.
func bind(s *sqlite3.Stmt, args []any) error {
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case nil:
			err = s.BindNull(i + 1)
		case string:
			err = s.BindText(i+1, v)
		case int:
			err = s.BindInt64(i+1, int64(v))
		case int64:
			err = s.BindInt64(i+1, v)
		case bool:
			err = s.BindBool(i+1, v)
		case sql.NullInt64:
			if v.Valid {
				err = s.BindInt64(i+1, v.Int64)
			} else {
				err = s.BindNull(i + 1)
			}
		default:
			err = fmt.Errorf("store: no binding for a %T", a) // a bug here
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rawResult is what a statement run by exec changed.
type rawResult struct{ lastID, changes int64 }

func (r rawResult) LastInsertId() (int64, error) { return r.lastID, nil }
func (r rawResult) RowsAffected() (int64, error) { return r.changes, nil }

// exec runs a statement in tx, the writer's transaction, to its end.
func (db *liteDB) exec(_ context.Context, _ *sql.Conn, query string, args ...any) (sql.Result, error) {
	s, err := db.boundStmt(query, args)
	if err != nil {
		return nil, err
	}
	for s.Step() {
	}
	err = s.Reset()
	s.ClearBindings()
	if err != nil {
		return nil, err
	}
	return rawResult{lastID: db.wraw.LastInsertRowID(), changes: db.wraw.Changes()}, nil
}

// rawRow is the first row of a query's answer, as database/sql's Row.
type rawRow struct {
	s   *sqlite3.Stmt
	err error
}

// queryRow runs a query in tx, the writer's transaction; Scan reads its
// first row.
func (db *liteDB) queryRow(_ context.Context, _ *sql.Conn, query string, args ...any) (*rawRow, error) {
	s, err := db.boundStmt(query, args)
	if err != nil {
		return nil, err
	}
	return &rawRow{s: s}, nil
}

// boundStmt is the writer's prepared statement of query with args bound.
func (db *liteDB) boundStmt(query string, args []any) (*sqlite3.Stmt, error) {
	s, err := db.rawStmt(query)
	if err != nil {
		return nil, err
	}
	if err := bind(s, args); err != nil {
		s.ClearBindings()
		return nil, err
	}
	return s, nil
}

// Scan copies the row's columns into dest (*string, *int, *int64, *bool),
// or returns sql.ErrNoRows if there is none, and ends the query.
func (r *rawRow) Scan(dest ...any) (err error) {
	s := r.s
	defer func() {
		if rerr := s.Reset(); err == nil {
			err = rerr
		}
		s.ClearBindings()
	}()
	if !s.Step() {
		if err := s.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	for i, d := range dest {
		switch p := d.(type) {
		case *string:
			*p = s.ColumnText(i)
		case *int:
			*p = s.ColumnInt(i)
		case *int64:
			*p = s.ColumnInt64(i)
		case *bool:
			*p = s.ColumnBool(i)
		default:
			return fmt.Errorf("store: no scan into a %T", d) // a bug here
		}
	}
	return nil
}
