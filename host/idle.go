package host

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// idle gives the memory a busy spell freed back to the system once the host
// has been quiet for a while (Options.ReleaseIdle). Go's collector keeps
// the heap it last needed, and its background scavenger returns the rest
// slowly, and only down to what the last collection during the load
// planned for: a serve process idle after a burst of turns stayed at the
// burst's size (issue 34). One collection and one release per quiet spell
// cost a few milliseconds.
type idle struct {
	after   time.Duration
	release func() // Host.release; tests count the calls

	mu     sync.Mutex
	busy   int         // work running now
	spell  int         // counts busy spells, so a stale timer does nothing
	timer  *time.Timer // armed while quiet after work, nil otherwise
	closed bool
}

func newIdle(after time.Duration, release func()) *idle {
	return &idle{after: after, release: release}
}

// release empties the store's caches and closes the module's idle
// instances (module.Pool.Trim), then gives the memory freed back to the
// system.
func (h *Host) release() {
	if c, ok := h.store.(CacheReleaser); ok {
		c.ReleaseCaches()
	}
	h.pool.Trim(context.Background())
	debug.FreeOSMemory()
}

// enter marks work starting; the returned function marks it done. A nil
// idle (no ReleaseIdle) counts nothing.
func (i *idle) enter() (done func()) {
	if i == nil {
		return func() {}
	}
	i.mu.Lock()
	i.busy++
	if i.timer != nil {
		i.timer.Stop()
		i.timer = nil
	}
	i.spell++
	i.mu.Unlock()
	var once sync.Once
	return func() { once.Do(i.leave) }
}

func (i *idle) leave() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.busy--; i.busy > 0 || i.closed {
		return
	}
	spell := i.spell
	i.timer = time.AfterFunc(i.after, func() {
		i.mu.Lock()
		quiet := i.busy == 0 && i.spell == spell && !i.closed
		if quiet {
			i.timer = nil
		}
		i.mu.Unlock()
		if quiet {
			i.release()
		}
	})
}

// close stops a release waiting for its time.
func (i *idle) close() {
	if i == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.closed = true
	if i.timer != nil {
		i.timer.Stop()
		i.timer = nil
	}
}

// Busy marks work of the program's own that ReleaseIdle should wait for,
// beside the turns and tool calls the host counts itself (serve's model
// calls for the page, say); done marks it finished. Without ReleaseIdle it
// does nothing.
func (h *Host) Busy() (done func()) { return h.idle.enter() }
