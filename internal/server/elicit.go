package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/elicit"
	"github.com/toolroute/toolroute/internal/module"
)

// An MCP server may ask the user something while one of its tools runs
// (elicitation/create). Here the user is the page whose request runs the
// call: a turn's stream (POST /api/sessions/{id}/messages) or a server
// tool the page's own turn called (POST /api/ui/tools/{name}, when the page
// takes an NDJSON answer). The question goes down that response as an
// elicitation event, with an id and the module's fields to ask; the page
// answers with POST /api/ui/elicitations/{id}. A page that goes away ends
// its request, and so the call and the question: host/mcp then tells the
// server, in the module's words. Requests with no page behind them (a
// client of the API that reads JSON, a scheduled task) get no asker, and
// the server's question is refused as put to no one.

// NDJSON is the type of POST /api/ui/tools/{name}'s answer when the page
// asks for it (Accept) and a server asks the user during the call: one
// event a line, the last the result.
const NDJSON = "application/x-ndjson"

// asks are the questions waiting for the page, by id.
type asks struct {
	mu   sync.Mutex
	open map[string]*asking
}

// asking is one question waiting for its answer.
type asking struct {
	q      host.Elicitation
	answer chan host.ElicitReply // buffered: one answer
}

// pageAsker is a host.Asker that puts questions to the page reading one
// response: send writes an event to it.
type pageAsker struct {
	asks *asks
	send func(ev any) error
}

// Ask implements host.Asker.
func (a *pageAsker) Ask(ctx context.Context, q host.Elicitation) (host.ElicitReply, error) {
	form, err := elicit.Read(ctx, q)
	if err != nil {
		return host.ElicitReply{}, err
	}
	id := newAskID()
	w := &asking{q: q, answer: make(chan host.ElicitReply, 1)}
	a.asks.mu.Lock()
	if a.asks.open == nil {
		a.asks.open = map[string]*asking{}
	}
	a.asks.open[id] = w
	a.asks.mu.Unlock()
	defer func() {
		a.asks.mu.Lock()
		delete(a.asks.open, id)
		a.asks.mu.Unlock()
	}()
	ev := map[string]any{"type": "elicitation", "id": id, "server": q.Server, "asks": form.Asks, "message": form.Message, "fields": form.Fields}
	if q.CallID != "" {
		ev["call_id"] = q.CallID
	}
	if err := a.send(ev); err != nil {
		return host.ElicitReply{}, errors.New("the page that ran the call went away before it was asked")
	}
	select {
	case r := <-w.answer:
		return r, nil
	case <-ctx.Done():
		return host.ElicitReply{}, ctx.Err()
	}
}

// newAskID is a question's id: random, so that one page cannot guess
// another's (both hold the token anyway).
func newAskID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// answerElicitation takes the page's answer to a question: {"action":
// "accept", "content": {...}}, "decline" or "cancel". A value that will not
// do is a 400 with the module's sentence, and the question stays open for
// the user to fix it; else the answer goes to the server and the reply is
// what was sent.
func (s *server) answerElicitation(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	s.asks.mu.Lock()
	a := s.asks.open[id]
	s.asks.mu.Unlock()
	if a == nil {
		fail(w, http.StatusNotFound, "no question "+id+" is waiting: it was answered already, or the call that asked it ended")
		return
	}
	out, err := elicit.Reply(s.a.Host.CheckContext(r.Context()), a.q, host.ElicitReply{Action: req.Action, Content: req.Content})
	var refused *module.Refused
	switch {
	case errors.As(err, &refused):
		fail(w, http.StatusBadRequest, refused.Message)
		return
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.asks.mu.Lock()
	taken := s.asks.open[id] == a
	delete(s.asks.open, id)
	s.asks.mu.Unlock()
	if !taken {
		fail(w, http.StatusNotFound, "no question "+id+" is waiting: it was answered already, or the call that asked it ended")
		return
	}
	a.answer <- out
	content := out.Content
	if content == nil {
		content = map[string]any{}
	}
	reply(w, map[string]any{"action": out.Action, "content": content})
}

// wantsNDJSON reports whether the page takes POST /api/ui/tools/{name}'s
// answer as NDJSON events, and so can be asked.
func wantsNDJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), NDJSON)
}

// lines writes NDJSON events to w, one at a time: the first one starts
// the response.
type lines struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	done    bool // the handler returned: w is no longer written
}

func (l *lines) send(ev any) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return errors.New("the call's answer is complete")
	}
	if !l.started {
		l.w.Header().Set("Content-Type", NDJSON)
		l.w.Header().Set("Cache-Control", "no-cache")
		l.w.WriteHeader(http.StatusOK)
		l.started = true
	}
	if _, err := l.w.Write(append(data, '\n')); err != nil {
		return err
	}
	if err := l.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// close ends the writing.
func (l *lines) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
}

// streaming reports whether an event was sent.
func (l *lines) streaming() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.started
}
