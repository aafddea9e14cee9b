package host

import "sync"

// sessionLocks run each session's turns in this process one at a time. A
// session's entry lives while a turn holds or waits for its lock, so the
// sessions of days of use leave none behind (a sync.Map of one mutex per
// session ever seen grew with every new session, issue 34).
type sessionLocks struct {
	mu sync.Mutex
	m  map[string]*sessionLock
}

type sessionLock struct {
	sync.Mutex
	users int // turns holding or waiting for it; guarded by sessionLocks.mu
}

// lock waits for session id's lock and returns what releases it.
func (l *sessionLocks) lock(id string) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*sessionLock{}
	}
	e := l.m[id]
	if e == nil {
		e = &sessionLock{}
		l.m[id] = e
	}
	e.users++
	l.mu.Unlock()
	e.Lock()
	return func() {
		e.Unlock()
		l.mu.Lock()
		defer l.mu.Unlock()
		if e.users--; e.users == 0 {
			delete(l.m, id)
		}
	}
}

// count is the number of sessions with a turn holding or waiting for a lock.
func (l *sessionLocks) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}
