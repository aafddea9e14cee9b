package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/proccpu"
	"github.com/toolroute/toolroute/registry/session"
)

// BenchmarkTurnWrites does the store's work of one text-only turn of the Go
// host (take the turn lock, read the messages logged since the last turn,
// append the user message, append the reply and release the lock) b.N
// times, spread over K sessions writing at once, on one database file: the
// store's own cost per turn, no module, no model.
func BenchmarkTurnWrites(b *testing.B) {
	for _, k := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("sessions=%d", k), func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "toolroute.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			var next atomic.Int64
			errs := make(chan error, k)
			b.ResetTimer()
			cpu := proccpu.Used()
			var wg sync.WaitGroup
			for i := range k {
				wg.Add(1)
				go func() {
					defer wg.Done()
					id := fmt.Sprintf("bench-%d", i)
					logged := 0
					for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
						if err := turnWrites(ctx, db, id, int(n), &logged); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			cpu = proccpu.Used() - cpu
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// turnWrites is the store's part of a turn, as the host does it; logged is
// how many messages the session's previous turn left in its log.
func turnWrites(ctx context.Context, db *DB, id string, n int, logged *int) error {
	unlock, ok, err := db.LockTurn(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("session %s: the turn lock is taken", id)
	}
	defer unlock()
	if _, total, err := db.MessagesFrom(ctx, id, *logged); err != nil || total != *logged {
		return fmt.Errorf("session %s holds %d messages, %v; want %d", id, total, err, *logged)
	}
	now := time.Now()
	if err := db.Append(ctx, id, session.Message{Type: session.User, Content: fmt.Sprintf("Turn %d.", n), Time: now}); err != nil {
		return err
	}
	*logged += 2
	return db.AppendUnlock(ctx, id, session.Message{Type: session.Assistant, Content: "Done.", Time: now})
}

// BenchmarkMessages reads a 10,000-message log as a turn does: uncached
// (the first read of a session by this process, or one evicted), and
// cached after a turn appended two messages (only those are decoded).
func BenchmarkMessages(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "toolroute.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const n = 10000
	batch := make([]session.Message, 0, 100)
	for i := range n {
		typ := session.User
		if i%2 == 1 {
			typ = session.Assistant
		}
		batch = append(batch, session.Message{Type: typ, Content: fmt.Sprintf("Message %d of a long conversation, with some words in it.", i), Time: time.Now()})
		if len(batch) == cap(batch) {
			if err := db.Append(ctx, "long", batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	read := func(b *testing.B, want int) int {
		msgs, err := db.Messages(ctx, "long")
		if err != nil || want >= 0 && len(msgs) != want {
			b.Fatalf("%d messages, %v; want %d", len(msgs), err, want)
		}
		return len(msgs)
	}
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			lite(db).history.drop("long")
			if got := read(b, -1); got < n {
				b.Fatalf("%d messages, want at least %d", got, n)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		// The framework may run this more than once: the log has grown.
		total := read(b, -1)
		for b.Loop() {
			b.StopTimer()
			msg := session.Message{Type: session.User, Content: "One more.", Time: time.Now()}
			if err := db.Append(ctx, "long", msg, msg); err != nil {
				b.Fatal(err)
			}
			total += 2
			b.StartTimer()
			read(b, total)
		}
	})
}
