package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// DefaultApprovalTimeout is how long a question waits for the user before
// its calls are denied: a turn does not hold its session for good because
// the page was left open.
const DefaultApprovalTimeout = 10 * time.Minute

// Approvals are the questions serve's turns put to the user: a host.Approver
// whose answers come from POST /api/sessions/{id}/approvals. Give the same
// Approvals to app.Config.Approver and to Options.Approvals.
type Approvals struct {
	timeout time.Duration
	now     func() time.Time

	mu sync.Mutex
	// pending is each session's open question; a session's turns run one at
	// a time and ask one question at a time, so there is at most one.
	pending map[string]*question
}

// question is one ask_approval of a turn, answered call by call.
type question struct {
	calls   []session.Call
	expires time.Time
	answers map[string]session.Approval
	// done is closed when every call has its answer.
	done chan struct{}
}

// NewApprovals returns Approvals whose questions wait timeout for the
// user's answers (DefaultApprovalTimeout when zero).
func NewApprovals(timeout time.Duration) *Approvals {
	if timeout <= 0 {
		timeout = DefaultApprovalTimeout
	}
	return &Approvals{timeout: timeout, now: time.Now, pending: map[string]*question{}}
}

// Approve implements host.Approver: it holds the question for the
// session's clients to answer and waits until every call has its answer,
// ctx ends (the client that sent the message went away) or the timeout,
// after which every call is denied.
func (p *Approvals) Approve(ctx context.Context, sessionID string, calls []session.Call) ([]session.Approval, error) {
	q := p.ask(sessionID, calls)
	defer p.drop(sessionID, q)
	timer := time.NewTimer(q.expires.Sub(p.now()))
	defer timer.Stop()
	select {
	case <-q.done:
	case <-timer.C:
		return nil, nil // the host denies the calls no one answered
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return q.given(), nil
}

// ask opens the session's question about calls, or gives the one open
// about them: send opens it before the approval event reaches the client,
// so that an answer sent at once finds it.
func (p *Approvals) ask(sessionID string, calls []session.Call) *question {
	p.mu.Lock()
	defer p.mu.Unlock()
	if q := p.pending[sessionID]; q != nil && slices.Equal(ids(q.calls), ids(calls)) {
		return q
	}
	q := &question{calls: calls, expires: p.now().Add(p.timeout), answers: map[string]session.Approval{}, done: make(chan struct{})}
	p.pending[sessionID] = q
	return q
}

// drop closes the session's question q, if still open.
func (p *Approvals) drop(sessionID string, q *question) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending[sessionID] == q {
		delete(p.pending, sessionID)
	}
}

// given is the answers so far, in the calls' order; p.mu is held.
func (q *question) given() []session.Approval {
	out := []session.Approval{}
	for _, c := range q.calls {
		if a, ok := q.answers[c.ID]; ok {
			out = append(out, a)
		}
	}
	return out
}

// answered reports whether every call has its answer; p.mu is held.
func (q *question) answered() bool { return len(q.answers) == len(q.calls) }

// waiting is the ids of the calls with no answer yet; p.mu is held.
func (q *question) waiting() []string {
	out := []string{}
	for _, c := range q.calls {
		if _, ok := q.answers[c.ID]; !ok {
			out = append(out, c.ID)
		}
	}
	return out
}

// errNoQuestion is answering a session that has no question pending.
var errNoQuestion = errors.New("server: no question pending")

// answer records answers to the session's question, all or none: a bad
// one refuses the lot. The module decides which are bad (check, with the
// question's calls and the answers it has: wasm/ABI.md, toolroute_check's
// approval_answers); its refusal is check's *module.Refused. It returns
// the calls still waiting; none means the turn goes on.
func (p *Approvals) answer(sessionID string, answers []session.Approval, check func(args any) error) ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.pending[sessionID]
	if q == nil || q.answered() {
		return nil, errNoQuestion
	}
	args := struct {
		Calls   []session.Call     `json:"calls"`
		Given   []session.Approval `json:"given"`
		Answers []session.Approval `json:"answers"`
	}{q.calls, q.given(), answers}
	if err := check(args); err != nil {
		return nil, err
	}
	for _, a := range answers {
		if a.Answer == session.AnswerDeny {
			a.Grant = nil
		}
		q.answers[a.ID] = session.Approval{ID: a.ID, Answer: a.Answer, Grant: a.Grant}
	}
	// The question stays until Approve takes its answers: it may not be
	// waiting yet, the event reaching the client before it.
	waiting := q.waiting()
	if len(waiting) == 0 {
		close(q.done)
	}
	return waiting, nil
}

// call is the question's call id; p.mu is held.
func (q *question) call(id string) session.Call {
	for _, c := range q.calls {
		if c.ID == id {
			return c
		}
	}
	return session.Call{}
}

