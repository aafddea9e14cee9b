// Package calltimer gives a tool call a time limit that its progress
// restarts: a call whose MCP server reports how far it has got is not cut
// while it does, in the Go host as in the JS hosts (which restart their
// timers on progress too).
package calltimer

import (
	"context"
	"sync"
	"time"
)

// New returns a copy of ctx that ends d from now, or d after the last call
// of restart, and its cancel. Once its time runs out its Err is
// context.DeadlineExceeded, as a context.WithTimeout's; its Deadline is
// the current one (or ctx's, when earlier).
func New(ctx context.Context, d time.Duration) (c context.Context, restart func(), cancel context.CancelFunc) {
	inner, stop := context.WithCancel(ctx)
	t := &timed{Context: inner, stop: stop, d: d, deadline: time.Now().Add(d), done: make(chan struct{})}
	// A channel of its own, not inner's: a context made from this one then
	// takes its Err (DeadlineExceeded) when it ends, not inner's.
	context.AfterFunc(inner, t.end)
	t.timer = time.AfterFunc(d, t.fire)
	return t, t.restart, t.cancel
}

type timed struct {
	context.Context
	stop context.CancelFunc
	d    time.Duration
	done chan struct{}
	once sync.Once

	mu       sync.Mutex
	timer    *time.Timer
	deadline time.Time
	expired  bool
}

// fire ends the context, unless a restart moved its deadline meanwhile.
func (t *timed) fire() {
	t.mu.Lock()
	if wait := time.Until(t.deadline); wait > 0 {
		t.timer.Reset(wait)
		t.mu.Unlock()
		return
	}
	t.expired = true
	t.mu.Unlock()
	t.stop()
	t.end()
}

// end closes done, once: when its time runs out, it is cancelled, or ctx
// ends.
func (t *timed) end() { t.once.Do(func() { close(t.done) }) }

func (t *timed) restart() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.expired || t.Context.Err() != nil {
		return
	}
	t.deadline = time.Now().Add(t.d)
	t.timer.Reset(t.d)
}

func (t *timed) cancel() {
	t.timer.Stop()
	t.stop()
	t.end()
}

func (t *timed) Deadline() (time.Time, bool) {
	t.mu.Lock()
	d := t.deadline
	t.mu.Unlock()
	if pd, ok := t.Context.Deadline(); ok && pd.Before(d) {
		return pd, true
	}
	return d, true
}

func (t *timed) Done() <-chan struct{} { return t.done }

func (t *timed) Err() error {
	select {
	case <-t.done:
	default:
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.expired {
		return context.DeadlineExceeded
	}
	return t.Context.Err()
}
