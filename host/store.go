package host

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/toolroute/toolroute/registry/session"
)

// Store keeps sessions' message logs: the only state toolroute keeps. Append
// must have committed the messages when it returns: the host performs no
// later action of the turn before that.
type Store interface {
	// Messages returns a session's log, oldest first; an unknown session has
	// none.
	Messages(ctx context.Context, sessionID string) ([]session.Message, error)
	// Append adds messages to the end of a session's log, creating the
	// session if needed.
	Append(ctx context.Context, sessionID string, msgs ...session.Message) error
}

// TurnLocker is implemented by a Store that several processes share (a
// database file, say), to keep them from running turns of one session at
// once and interleaving its log. Send takes the lock after the in-process
// one, when the Store implements TurnLocker; a Store used by one process
// needs none.
type TurnLocker interface {
	// LockTurn takes the session's turn lock unless another holder has it,
	// and reports whether it did; it does not wait for the lock. unlock
	// releases it. A lock whose process died frees itself within a minute.
	LockTurn(ctx context.Context, sessionID string) (unlock func(), ok bool, err error)
}

// CacheReleaser is implemented by a Store that keeps what it read for the
// next reads (the database's decoded logs). With Options.ReleaseIdle the
// host empties those caches once it is quiet, before giving memory back:
// they serve turns that follow each other, and after a burst of load they
// held the logs of every session of the burst, most never read again
// (issue 34).
type CacheReleaser interface {
	ReleaseCaches()
}

// TurnEnder is implemented by a TurnLocker that can log a turn's last
// messages and release its turn lock in one step, which costs a shared
// store a commit less per turn. Send uses it for the append that comes
// with the turn's done or failed, when it took the lock.
type TurnEnder interface {
	// AppendUnlock appends msgs as Append does and releases the session's
	// turn lock this process took with LockTurn, whose unlock then does
	// nothing. If it fails, the lock is still held.
	AppendUnlock(ctx context.Context, sessionID string, msgs ...session.Message) error
}

// TurnRunningError is Send's error when another process sharing the Store
// runs a turn of the session: the turn did not start.
type TurnRunningError struct {
	Session string
}

// Error says a turn is running in the session and what to do.
func (e *TurnRunningError) Error() string {
	return fmt.Sprintf("host: session %q has a turn running in another process (toolroute serve or chat); try again when it ends", e.Session)
}

// TailReader is implemented by a Store that reads the end of a session's
// log without the rest. A turn on the module instance that keeps the
// session's state needs only the messages logged since the session's last
// turn (wasm/ABI.md, "Sessions"); without a TailReader the host reads the
// whole log and sends the end of it.
type TailReader interface {
	// MessagesFrom returns the session's messages after the first n
	// (none when it holds n or fewer), and how many the log holds.
	MessagesFrom(ctx context.Context, sessionID string, n int) (msgs []session.Message, total int, err error)
}

// MemoryStore is a Store in memory, for tests and short-lived programs. It
// is not a TurnLocker: it is not shared across processes.
type MemoryStore struct {
	mu   sync.Mutex
	logs map[string][]session.Message
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{logs: map[string][]session.Message{}} }

// Messages implements Store.
func (m *MemoryStore) Messages(_ context.Context, id string) ([]session.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.logs[id]), nil
}

// MessagesFrom implements TailReader.
func (m *MemoryStore) MessagesFrom(_ context.Context, id string, n int) ([]session.Message, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	log := m.logs[id]
	if n >= len(log) {
		return nil, len(log), nil
	}
	return slices.Clone(log[max(n, 0):]), len(log), nil
}

// Append implements Store.
func (m *MemoryStore) Append(_ context.Context, id string, msgs ...session.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.logs[id] = append(m.logs[id], msgs...)
	return nil
}
