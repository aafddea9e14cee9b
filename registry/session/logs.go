package session

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
// history and no fingerprint. Feed the turn e only when ok.
func (c *Logs) Start(t *Turn, e Event) (acts []Action, ok bool) {
	if e.Type != EventStart || e.Session == "" {
		return nil, true
	}
	kept, found := c.logs[e.Session]
	c.drop(e.Session)
	if e.Fingerprint == "" {
		t.Keep()
		return nil, true
	}
	if !found || kept.fingerprint != e.Fingerprint {
		return []Action{{Type: ActionNeedHistory}}, false
	}
	t.Resume(kept.log)
	return nil, true
}

// Resent reports whether a start event with a fingerprint the instance
// keeps sent the whole history again rather than the messages after the
// first kept.Len(): its history is at least that long and opens with the
// log's first message. The turn would otherwise hold the conversation
// twice. It changes nothing.
func (c *Logs) Resent(e Event) (int, bool) {
	if e.Type != EventStart || e.Session == "" || e.Fingerprint == "" {
		return 0, false
	}
	kept, found := c.logs[e.Session]
	if !found || kept.fingerprint != e.Fingerprint || kept.log.first == nil {
		return 0, false
	}
	n := kept.log.Len()
	return n, len(e.History) >= n && sameMessage(e.History[0], *kept.log.first)
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
