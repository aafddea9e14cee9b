package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// MaxResponseBody bounds a model's reply, whole or streamed, in bytes as
// the host reads them: decoded, after the gzip Go's transport undoes. No
// model's reply comes near it; a reply past it ends the turn with a
// model_error that names it.
const MaxResponseBody = 64 << 20

// EventType says what an Event reports.
type EventType string

const (
	// EventText is text the model streamed: Text.
	EventText EventType = "text"
	// EventMessage is a message committed to the log: Message. Tool calls
	// come as a tool_call message, with their input and status, followed by
	// their tool_result message.
	EventMessage EventType = "message"
	// EventModelCall is a model call going out, offering Tools: Call,
	// Routing, Schema. Its usage is on the assistant message its response
	// logs (Message.Usage), and in done's Calls.
	EventModelCall EventType = "model_call"
	// EventToolCalls are tool calls starting to run: Calls.
	EventToolCalls EventType = "tool_calls"
	// EventGroupLoaded is a tool group loaded: Group.
	EventGroupLoaded EventType = "group_loaded"
	// EventDone ends the turn with the model's answer: Text, Usage.
	EventDone EventType = "done"
	// EventFailed ends the turn without one: Failure, Usage. Every message
	// committed stays in the log.
	EventFailed EventType = "failed"
	// EventRetry is a model call about to be tried again: Retry.
	EventRetry EventType = "retry"
	// EventApproval is calls the user is asked about, before they run:
	// Calls. The host's Approver gets the answers.
	EventApproval EventType = "approval"
)

// Event is something that happened during a turn.
type Event struct {
	Type    EventType          `json:"type"`
	Text    string             `json:"text,omitempty"`
	Message *session.Message   `json:"message,omitempty"`
	Tools   []string           `json:"tools,omitempty"`
	Calls   []session.Call     `json:"calls,omitempty"`
	Group   *session.GroupLoad `json:"group,omitempty"`
	Failure *session.Failure   `json:"failure,omitempty"`
	Usage   *wire.Usage        `json:"usage,omitempty"`
	Retry   *Retry             `json:"retry,omitempty"`
	// Call is a model_call's number in the turn, from 1; Routing is
	// "native" when it sends groups deferred; Schema is what it spends on
	// tool schemas.
	Call    int             `json:"call,omitempty"`
	Routing session.Routing `json:"routing,omitempty"`
	Schema  *SchemaUsage    `json:"schema,omitempty"`
	// ModelCalls are, on done and failed, each model call of the turn
	// with its usage and schemas (Usage is their sum).
	ModelCalls []CallUsage `json:"model_calls,omitempty"`
}

// Session is one conversation: a name for a message log in the Store.
type Session struct {
	h  *Host
	id string
	// unattended: no one is there to answer approval questions.
	unattended bool
	// agent is who its turns are; nil asks Options.Agents.
	agent *Agent
	// model, when set, is the model its turns call (WithModel).
	model string
	// depth, askAs and relay place a sub-agent's session (Nested).
	depth int
	askAs string
	relay func(Event)
}

// Session returns the session with this id; a new id is a new, empty
// session. /clear is a new id.
func (h *Host) Session(id string) *Session { return &Session{h: h, id: id} }

// Unattended is the session with no one there to answer approval
// questions, for turns a host runs on its own (a scheduled task's): a tool
// call that would ask is refused as it is when a host has no Approver.
func (s *Session) Unattended() *Session {
	c := *s
	c.unattended = true
	return &c
}

// WithModel is the session with its turns calling model, of the
// provider's, in place of the provider's or the agent's model: a chat's
// model picker, one turn at a time. "" keeps theirs.
func (s *Session) WithModel(model string) *Session {
	c := *s
	c.model = model
	return &c
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

// Messages returns the session's log.
func (s *Session) Messages(ctx context.Context) ([]session.Message, error) {
	return s.h.store.Messages(ctx, s.id)
}

// Send runs one turn: the user's message, the model calls and tool calls
// that follow, until the model answers or the turn fails. It yields the
// turn's events as they happen, ending with EventDone or EventFailed; an
// error is a host failure (the store, the module), yielded last. Each message
// is committed to the Store before the turn goes on, so a turn cut short
// loses nothing it did. Turns of one session run one at a time.
//
// files are attached to the message (session.Attachment: a name and the
// file's bytes in base64, or its text): the module tells what each is and
// sends it in the provider's form, or refuses the turn before any request,
// logging nothing, with an error that names the file.
func (s *Session) Send(ctx context.Context, text string, files ...session.Attachment) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		stopped := false
		emit := func(ev Event) bool {
			if stopped {
				return false
			}
			stopped = !yield(ev, nil)
			return !stopped
		}
		if err := s.send(ctx, text, files, false, emit); err != nil && !stopped {
			yield(Event{}, err)
		}
	}
}

