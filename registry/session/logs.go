package session

import "fmt"

// Logs keeps the Logs that the last turns of sessions left, so that each
// session's next turn resumes from its Log instead of the whole history:
// what a module instance holds for the sessions it serves. A session's Log
// is kept under the fingerprint its turn handed out (ActionCache) and
// given to the one turn that starts with that fingerprint. It keeps at most
// MaxLogs Logs and MaxLogBytes bytes, dropping the least recently used. It
// is not safe for concurrent use.
type Logs struct {
	// order is the sessions by use, least recent first.
	order []string
	logs  map[string]keptLog
	bytes int
}

type keptLog struct {
	fingerprint string
	log         *Log
	size        int
}

// MaxLogs and MaxLogBytes bound what a Logs keeps.
const (
	MaxLogs     = 64
	MaxLogBytes = 64 << 20
)

// Start prepares a turn for its start event e. An event that names no
// session starts from its history as always. One that names a session
// and no fingerprint starts from its history too, and its turn is kept
// (Turn.Keep). One with a fingerprint resumes the session's kept Log when
// it has that fingerprint, and otherwise answers need_history: the turn is
// unchanged, and the host sends the start event again with the whole
// history and no fingerprint. One with the fingerprint and the whole
// history again, rather than the messages after the kept Log's (its
// history at least that long and opening with the Log's first message),
// is refused with an error wrapping ErrEvent, as is any start event the
// turn would refuse (Turn.Handle): checked here, before a kept Log is
// taken, so that a refused start leaves it kept. Feed the turn e only when
// ok.
func (c *Logs) Start(t *Turn, e Event) (acts []Action, ok bool, err error) {
	if e.Type != EventStart || e.Session == "" {
		return nil, true, nil
	}
	if err := t.check(e); err != nil {
		return nil, false, err
	}
	kept, found := c.logs[e.Session]
	resumes := found && e.Fingerprint != "" && kept.fingerprint == e.Fingerprint
	if first, ok := e.firstMessage(); ok && resumes && kept.log.first != nil && e.historyLen() >= kept.log.Len() && sameMessage(first, *kept.log.first) {
		n := kept.log.Len()
		return nil, false, fmt.Errorf("%w: start: the history given with the fingerprint opens with the session's first message: "+
			"with a fingerprint send only the messages after the first %d (usually none), or send the whole history without the fingerprint", ErrEvent, n)
	}
	c.drop(e.Session)
	if e.Fingerprint == "" {
		t.Keep()
		return nil, true, nil
	}
	if !resumes {
		return []Action{{Type: ActionNeedHistory}}, false, nil
	}
	t.Resume(kept.log)
	return nil, true, nil
}

// sameMessage reports whether a and b are one message of a log: the same
// type, text, call and time.
func sameMessage(a, b Message) bool {
	return a.Type == b.Type && a.Content == b.Content && a.ToolCallID == b.ToolCallID &&
		a.ToolName == b.ToolName && a.Time.Equal(b.Time)
}

// End keeps the Log of a turn of session that is over, when the turn was
// kept.
func (c *Logs) End(session string, t *Turn) {
	if session == "" || !t.Over() || !t.keep || t.log == nil {
		return
	}
	c.drop(session)
	if c.logs == nil {
		c.logs = map[string]keptLog{}
	}
	k := keptLog{fingerprint: t.log.Fingerprint(), log: t.log, size: t.log.Size()}
	t.log, t.keep = nil, false // the Log is the next turn's now
	c.logs[session] = k
	c.order = append(c.order, session)
	c.bytes += k.size
	for len(c.order) > MaxLogs || (c.bytes > MaxLogBytes && len(c.order) > 1) {
		c.drop(c.order[0])
	}
}

// Len is how many Logs are kept.
func (c *Logs) Len() int { return len(c.logs) }

func (c *Logs) drop(session string) {
	k, found := c.logs[session]
	if !found {
		return
	}
	delete(c.logs, session)
	c.bytes -= k.size
	for i, s := range c.order {
		if s == session {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}
