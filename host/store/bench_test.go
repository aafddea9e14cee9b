package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/registry/session"
)

// BenchmarkTurnWrites does the writes of one text-only turn of the Go host
// (take the turn lock, append the user message, append the reply, release
// the lock) b.N times, spread over K sessions writing at once, on one
// database file: the store's own cost per turn, no module, no model.
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
			var wg sync.WaitGroup
			for i := range k {
				wg.Add(1)
				go func() {
					defer wg.Done()
					id := fmt.Sprintf("bench-%d", i)
					for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
						if err := turnWrites(ctx, db, id, int(n)); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

func turnWrites(ctx context.Context, db *DB, id string, n int) error {
	unlock, ok, err := db.LockTurn(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("session %s: the turn lock is taken", id)
	}
	defer unlock()
	now := time.Now()
	if err := db.Append(ctx, id, session.Message{Type: session.User, Content: fmt.Sprintf("Turn %d.", n), Time: now}); err != nil {
		return err
	}
	return db.Append(ctx, id, session.Message{Type: session.Assistant, Content: "Done.", Time: now})
}
