package store

import (
	"container/list"
	"sync"

	"github.com/toolroute/toolroute/registry/session"
)

// The history cache: the decoded logs Messages last read, so the next read
// of a session decodes only the messages appended since. A turn reads its
// session's whole log; without the cache a 10,000-message log cost some
// 30 ms to read and decode every turn.
//
// The file stays the only truth: a read re-reads the last cached row with
// the new ones, in one statement, and uses the cache only if that row is
// still the same one (its rowid) of the same session (its created time). A
// session deleted and made again, here or by another process, has another
// created time.

// historyCacheBytes bounds the JSON text of the cached messages; the least
// recently read sessions go first.
const historyCacheBytes = 32 << 20

type historyCache struct {
	mu    sync.Mutex
	logs  map[string]*list.Element // of *cachedLog
	order list.List                // most recently used first
	bytes int
}

type cachedLog struct {
	id      string
	created int64 // sessions.created
	lastRow int64 // the rowid of the last message
	msgs    []session.Message
	bytes   int
}

// get returns the cached log of a session, nil if there is none.
func (c *historyCache) get(id string) *cachedLog {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.logs[id]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedLog)
}

// put keeps a session's log, replacing what was kept, within the budget.
func (c *historyCache) put(l *cachedLog) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(l)
}

func (c *historyCache) putLocked(l *cachedLog) {
	c.dropLocked(l.id)
	if l.bytes > historyCacheBytes/4 {
		return // one huge log would evict everything else
	}
	if c.logs == nil {
		c.logs = map[string]*list.Element{}
	}
	c.logs[l.id] = c.order.PushFront(l)
	c.bytes += l.bytes
	for c.bytes > historyCacheBytes {
		c.dropLocked(c.order.Back().Value.(*cachedLog).id)
	}
}

// extend keeps old's log with add after it and returns the whole log
// (which the cache drops if it grew past the budget).
// While old is still the session's entry, add goes into old's array after
// its messages, which no holder of old reads; otherwise (another read
// extended it first) into a new array. The returned slice must not be
// changed: callers get a copy.
func (c *historyCache) extend(old *cachedLog, add []session.Message, lastRow int64, addBytes int) *cachedLog {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs := old.msgs
	if e, ok := c.logs[old.id]; !ok || e.Value.(*cachedLog) != old {
		msgs = msgs[:len(msgs):len(msgs)] // append copies
	}
	l := &cachedLog{id: old.id, created: old.created, lastRow: lastRow, msgs: append(msgs, add...), bytes: old.bytes + addBytes}
	c.putLocked(l)
	return l
}

// clear forgets every log. A turn holding one (liteTurn.log) keeps it:
// its next extend finds it gone and copies it into a new entry.
func (c *historyCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs = nil
	c.order.Init()
	c.bytes = 0
}

// drop forgets a session's log.
func (c *historyCache) drop(id string) {
	c.mu.Lock()
	c.dropLocked(id)
	c.mu.Unlock()
}

func (c *historyCache) dropLocked(id string) {
	if e, ok := c.logs[id]; ok {
		c.bytes -= e.Value.(*cachedLog).bytes
		c.order.Remove(e)
		delete(c.logs, id)
	}
}