// Compact summarises the session's earlier messages now (a chat's
// /compact): a model call writes the summary, which later calls send in
// place of the messages it covers. The log keeps every message. Its events
// end with done (what was compacted) or failed.
func (s *Session) Compact(ctx context.Context) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		stopped := false
		emit := func(ev Event) bool {
			if stopped {
				return false
			}
			stopped = !yield(ev, nil)
			return !stopped
		}
		if err := s.send(ctx, "", nil, true, emit); err != nil && !stopped {
			yield(Event{}, err)
		}
	}
}

// errStopped ends a turn whose caller stopped reading its events.
var errStopped = errors.New("host: the caller stopped reading")

func (s *Session) send(ctx context.Context, text string, files []session.Attachment, compact bool, emit func(Event) bool) error {
	if s.h.opts.Provider == nil {
		return errors.New("host: this host has no Provider, so Send cannot call a model: set Options.Provider, or make the model calls in your own loop and hand their replies to a Turn (Session.Start)")
	}
	t, end, err := s.open(ctx, emit, false)
	if err != nil {
		return err
	}
	defer end()
	ctx = s.withTurn(ctx, emit)
	acts, err := t.begin(ctx, text, files, compact)
	for err == nil {
		var next *session.Action
		next, err = t.perform(ctx, acts)
		if err != nil || next == nil {
			break
		}
		switch next.Type {
		case session.ActionCallModel:
			acts, err = t.callModel(ctx, next.Request)
		case session.ActionRunTools:
			acts, err = t.runTools(ctx, next.Calls)
		case session.ActionAskApproval:
			acts, err = t.askApproval(ctx, next.Calls)
		}
	}
	if err != nil && !t.over && (errors.Is(err, errStopped) || ctx.Err() != nil) {
		// Stopped: the module logs what the user saw of the turn (the
		// reply streamed so far, and that it was stopped), so that the
		// next turn and a reader of the log see it.
		t.stop(context.WithoutCancel(ctx))
	}
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// open takes what a turn of s holds until it ends (the session's lock,
// the store's turn lock, a turn of the module) and returns the turn, not
// yet begun, with the function that lets them go. own marks a turn whose
// model calls the program makes itself (Start).
func (s *Session) open(ctx context.Context, emit func(Event) bool, own bool) (*turn, func(), error) {
	idle := s.h.idle.enter()
	// Turns of this process wait for each other; a turn of another process
	// sharing the Store is refused at once, as it may run for minutes.
	unlockSession := s.h.locks.lock(s.id)
	var ender TurnEnder
	unlockStore := func() {}
	if tl, ok := s.h.store.(TurnLocker); ok {
		ender, _ = tl.(TurnEnder)
		unlock, ok, err := tl.LockTurn(ctx, s.id)
		if err != nil {
			unlockSession()
			idle()
			return nil, nil, fmt.Errorf("host: locking session %q for a turn: %w", s.id, err)
		}
		if !ok {
			unlockSession()
			idle()
			return nil, nil, &TurnRunningError{Session: s.id}
		}
		unlockStore = unlock
	}

	// The turn takes an instance for each call into the module only, and
	// goes to the instance that served the session last, which keeps the
	// session's state: then only the messages logged since are sent.
	mt, err := s.h.pool.OpenTurn(ctx, s.id)
	if err != nil {
		unlockStore()
		unlockSession()
		idle()
		return nil, nil, err
	}
	// A provider the settings choose is chosen once, for the whole turn.
	provider := s.h.opts.Provider
	if tp, ok := provider.(TurnProvider); ok {
		provider = tp.ForTurn(ctx)
	}
	t := &turn{s: s, mt: mt, emit: emit, provider: provider, ender: ender, own: own}
	end := func() {
		mt.Free(context.WithoutCancel(ctx))
		unlockStore()
		unlockSession()
		idle()
	}
	return t, end, nil
}

// begin feeds the module the turn's start: the user's message (or a
// compaction) with the settings of the turn, continuing from the state
// the instance keeps of the session when it can. It returns the module's
// first actions.
func (t *turn) begin(ctx context.Context, text string, files []session.Attachment, compact bool) ([]session.Action, error) {
	s, mt := t.s, t.mt
	start, err := t.start(ctx, text, files, compact)
	if err != nil {
		return nil, err
	}
	var acts []session.Action
	resumed := false
	if fp, covered := mt.Fingerprint(); fp != "" {
		// The messages logged since the state the instance keeps.
		since, ok, err := s.since(ctx, covered)
		if err != nil {
			return nil, err
		}
		if ok {
			resume := start
			resume.Fingerprint, resume.History = fp, since
			acts, err = t.event(ctx, resume)
			if err != nil {
				return nil, err
			}
			resumed = len(acts) != 1 || acts[0].Type != session.ActionNeedHistory
		}
	}
	if !resumed {
		if start.History, err = s.h.store.Messages(ctx, s.id); err != nil {
			return nil, fmt.Errorf("host: reading session %q: %w", s.id, err)
		}
		acts, err = t.event(ctx, start)
	}
	// The instance gave the session's state to this turn: it keeps it
	// again only if the turn ends with a cache action.
	mt.Remember(nil)
	return acts, err
}

// ownContextLimit is the context window a turn of the program's own loop
// tells the module: the program sends its own messages, so the module's
// log is never compacted for it.
const ownContextLimit = 1 << 30

// start is the turn's start event, its settings from the host's options,
// the session's agent and model.
func (t *turn) start(ctx context.Context, text string, files []session.Attachment, compact bool) (session.Event, error) {
	s := t.s
	o := s.h.opts
	base, err := s.h.basePrompt(ctx)
	if err != nil {
		return session.Event{}, fmt.Errorf("host: the system prompt: %w", err)
	}
	mems, err := s.h.memories(ctx)
	if err != nil {
		return session.Event{}, fmt.Errorf("host: the memories: %w", err)
	}
	var policies []session.Policy
	if o.Policies != nil {
		if policies, err = o.Policies(ctx); err != nil {
			return session.Event{}, fmt.Errorf("host: the approval policies: %w", err)
		}
	}
	start := session.Event{
		Type: session.EventStart, Now: time.Now(), User: text, Attachments: files, Compact: compact, Session: s.id,
		Settings: session.Settings{
			SystemPrompt:  base,
			MaxModelCalls: o.MaxModelCalls, MaxTokens: o.MaxTokens, Stream: o.Stream, Routing: o.Routing, SearchTools: o.SearchTools, ToolBudget: o.ToolBudget, ContextLimit: o.ContextLimit,
			Policies: policies, Approvals: o.Approver != nil && !s.unattended, Unattended: s.unattended, Memories: mems,
			HostSearch: s.h.search.fresh(), AllowHint: o.AllowHint, ShowConsole: o.ShowConsole,
			// Each call's schema parts come with their texts, which
			// schemaUsage counts in tokens.
			SchemaText: true,
		},
	}
	if t.provider != nil {
		start.Settings.Format, start.Settings.Model = t.provider.Format(), t.provider.Model()
	}
	agent := s.agent
	if agent == nil && o.Agents != nil {
		if agent, err = o.Agents(ctx, s.id); err != nil {
			return session.Event{}, fmt.Errorf("host: the agent of session %q: %w", s.id, err)
		}
	}
	if agent != nil {
		set := &start.Settings
		if agent.SystemPrompt != "" {
			set.SystemPrompt = agent.SystemPrompt
		}
		if agent.Model != "" {
			set.Model = agent.Model
		}
		set.AllowedGroups = agent.Groups
		if agent.MaxModelCalls > 0 {
			set.MaxModelCalls = agent.MaxModelCalls
		}
		set.MaxTurnTokens = agent.MaxTurnTokens
		if agent.ToolBudget > 0 {
			set.ToolBudget = agent.ToolBudget
		}
	}
	if s.model != "" {
		start.Settings.Model = s.model
	}
	if t.own {
		// The program makes the model calls and sends its own messages:
		// the module is asked in Chat Completions' form, whole replies,
		// classic routing, never to compact, and its requests are read
		// for their system prompt and tools only (Turn).
		set := &start.Settings
		set.Format, set.Stream, set.Routing, set.ContextLimit = wire.OpenAI, false, session.RoutingClassic, ownContextLimit
		if set.Model == "" {
			set.Model = ownModel
		}
	}
	return start, nil
}

// since reads the session's messages after the first n: from a TailReader
// without the rest, else from the whole log. ok is false when the log
// holds fewer than n (it is not the one the module kept).
func (s *Session) since(ctx context.Context, n int) (msgs []session.Message, ok bool, err error) {
	if tr, is := s.h.store.(TailReader); is {
		msgs, total, err := tr.MessagesFrom(ctx, s.id, n)
		if err != nil {
			return nil, false, fmt.Errorf("host: reading session %q: %w", s.id, err)
		}
		return msgs, total >= n, nil
	}
	all, err := s.h.store.Messages(ctx, s.id)
	if err != nil {
		return nil, false, fmt.Errorf("host: reading session %q: %w", s.id, err)
	}
	if len(all) < n {
		return nil, false, nil
	}
	return all[n:], true, nil
}

// stop feeds the module a stop event and stores the messages it logs,
// redacted as every message is. On an error the turn's own error is the
// one to report: what the stop would have logged is then all that is lost.
func (t *turn) stop(ctx context.Context) {
	acts, err := t.event(ctx, session.Event{Type: session.EventStop, Now: time.Now()})
	if err != nil {
		return
	}
	for _, a := range acts {
		if a.Type == session.ActionAppend {
			t.s.h.redactor(ctx).messages(a.Messages)
			if t.s.h.store.Append(ctx, t.s.id, a.Messages...) != nil {
				return
			}
		}
	}
}

// turn is one turn in progress on a module instance.
type turn struct {
	s    *Session
	mt   *module.Turn
	emit func(Event) bool
	over bool
	// redacted says the log stored is not what the module logged: the
	// session's state the module keeps must not be used.
	redacted bool
	// provider makes the turn's model calls.
	provider Provider
	// ender, when the turn holds the store's turn lock, logs the turn's
	// last messages and releases the lock in one step.
	ender TurnEnder
	// calls are the turn's model calls so far, their usage filled in as
	// their responses are logged.
	calls []CallUsage
	// own: the program makes the model calls (Turn).
	own bool
}

func (t *turn) event(ctx context.Context, e session.Event) ([]session.Action, error) {
	data, err := module.Marshal(e)
	if err != nil {
		return nil, err
	}
	acts, err := t.mt.Event(ctx, data)
	var bad *abi.Error
	if e.Type == session.EventStart && errors.As(err, &bad) && bad.Code == abi.CodeBadEvent {
		return nil, &RefusedError{Message: strings.TrimPrefix(bad.Message, "session: bad event: start: ")}
	}
	if err != nil {
		return nil, fmt.Errorf("host: the module refused a %s event: %w", e.Type, err)
	}
	return acts, nil
}

// RefusedError is Send's error for a message the module refused before
// the turn began, logging nothing: a file attached that it cannot send
// (session.AttachFiles), an empty message. Message says what to change;
// the user may send it again changed.
type RefusedError struct {
	Message string
}

// Error is the module's sentence.
func (e *RefusedError) Error() string { return e.Message }

// perform carries out every action but the last call_model or run_tools,
// which it returns for the caller to perform.
func (t *turn) perform(ctx context.Context, acts []session.Action) (*session.Action, error) {
	for i := range acts {
		a := &acts[i]
		ev := Event{}
		switch a.Type {
		case session.ActionAppend:
			if t.s.h.redactor(ctx).messages(a.Messages) {
				t.redacted = true
			}
			var err error
			if t.ender != nil && endsTurn(acts[i+1:]) {
				err = t.ender.AppendUnlock(ctx, t.s.id, a.Messages...)
			} else {
				err = t.s.h.store.Append(ctx, t.s.id, a.Messages...)
			}
			if err != nil {
				return nil, fmt.Errorf("host: storing messages of session %q: %w", t.s.id, err)
			}
			for _, m := range a.Messages {
				if m.Type == session.Assistant {
					if n := len(t.calls); n > 0 && m.Usage != nil {
						t.calls[n-1].Usage = m.Usage
					}
				}
			}
			for j := range a.Messages {
				if !t.emit(Event{Type: EventMessage, Message: &a.Messages[j]}) {
					return nil, errStopped
				}
			}
			continue
		case session.ActionTextDelta:
			ev = Event{Type: EventText, Text: a.Text}
		case session.ActionGroupLoaded:
			ev = Event{Type: EventGroupLoaded, Group: a.Group}
		case session.ActionDone:
			t.over = true
			ev = Event{Type: EventDone, Text: a.Text, Usage: a.Usage, ModelCalls: t.calls}
		case session.ActionFailed:
			t.over = true
			// A failure quotes what the provider answered, and a provider
			// (or a proxy before it) may echo the key it was sent.
			f := a.Error
			if f != nil {
				redacted := *f
				redacted.Message = t.s.h.redactor(ctx).text(f.Message)
				f = &redacted
			}
			ev = Event{Type: EventFailed, Failure: f, Usage: a.Usage, ModelCalls: t.calls}
		case session.ActionCache:
			if !t.redacted {
				t.mt.Remember(a.Cache)
			}
			continue
		case session.ActionCallModel, session.ActionRunTools, session.ActionAskApproval:
			return a, nil
		default:
			continue // ABI.md: hosts ignore actions they do not know
		}
		if !t.emit(ev) {
			return nil, errStopped
		}
	}
	return nil, nil
}

// endsTurn reports whether the actions after an append end the turn with
// no other append: that append logs the turn's last messages.
func endsTurn(rest []session.Action) bool {
	for _, a := range rest {
		switch a.Type {
		case session.ActionDone, session.ActionFailed:
			return true
		case session.ActionAppend, session.ActionCallModel, session.ActionRunTools, session.ActionAskApproval:
			return false
		}
	}
	return false
}

// callModel makes a model call and feeds the module its response: streamed
// bodies chunk by chunk, as they arrive.
func (t *turn) callModel(ctx context.Context, req *session.ModelRequest) ([]session.Action, error) {
	cu := CallUsage{Call: req.Call, Schema: t.s.h.schemaUsage(req)}
	t.calls = append(t.calls, cu)
	if !t.emit(Event{Type: EventModelCall, Tools: req.Tools, Call: req.Call, Routing: req.Routing, Schema: cu.Schema}) {
		return nil, errStopped
	}
	// The module hands the body out apart from the action, raw: it is
	// posted as it is.
	body, err := t.mt.Body(ctx)
	if err != nil {
		return nil, fmt.Errorf("host: taking the request body: %w", err)
	}
	redacted := *req
	redacted.Body = t.s.h.redactor(ctx).bytes(body)
	req = &redacted
	// The module decides whether a failed call is tried again (its
	// retry action); the host waits as it says and sends the same body.
	var resp *http.Response
	for {
		st := &singleTry{}
		resp, err = t.provider.Call(withSingleTry(ctx, st), req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return t.event(ctx, session.Event{Type: session.EventModelError, Now: time.Now(), Error: err.Error()})
		}
		if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			break
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		acts, err := t.event(ctx, session.Event{Type: session.EventModelError, Now: time.Now(), Status: resp.StatusCode, Body: body,
			RetryAfter: resp.Header.Get("Retry-After"), Retries: st.retries})
		if err != nil || len(acts) != 1 || acts[0].Type != session.ActionRetry || acts[0].Retry == nil {
			return acts, err
		}
		r := acts[0].Retry
		wait := time.Duration(r.WaitMS) * time.Millisecond
		if !t.emit(Event{Type: EventRetry, Retry: &Retry{Status: r.Status, Attempt: r.Attempt, Wait: wait, Message: r.Message}}) {
			return nil, errStopped
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer resp.Body.Close()
	reply := safehttp.LimitBody(resp.Body, MaxResponseBody, "the model's response",
		"no model's reply is this long, so the server at the provider's base URL sent something else (a compressed body that inflates without end, say): check the base URL")
	if !isEventStream(resp) {
		body, err := io.ReadAll(reply)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return t.event(ctx, session.Event{Type: session.EventModelError, Now: time.Now(), Error: readError("reading the response: ", err)})
		}
		return t.event(ctx, session.Event{Type: session.EventResponse, Now: time.Now(), Body: body})
	}
	buf := make([]byte, 32<<10)
	for {
		// A reply arriving faster than it is read (a compressed one, say)
		// would be read to its end before a canceled read is seen.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, rerr := reply.Read(buf)
		if n > 0 {
			acts, err := t.mt.Chunk(ctx, buf[:n])
			if err != nil {
				return nil, fmt.Errorf("host: the module refused a chunk: %w", err)
			}
			if _, err := t.perform(ctx, acts); err != nil {
				return nil, err
			}
			if t.over {
				return nil, nil
			}
		}
		if rerr == io.EOF {
			return t.event(ctx, session.Event{Type: session.EventStreamEnd, Now: time.Now()})
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return t.event(ctx, session.Event{Type: session.EventModelError, Now: time.Now(), Error: readError("the stream broke: ", rerr)})
		}
	}
}

// readError words a failure to read a reply: a reply past its cap says
// so alone, as it did not break.
func readError(what string, err error) string {
	var tl *safehttp.TooLargeError
	if errors.As(err, &tl) {
		return tl.Error()
	}
	return what + err.Error()
}

func isEventStream(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// askApproval puts calls to the user through the Approver and feeds the
// answers; a call it does not answer is denied.
func (t *turn) askApproval(ctx context.Context, calls []session.Call) ([]session.Action, error) {
	if !t.emit(Event{Type: EventApproval, Calls: calls}) {
		return nil, errStopped
	}
	if t.s.relay != nil {
		t.s.relay(Event{Type: EventApproval, Calls: calls})
	}
	answers, err := t.s.h.opts.Approver.Approve(ctx, t.s.askID(), calls)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("host: asking the user about %d tool calls: %w", len(calls), err)
	}
	given := map[string]session.Approval{}
	for _, a := range answers {
		given[a.ID] = a
	}
	out := make([]session.Approval, len(calls))
	for i, c := range calls {
		a := given[c.ID]
		if a.Answer != session.AnswerOnce && a.Answer != session.AnswerSession {
			a.Answer, a.Grant = session.AnswerDeny, nil
		}
		out[i] = session.Approval{ID: c.ID, Answer: a.Answer, Grant: a.Grant}
	}
	return t.event(ctx, session.Event{Type: session.EventApproval, Now: time.Now(), Approvals: out})
}

// runTools runs a response's calls in parallel and feeds each result as it
// finishes, so each is committed as soon as it is known.
func (t *turn) runTools(ctx context.Context, calls []session.Call) ([]session.Action, error) {
	if !t.emit(Event{Type: EventToolCalls, Calls: calls}) {
		return nil, errStopped
	}
	results := make(chan session.Result, len(calls))
	for _, c := range calls {
		go func() { results <- t.s.h.run(ctx, c) }()
	}
	var acts []session.Action
	for range calls {
		var r session.Result
		select {
		case r = <-results:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// A tool that changed the catalogue (create_js_tool, say) makes
		// the next model call offer the new tools.
		if changed, err := t.mt.Refresh(ctx); err != nil {
			return nil, err
		} else if changed {
			if _, err := t.event(ctx, session.Event{Type: session.EventReload}); err != nil {
				return nil, err
			}
		}
		out, err := t.event(ctx, session.Event{Type: session.EventToolResults, Now: time.Now(), Results: []session.Result{r}})
		if err != nil {
			return nil, err
		}
		next, err := t.perform(ctx, out)
		if err != nil {
			return nil, err
		}
		if next != nil {
			acts = []session.Action{*next}
		}
	}
	return acts, nil
}
