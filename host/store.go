package host

import (
	"context"
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

// MemoryStore is a Store in memory, for tests and short-lived programs.
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

// Append implements Store.
func (m *MemoryStore) Append(_ context.Context, id string, msgs ...session.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.logs[id] = append(m.logs[id], msgs...)
	return nil
}
