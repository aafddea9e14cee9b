package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
)

// holdWriter runs a write that blocks the writer until the returned
// function is called, so the writes sent meanwhile queue up together.
func holdWriter(t *testing.T, db *DB) (release func()) {
	t.Helper()
	started, hold, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- lite(db).write(t.Context(), func(ctx context.Context, tx *sql.Conn) error {
			close(started)
			<-hold
			return nil
		})
	}()
	<-started
	return func() {
		close(hold)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// waitQueued waits until n writes are queued.
func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	queued := func() int {
		lite(db).qmu.Lock()
		defer lite(db).qmu.Unlock()
		return len(lite(db).pending)
	}
	for deadline := time.Now().Add(testwait.Failsafe); queued() < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Writes queued together commit in one transaction; one that fails is
// rolled back alone and reports its own error; the others all commit.
func TestWritesGrouped(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	release := holdWriter(t, db)

	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	counts, committed := make([]int64, n), make([]int64, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = lite(db).write(ctx, func(ctx context.Context, tx *sql.Conn) error {
				// How many of the batch's rows this write sees, and how
				// many a reader sees committed.
				const count = `SELECT count(*) FROM settings WHERE key LIKE 'k%'`
				if err := tx.QueryRowContext(ctx, count).Scan(&counts[i]); err != nil {
					return err
				}
				if err := lite(db).sql.QueryRowContext(ctx, count).Scan(&committed[i]); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, 'v')`, fmt.Sprintf("k%02d", i)); err != nil {
					return err
				}
				if i == 7 {
					return errors.New("write 7 fails after its insert")
				}
				return nil
			})
		}()
	}
	waitQueued(t, db, n)
	release()
	wg.Wait()

	for i, err := range errs {
		if (err != nil) != (i == 7) {
			t.Errorf("write %d: %v", i, err)
		}
	}
	got, err := db.Settings(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n-1 {
		t.Fatalf("%d settings kept, want %d: %v", len(got), n-1, got)
	}
	for _, s := range got {
		if s.Key == "k07" {
			t.Errorf("the failed write's insert was kept")
		}
	}
	// One transaction: each write saw the rows of those queued before it,
	// uncommitted, less the failed one's (so the write after it, if any,
	// saw as many as it did); a reader saw none of them.
	if slices.ContainsFunc(committed, func(c int64) bool { return c != 0 }) {
		t.Errorf("a reader saw %v rows committed during the writes; want none: they share one transaction", committed)
	}
	slices.Sort(counts)
	repeats := 0
	for i := 1; i < n; i++ {
		switch counts[i] - counts[i-1] {
		case 0:
			repeats++
		case 1:
		default:
			repeats = n
		}
	}
	if counts[0] != 0 || repeats > 1 {
		t.Errorf("the writes saw %v rows before them; want 0, 1, 2 and so on, one count twice at most: one transaction", counts)
	}
}

// A write whose context ends while it waits in the queue returns at once
// and never runs.
func TestQueuedWriteAbandoned(t *testing.T) {
	db := openTest(t)
	release := holdWriter(t, db)
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- lite(db).write(ctx, func(ctx context.Context, tx *sql.Conn) error {
			ran <- struct{}{}
			return nil
		})
	}()
	waitQueued(t, db, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the abandoned write returned %v, want context.Canceled", err)
	}
	release()
	// The writer has passed it by now: a later write runs after it.
	if err := db.SetSetting(t.Context(), "after", "1"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
		t.Error("the abandoned write ran")
	default:
	}
}

// Appends of many sessions at once, with the turn locks, all land in
// order.
func TestConcurrentTurnsKeepTheirLogs(t *testing.T) { forBackends(t, testConcurrentTurnsKeepTheirLogs) }

func testConcurrentTurnsKeepTheirLogs(t *testing.T, be testBackend) {
	db := be.open(t)
	ctx := t.Context()
	const sessions, turns = 16, 5
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("s%d", s)
			for n := range turns {
				unlock, ok, err := db.LockTurn(ctx, id)
				if err != nil || !ok {
					errs <- fmt.Errorf("%s: lock: %v %v", id, ok, err)
					return
				}
				err = db.Append(ctx, id, session.Message{Type: session.User, Content: fmt.Sprintf("%s turn %d", id, n)})
				if err == nil {
					err = db.Append(ctx, id, session.Message{Type: session.Assistant, Content: fmt.Sprintf("%s reply %d", id, n)})
				}
				unlock()
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for s := range sessions {
		id := fmt.Sprintf("s%d", s)
		msgs, err := db.Messages(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 2*turns {
			t.Fatalf("%s: %d messages, want %d", id, len(msgs), 2*turns)
		}
		for n := range turns {
			if want := fmt.Sprintf("%s turn %d", id, n); msgs[2*n].Content != want {
				t.Errorf("%s: message %d = %q, want %q", id, 2*n, msgs[2*n].Content, want)
			}
		}
	}
	checkIntegrity(t, db)
}