func ids(calls []session.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = fmt.Sprintf("%q", c.ID)
	}
	return out
}

// questionJSON is a pending question as GET shows it: the calls as the
// approval event gave them, the answers so far, and when the calls that
// are still waiting will be denied.
type questionJSON struct {
	Session string             `json:"session"`
	Calls   []session.Call     `json:"calls"`
	Answers []session.Approval `json:"answers"`
	Waiting []string           `json:"waiting"`
	Expires string             `json:"expires"`
}

// question gives the session's pending question, if any.
func (p *Approvals) question(sessionID string) (questionJSON, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.pending[sessionID]
	if q == nil || q.answered() {
		return questionJSON{}, false
	}
	return questionJSON{Session: sessionID, Calls: q.calls, Answers: q.given(), Waiting: q.waiting(), Expires: q.expires.UTC().Format(time.RFC3339)}, true
}

func noQuestion(w http.ResponseWriter, id string) {
	fail(w, http.StatusNotFound, fmt.Sprintf("no question is pending for session %q: a turn asks when a tool that acts (writes, sends, deletes, shares) is about to run, and the approval event of its stream says so", id))
}

func (s *server) pendingApproval(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q, ok := s.approvals.question(id)
	if !ok {
		noQuestion(w, id)
		return
	}
	reply(w, q)
}

func (s *server) answerApproval(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var req struct {
		Approvals []session.Approval `json:"approvals"`
	}
	if !s.decode(w, r, &req) {
		return
	}
	waiting, err := s.approvals.answer(id, req.Approvals, func(args any) error {
		return s.a.Host.CheckArgs(r.Context(), "approval_answers", args, nil)
	})
	var refused *module.Refused
	switch {
	case errors.Is(err, errNoQuestion):
		noQuestion(w, id)
	case errors.As(err, &refused):
		fail(w, http.StatusBadRequest, refused.Message)
	case err != nil:
		fail(w, http.StatusInternalServerError, err.Error())
	default:
		reply(w, map[string]any{"waiting": waiting})
	}
}

// policyJSON is a rule of PUT /api/policies; Decision is a pointer so that
// a body without it is refused rather than taken for a reset.
type policyJSON struct {
	Tool     string  `json:"tool"`
	Group    string  `json:"group"`
	Decision *string `json:"decision"`
}

func (s *server) policies(w http.ResponseWriter, r *http.Request) {
	list, err := s.a.Policies(r.Context())
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	if list == nil {
		list = []session.Policy{}
	}
	reply(w, list)
}

// setPolicy sets or resets one of the user's rules, in the settings
// `toolroute policy` keeps them in; they apply from the next message.
func (s *server) setPolicy(w http.ResponseWriter, r *http.Request) {
	const usage = `give {"tool": NAME} or {"group": NAME} with "decision": "ask", "allow", "deny", or "" for the default`
	var req policyJSON
	if !s.decode(w, r, &req) {
		return
	}
	kind, name := "tool", req.Tool
	if req.Group != "" {
		kind, name = "group", req.Group
	}
	switch {
	case (req.Tool == "") == (req.Group == "") || req.Decision == nil:
		fail(w, http.StatusBadRequest, usage)
		return
	case !registry.ValidToolName(name):
		fail(w, http.StatusBadRequest, fmt.Sprintf("%q is not a %s name: %s", name, kind, usage))
		return
	case *req.Decision != "" && !registry.ValidDecision(registry.Decision(*req.Decision)):
		fail(w, http.StatusBadRequest, fmt.Sprintf("the decision %q is none of ask, allow, deny or \"\": %s", *req.Decision, usage))
		return
	}
	// A rule for a name no tool has would never apply: refused, unless it
	// may be a tool of an MCP server not connected now, kept then with a
	// warning, in the Warning header (code 299, as Kubernetes' API server
	// gives its warnings) since the body is the rules. A reset is never
	// refused: it may clear the rule of a tool since removed.
	if *req.Decision != "" {
		warning, err := s.a.PolicyTarget(r.Context(), kind, name)
		var unknown *app.UnknownPolicyTargetError
		switch {
		case errors.As(err, &unknown):
			fail(w, http.StatusBadRequest, err.Error())
			return
		case err != nil:
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		if warning != "" {
			w.Header().Set("Warning", "299 toolroute "+strconv.Quote(warning))
		}
	}
	key := app.PolicyPrefix + kind + "." + name
	var err error
	if *req.Decision == "" {
		err = s.a.Store.DeleteSetting(r.Context(), key)
	} else {
		err = s.a.Store.SetSetting(r.Context(), key, *req.Decision)
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.policies(w, r)
}
