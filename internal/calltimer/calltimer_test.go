package calltimer

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/testwait"
)

// A context whose time is restarted before it runs out goes on; left
// alone, it ends with context.DeadlineExceeded, and a context made from it
// says so too.
func TestRestart(t *testing.T) {
	const d = 200 * time.Millisecond
	ctx, restart, cancel := New(context.Background(), d)
	defer cancel()
	child, stopChild := context.WithCancel(context.WithValue(ctx, struct{}{}, 1))
	defer stopChild()
	start, last := time.Now(), time.Now()
	for range 5 {
		time.Sleep(d / 4)
		// Restarted a quarter of its time ago: still running (Err read
		// before the time since, so that a stalled machine cannot fail it).
		err := ctx.Err()
		if gap := time.Since(last); err != nil && gap < d {
			t.Fatalf("ended %v after a restart: %v", gap, err)
		}
		restart()
		last = time.Now()
	}
	select {
	case <-ctx.Done():
	case <-time.After(testwait.Failsafe):
		t.Fatal("never ended")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("Err %v, want DeadlineExceeded", ctx.Err())
	}
	<-child.Done()
	if !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Errorf("a child's Err %v, want DeadlineExceeded", child.Err())
	}
	if elapsed := time.Since(start); elapsed < 5*d/4+d {
		t.Errorf("ended %v after it started: the restarts did not move its end", elapsed)
	}
	restart() // after its end: nothing
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("after a late restart, Err %v", ctx.Err())
	}
}

// Cancelled, or its parent cancelled, it ends with context.Canceled.
func TestCancel(t *testing.T) {
	ctx, _, cancel := New(context.Background(), time.Hour)
	if ctx.Err() != nil {
		t.Fatal(ctx.Err())
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < 59*time.Minute {
		t.Errorf("deadline %v %v", d, ok)
	}
	cancel()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("cancelled: %v", ctx.Err())
	}
	parent, stop := context.WithCancel(context.Background())
	ctx, _, cancel = New(parent, time.Hour)
	defer cancel()
	stop()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("parent cancelled: %v", ctx.Err())
	}
}
