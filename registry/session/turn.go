package session

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
	"github.com/toolroute/toolroute/registry/wire"
)

// ErrEvent is wrapped by every error Handle returns: an event that is
// malformed or does not fit the turn's state. The turn is unchanged by it.
var ErrEvent = errors.New("session: bad event")

// MaxModelCallsLimit is the highest MaxModelCalls a turn accepts.
const MaxModelCallsLimit = 1000

type state int

const (
	idle             state = iota // waiting for EventStart
	awaitingModel                 // a model call is out
	streaming                     // its response is arriving in chunks
	awaitingTools                 // tool calls are out
	finished                      // done or failed
	awaitingApproval              // the user is asked about calls
)

func (s state) String() string {
	return [...]string{"waiting for the start event", "waiting for the model's response",
		"reading the model's streamed response", "waiting for tool results", "over",
		"waiting for the user's approval"}[s]
}

// Turn is one user turn: a state machine fed events by Handle. A Turn is not
// safe for concurrent use.
type Turn struct {
	reg *registry.Registry
	// shared is what the turns with sharedFor share (sharedState).
	shared    *shared
	sharedFor *registry.Registry
	set       Settings
	system    string
	log       *Log
	// resume is the Log the turn starts from, when a turn of its session
	// left one; keep makes it commit its Log when it ends.
	resume *Log
	keep   bool
	active *registry.Active
	// native is how loads are sent when the turn routes natively; nil
	// for classic.
	native *render

	state      state
	now        time.Time
	modelCalls int
	// retried counts the retries of the model call out (ActionRetry).
	retried int
	usage   wire.Usage
	stream  *wire.Stream
	// sent holds the tools the current model call offered: only those may
	// be called in its response.
	sent map[string]bool
	// pending are the calls sent to the host, in the model's order.
	pending []pendingCall
	// asking are the calls the user is asked about; approved are the calls
	// that run once the answers are in (those that needed none first).
	asking   []pendingCall
	approved []Call
	// compacting is the summary the model call out is for; noCompaction
	// stops a turn whose summary failed from asking again.
	compacting   *compaction
	noCompaction bool
	// opened says the turn's start was logged: its end is logged too
	// when it ends without an answer (TurnEnd).
	opened bool
	// partial is the text streamed of the model call out, logged as its
	// assistant message if the turn ends before the response does.
	partial strings.Builder
}

type pendingCall struct {
	index int
	call  wire.Call
	run   Call // what the host runs
}

// NewTurn returns a turn that will route tools from reg. Feed it EventStart.
func NewTurn(reg *registry.Registry) *Turn {
	return &Turn{reg: reg}
}

// Reload makes the turn use reg from its next model call: the tools and
// groups a host just changed (a tool created, updated or deleted) reach the
// model without waiting for the next turn. The active list is rebuilt from
// the log, which holds the groups loaded so far in this turn too. It is the
// native side of EventReload.
func (t *Turn) Reload(reg *registry.Registry) error {
	if t.state == idle || t.state == finished {
		return fmt.Errorf("%w: %s: the turn is %s", ErrEvent, EventReload, t.state)
	}
	t.reg = reg.Restrict(t.set.AllowedGroups)
	t.route(t.log.summary != nil)
	if t.set.NoBody {
		t.log.dropConv()
	} else if err := t.log.use(t.set.Format, t.native); err != nil {
		return fmt.Errorf("session: reload: %w", err)
	}
	t.active = t.log.active(reg)
	return nil
}

// Resume makes the turn continue its session from l, the Log a turn of the
// session left when it ended (Turn.Log): its start event's history then
// holds only the messages added to the session's log since. Call it before
// the start event, and give l to one turn only.
func (t *Turn) Resume(l *Log) {
	t.resume = l
	t.keep = true
}

// Keep makes the turn start from its start event's whole history and
// commit its Log when it ends, to resume the session's next turn from: a
// cache action with the Log's fingerprint then comes before its done or
// failed action.
func (t *Turn) Keep() { t.resume, t.keep = nil, true }

// ReuseBody gives back a model call's body (ModelRequest.Body) that the
// caller no longer reads: the turn may build its next body in that memory.
func (t *Turn) ReuseBody(body []byte) {
	if t.log != nil && t.log.conv != nil {
		t.log.conv.Reuse(body)
	}
}

// Log is the turn's Log: once the turn is over, and kept (Keep, Resume),
// the state the session's next turn can resume from. Nil before the start.
func (t *Turn) Log() *Log { return t.log }

// route settles the turn's routing and its system prompt: a Responses
// request in native routing lists the groups as namespaces, not in the
// prompt. summarised says the log holds a summary.
func (t *Turn) route(summarised bool) {
	t.native = nil
	// After a compaction the loads it summarised have nothing left to
	// stand on in the conversation: the session goes on classic.
	if r, _ := RoutingFor(t.set.Format, t.set.Routing); r == RoutingNative && !summarised {
		t.native = &render{reg: t.reg, format: t.set.Format}
	}
	base := WithMemories(t.set.SystemPrompt, t.set.Memories)
	if t.native != nil && t.set.Format == wire.Responses {
		t.system = t.reg.SystemPromptWithoutGroups(base)
		return
	}
	t.system = t.reg.SystemPrompt(base)
}

// WithMemories is the base system prompt with the user's memories listed
// after it, in their order; base alone when there are none.
func WithMemories(base string, memories []string) string {
	var b strings.Builder
	for _, m := range memories {
		if m = strings.TrimSpace(m); m != "" {
			b.WriteString("\n- " + m)
		}
	}
	if b.Len() == 0 {
		return base
	}
	head := "## Memories\n\nWhat the user asked you to remember (save_memory adds to it):\n"
	if strings.TrimSpace(base) != "" {
		head = base + "\n\n" + head
	}
	return head + b.String()
}

// Format is the format of the turn's model calls: its start event's
// settings' format, "" before the start.
func (t *Turn) Format() wire.Format { return t.set.Format }

// Over reports whether the turn has ended, done or failed.
func (t *Turn) Over() bool { return t.state == finished }

// Handle feeds one event and returns the actions the host must perform, in
// order. An event that is malformed or does not fit the turn's state returns
// an error wrapping ErrEvent and changes nothing.
func (t *Turn) Handle(e Event) ([]Action, error) {
	if err := t.check(e); err != nil {
		return nil, err
	}
	if !e.Now.IsZero() {
		t.now = e.Now
	}
	switch e.Type {
	case EventStart:
		return t.start(e), nil
	case EventResponse:
		t.stream = nil
		if e.response == nil && len(bytes.TrimSpace(e.Body)) == 0 {
			return t.fail(emptyResponse), nil
		}
		resp, err := e.decode(t.set.Format)
		if err != nil {
			return t.fail(responseFailure(err)), nil
		}
		return t.respond(resp), nil
	case EventChunk:
		if t.stream == nil {
			t.stream, _ = wire.NewStream(t.set.Format)
		}
		t.state = streaming
		deltas, err := t.stream.Write(e.Data)
		if t.compacting != nil {
			deltas = nil // a summary, not the assistant's reply
		}
		acts := t.textDelta(deltas)
		if err != nil {
			return append(acts, t.fail(responseFailure(err))...), nil
		}
		return acts, nil
	case EventStreamEnd:
		if t.stream == nil {
			return t.fail(emptyResponse), nil // no chunk came: an empty stream
		}
		resp, deltas, err := t.stream.Close()
		t.stream = nil
		if t.compacting != nil {
			deltas = nil
		}
		acts := t.textDelta(deltas)
		if err != nil {
			return append(acts, t.fail(responseFailure(err))...), nil
		}
		return append(acts, t.respond(resp)...), nil
	case EventModelError:
		if r := e.Retries; r != nil && e.Status != 0 && t.state == awaitingModel {
			if retry, ok := r.Decide(e.Status, e.RetryAfter, e.Body, t.retried+1, t.now); ok {
				t.retried++
				return []Action{{Type: ActionRetry, Retry: &retry}}, nil
			}
		}
		msg := "the model could not be reached: " + e.Error
		if e.Status != 0 {
			msg = "the model call failed: " + wire.ErrorMessage(e.Status, e.Body)
		}
		return t.fail(Failure{Code: "model_error", Message: msg}), nil
	case EventToolResults:
		return t.results(e.Results), nil
	case EventApproval:
		return t.approve(e.Approvals), nil
	case EventReload:
		return nil, fmt.Errorf("%w: reload: the host must use the registry it loaded: call Turn.Reload (the module does it for toolroute_turn_event)", ErrEvent)
	case EventStop:
		return t.fail(Stopped), nil
	}
	return nil, nil
}

// acceptedIn lists the states an event may arrive in; false for an event
// it does not know. A switch, not a map: a package-level map is filled
// when the module starts (docs/design/startup.md).
func acceptedIn(t EventType) ([]state, bool) {
	switch t {
	case EventStart:
		return []state{idle}, true
	case EventResponse:
		return []state{awaitingModel}, true
	case EventChunk, EventStreamEnd, EventModelError:
		return []state{awaitingModel, streaming}, true
	case EventToolResults:
		return []state{awaitingTools}, true
	case EventReload, EventStop:
		return []state{awaitingModel, streaming, awaitingTools, awaitingApproval}, true
	case EventApproval:
		return []state{awaitingApproval}, true
	}
	return nil, false
}

// check refuses events that are malformed or out of place, before anything
// changes.
func (t *Turn) check(e Event) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrEvent, e.Type, fmt.Sprintf(format, args...))
	}
	states, known := acceptedIn(e.Type)
	if !known {
		return fmt.Errorf("%w: unknown event type %q: use start, response, chunk, stream_end, model_error, tool_results, approval, reload or stop", ErrEvent, e.Type)
	}
	ok := false
	for _, s := range states {
		ok = ok || s == t.state
	}
	if !ok {
		return bad("the turn is %s", t.state)
	}
	switch e.Type {
	case EventStart:
		if e.Fingerprint != "" && e.Session == "" {
			return bad("a fingerprint needs the session it was handed out for: give it in \"session\", or send neither")
		}
		if e.Compact && (e.User != "" || len(e.Attachments) > 0) {
			return bad("compact takes no user message: send it in a start of its own")
		}
		if !e.Compact && strings.TrimSpace(e.User) == "" && len(e.Attachments) == 0 {
			return bad("the user message is empty: give its text, or attach files")
		}
		if e.Settings.ContextLimit < 0 {
			return bad("settings.context_limit must not be negative")
		}
		if _, err := wire.ParseFormat(string(e.Settings.Format)); err != nil {
			return bad("settings.format: %v", err)
		}
		if strings.TrimSpace(e.Settings.Model) == "" {
			return bad("settings.model is empty: name the model to call")
		}
		if _, err := AttachFiles(e.Attachments, e.Settings.Format, e.Settings.Model); err != nil {
			return bad("%v", err)
		}
		if n := e.Settings.MaxModelCalls; n < 0 || n > MaxModelCallsLimit {
			return bad("settings.max_model_calls must be from 1 to %d, or 0 for the default %d", MaxModelCallsLimit, DefaultMaxModelCalls)
		}
		if e.Settings.MaxTokens < 0 {
			return bad("settings.max_tokens must not be negative")
		}
		if e.Settings.MaxTurnTokens < 0 {
			return bad("settings.max_turn_tokens must not be negative: give the most tokens the turn's model calls may use, or 0 for no limit")
		}
		for i, g := range e.Settings.AllowedGroups {
			if !registry.ValidToolName(g) {
				return bad("settings.allowed_groups[%d] is %q, not a group's name: give the names of the groups the agent may load (snake_case), or none for every group", i, g)
			}
		}
		if !validRouting(e.Settings.Routing) {
			return bad("settings.routing is %q: use \"classic\" or \"native\"", e.Settings.Routing)
		}
		for i, p := range e.Settings.Policies {
			if !registry.ValidDecision(p.Decision) || (p.Tool == "") == (p.Group == "") {
				return bad("settings.policies[%d]: give a tool or a group, and a decision of ask, allow or deny", i)
			}
		}
	case EventModelError:
		if e.Status == 0 && e.Error == "" {
			return bad("give the HTTP status and body, or the error for a call that got no response")
		}
		if r := e.Retries; r != nil && (r.Count < 0 || r.BackoffMS < 0 || r.MaxBackoffMS < 0) {
			return bad("retries: count, backoff_ms and max_backoff_ms must not be negative: give 0 for the defaults (a count of 0 tries no call again)")
		}
	case EventToolResults:
		if len(e.Results) == 0 {
			return bad("no results")
		}
		seen := map[string]bool{}
		for _, r := range e.Results {
			if seen[r.ID] {
				return bad("result %q is given twice", r.ID)
			}
			seen[r.ID] = true
			if !t.isPending(r.ID) {
				return bad("no tool call %q is waiting for a result; waiting: %s", r.ID, t.pendingIDs())
			}
			if r.Status != registry.StatusSuccess && r.Status != registry.StatusError {
				return bad("result %q has status %q: use \"success\" or \"error\"", r.ID, r.Status)
			}
			if r.Status == registry.StatusSuccess && r.Output != "" && t.isSearch(r.ID) {
				return bad("result %q answers a search_tools call: give the names of the tools found, best first, in \"tools\" (none for not found), not in \"output\"", r.ID)
			}
		}
	case EventApproval:
		answered := map[string]bool{}
		for _, a := range e.Approvals {
			if answered[a.ID] {
				return bad("call %q is answered twice", a.ID)
			}
			answered[a.ID] = true
			if !t.isAsking(a.ID) {
				return bad("no call %q awaits approval; awaiting: %s", a.ID, t.askingIDs())
			}
			if a.Answer != AnswerOnce && a.Answer != AnswerSession && a.Answer != AnswerDeny {
				return bad("call %q has answer %q: use \"once\", \"session\" or \"deny\"", a.ID, a.Answer)
			}
		}
		if len(answered) != len(t.asking) {
			return bad("answer every call at once; awaiting: %s", t.askingIDs())
		}
	}
	return nil
}

func (t *Turn) start(e Event) []Action {
	t.set = e.Settings
	t.reg = t.reg.Restrict(t.set.AllowedGroups)
	if t.set.MaxModelCalls == 0 {
		t.set.MaxModelCalls = DefaultMaxModelCalls
	}
	t.log = t.resume
	if t.log == nil {
		t.log = NewLog()
	}
	t.resume = nil
	// A summary in the history makes the routing classic.
	h := e.history
	t.route(t.log.summary != nil || (h != nil && h.summaries) || slices.ContainsFunc(e.History, isSummary))
	var err error
	if t.set.NoBody {
		// No request to build: no conversation to keep encoded.
		t.log.dropConv()
	} else if h != nil && !h.summaries {
		// The conversation first: each response of a history left as
		// JSON joins it as it is read. After a summary, it is encoded
		// again from the log (use, below).
		err = t.log.use(t.set.Format, t.native)
	}
	if err == nil && h != nil {
		err = t.log.addHistory(h)
	} else if err == nil {
		t.log.add(e.History...)
	}
	if err == nil && !t.set.NoBody {
		err = t.log.use(t.set.Format, t.native)
	}
	if err != nil {
		t.keep = false // the log lacks the history: nothing to resume from
		return t.fail(Failure{Code: "bad_response", Message: "the request could not be built: " + err.Error()})
	}
	t.active = t.log.active(t.reg)
	t.opened = true
	if e.Compact {
		cut, ok := t.log.cut(true)
		if !ok {
			t.state = finished
			return append(t.commit(), Action{Type: ActionDone, Text: "Nothing to compact: the conversation has no earlier messages to summarise.", Usage: t.usageCopy()})
		}
		return t.compact(cut, false)
	}
	user := Message{Type: User, Content: e.User, Time: t.now}
	// check took them: no error now.
	user.Attachments, _ = AttachFiles(e.Attachments, t.set.Format, t.set.Model)
	t.log.add(user)
	return append([]Action{{Type: ActionAppend, Messages: []Message{user}}}, t.callModel()...)
}

// callModel builds the next model call, or ends the turn at the limit.
func (t *Turn) callModel() []Action {
	if t.modelCalls >= t.set.MaxModelCalls {
		return t.fail(Failure{Code: "iteration_limit", Message: fmt.Sprintf(
			"The turn stopped after %d model calls, the limit for one turn. Every message so far is kept: send another message to let the model continue, or raise the limit.",
			t.set.MaxModelCalls)})
	}
	if used := t.usage.InputTokens + t.usage.OutputTokens; t.set.MaxTurnTokens > 0 && used >= t.set.MaxTurnTokens {
		return t.fail(Failure{Code: "token_limit", Message: fmt.Sprintf(
			"The turn stopped after its model calls used %d tokens, past its limit of %d. Every message so far is kept: send another message to let the model continue, or raise the limit.",
			used, t.set.MaxTurnTokens)})
	}
	o := t.offer()
	t.sent = o.sent
	wr := wire.Request{
		Model: t.set.Model, System: withSummary(t.system, t.log.summary), Tools: o.defs,
		MaxTokens: t.set.MaxTokens, Temperature: t.set.Temperature, Stream: t.set.Stream,
	}
	// The action and its request in one piece of memory.
	call := &struct {
		acts [1]Action
		req  ModelRequest
	}{}
	mr := &call.req
	*mr = ModelRequest{Format: t.set.Format, Stream: t.set.Stream, Tools: o.names, Call: t.modelCalls + 1,
		Schema: o.schema}
	if t.set.SchemaText {
		mr.Schema = o.schemaText()
	}
	if t.native != nil {
		// The tools sent are the same on every call: the core tools, then
		// every group deferred; loads are in the conversation.
		core := t.reg.CoreTools()
		if t.set.Format == wire.Responses {
			load, _ := t.reg.Tool(registry.LoadToolGroupName)
			core = slices.DeleteFunc(core, func(tool registry.Tool) bool { return tool.Name == registry.LoadToolGroupName })
			if t.reg.HasGroups() {
				wr.Search = &wire.ToolDef{Name: load.Name, Description: load.Description, Parameters: load.Parameters}
			}
		}
		wr.Tools = ToolDefs(t.offered(core))
		wr.Deferred = t.native.deferred()
		mr.Routing = RoutingNative
		for _, g := range wr.Deferred {
			for _, d := range g.Tools {
				mr.Deferred = append(mr.Deferred, d.Name)
			}
		}
	}
	if t.set.NoBody {
		// The host's app calls its model: no request to build.
		t.modelCalls++
		t.retried = 0
		t.partial.Reset()
		t.state = awaitingModel
		call.acts[0] = Action{Type: ActionCallModel, Request: mr}
		return call.acts[:]
	}
	req, err := t.log.encode(t.set.Format, wr, t.sharedState().wire)
	if err != nil {
		// The log and settings were checked; an encoding failure is a bug.
		return t.fail(Failure{Code: "bad_response", Message: "the request could not be built: " + err.Error()})
	}
	if limit := t.contextLimit(); limit > 0 && !t.noCompaction && (len(req.Body)*5+21)/22 > limit/100*compactAt {
		if cut, ok := t.log.cut(false); ok {
			return t.compact(cut, true)
		}
	}
	t.modelCalls++
	t.retried = 0
	t.partial.Reset()
	t.state = awaitingModel
	mr.Path, mr.Headers, mr.Body = req.Path, req.Headers, req.Body
	call.acts[0] = Action{Type: ActionCallModel, Request: mr}
	return call.acts[:]
}

// searchOn reports whether the turn offers search_tools.
func (t *Turn) searchOn() bool { return SearchOffered(t.reg, t.set) }

// offered is tools with the meta-tools the turn's settings add.
func (t *Turn) offered(tools []registry.Tool) []registry.Tool {
	return OfferedTools(t.reg, t.set, tools)
}

// SearchOffered reports whether a turn with these settings offers
// search_tools: asked for, with a group to search, and not in a Responses
// request routed natively, where the format's own tool_search loads.
func SearchOffered(reg *registry.Registry, set Settings) bool {
	if !set.SearchTools || !reg.HasGroups() {
		return false
	}
	r, _ := RoutingFor(set.Format, set.Routing)
	return r != RoutingNative || set.Format != wire.Responses
}

// respond handles one whole model response.
func (t *Turn) respond(resp wire.Response) []Action {
	if t.compacting != nil {
		return t.summarised(resp)
	}
	t.usage.InputTokens += resp.Usage.InputTokens
	t.usage.OutputTokens += resp.Usage.OutputTokens
	t.usage.CachedTokens += resp.Usage.CachedTokens
	// Room for the response, and a call and a result for each of its calls.
	logged := append(make([]Message, 0, 1+2*len(resp.Calls)), Message{Type: Assistant, Content: resp.Text, Time: t.now})
	if resp.Usage != (wire.Usage{}) {
		u := resp.Usage
		logged[0].Usage = &u
	}
	t.log.add(logged[0])
	t.partial.Reset()
	if len(resp.Calls) == 0 {
		t.state = finished
		acts := append([]Action{{Type: ActionAppend, Messages: logged}}, t.commit()...)
		return append(acts, Action{Type: ActionDone, Text: resp.Text, Usage: t.usageCopy()})
	}

	calls := t.uniqueIDs(resp.Calls)
	for i := range calls {
		// A tool search is the native form of load_tool_group: logged as
		// one, so the log stays the same in every routing and format.
		if calls[i].Search {
			calls[i].Name, calls[i].Search = registry.LoadToolGroupName, false
		}
		calls[i].Namespace = ""
	}
	var loads []GroupLoad
	now := &loadedNow{groups: map[string]bool{}, tools: map[string]bool{}}
	t.pending, t.asking, t.approved = nil, nil, nil
	for i, c := range calls {
		res, call, load := t.dispatch(c, now)
		if load != nil {
			now.groups[load.Name] = load.Query == ""
			for _, name := range load.Added {
				now.tools[name] = true
			}
			loads = append(loads, *load)
		}
		if call == nil {
			logged = append(logged, t.callMessage(i, c, res.Status), t.resultMessage(c, res))
			if load != nil {
				call := &logged[len(logged)-2]
				call.Loaded, call.Unloaded = load.found, load.Unloaded
			}
			continue
		}
		p := pendingCall{index: i, call: c, run: *call}
		if call.Search != nil {
			now.searching = true
			// The engine's own call, asking nobody: logged with its
			// outcome when the host answers (searchAnswered).
			t.approved = append(t.approved, p.run)
			t.pending = append(t.pending, p)
			continue
		}
		tool, _ := t.reg.Tool(c.Name)
		var decision registry.Decision
		decision, p.run.Granted = Decide(tool, t.set.Policies, t.log.approvals, call.Secrets)
		switch decision {
		case registry.DecisionDeny:
			logged = append(logged, t.record(i, c, DeniedByPolicy(c.Name))...)
		case registry.DecisionAsk:
			if !t.canAsk() && len(call.Secrets) > 0 {
				logged = append(logged, t.record(i, c, registry.Failure("approval_needed", fmt.Sprintf(
					"'%s' asked for secrets (%s), which only the user can grant when asked, and no one is here to answer (%s). It did not run. "+
						"Call it again without \"secrets\" if the work can be done without them, or tell the user.", c.Name, strings.Join(call.Secrets, ", "), t.nobody())))...)
				continue
			}
			if !t.canAsk() && registry.AsksEveryRun(tool) {
				// No rule allows it: the hint would name one it ignores.
				logged = append(logged, t.record(i, c, registry.Failure("approval_needed", fmt.Sprintf(
					"'%s' asks the user before every run, whatever their rules say, and no one is here to answer (%s). It did not run. "+
						"Tell the user: it runs only in a chat where they are asked.", c.Name, t.nobody())))...)
				continue
			}
			if !t.canAsk() {
				logged = append(logged, t.record(i, c, registry.Failure("approval_needed", fmt.Sprintf(
					"'%s' asks the user before it runs, and no one is here to answer (%s). It did not run. %s",
					c.Name, t.nobody(), t.allowHint(c.Name))))...)
				continue
			}
			// Logged before the user is asked: the question is part of
			// the log, and a restart knows the call never ran.
			t.asking = append(t.asking, p)
			logged = append(logged, t.callMessage(i, c, registry.StatusAwaitingApproval))
		default:
			// Committed before it runs: a call cut off while it runs is
			// then known, and never run again unseen (see conversation).
			t.approved = append(t.approved, p.run)
			t.pending = append(t.pending, p)
			logged = append(logged, t.callMessage(i, c, registry.StatusPending))
		}
	}
	t.log.add(logged[1:]...)

	// Room for the loads and the next step's actions.
	acts := append(make([]Action, 0, 3+len(loads)), Action{Type: ActionAppend, Messages: logged})
	for i := range loads {
		acts = append(acts, Action{Type: ActionGroupLoaded, Group: &loads[i]})
	}
	if len(t.asking) > 0 {
		t.state = awaitingApproval
		ask := make([]Call, len(t.asking))
		for i, p := range t.asking {
			ask[i] = p.run
		}
		return append(acts, Action{Type: ActionAskApproval, Calls: ask})
	}
	return append(acts, t.runApproved()...)
}

// runApproved sends the approved calls to the host, or, with none, calls
// the model.
func (t *Turn) runApproved() []Action {
	if len(t.approved) > 0 {
		t.state = awaitingTools
		run := t.approved
		t.approved = nil
		return []Action{{Type: ActionRunTools, Calls: run}}
	}
	return t.callModel()
}

// Decide decides a call of tool, as a turn does before it runs a call: by
// the user's rule for the tool, else for its group, else the tool's default
// (registry.DefaultDecision); a tool the user approved for the session (an
// approval answer of "session" in log) runs unasked. A call asking for
// secrets asks, whatever the rules allow, unless the session granted them
// all: granted is then those secrets, which the call runs with. A tool that
// runs unsandboxed (registry.AsksEveryRun) asks every time: a rule may deny
// it, nothing lets it run unasked.
func Decide(tool registry.Tool, policies []Policy, log []Message, secrets []string) (d registry.Decision, granted []string) {
	d = registry.DefaultDecision(tool)
	var byGroup, byTool registry.Decision
	for _, p := range policies {
		switch {
		case p.Tool == tool.Name:
			byTool = p.Decision
		case p.Group != "" && p.Group == tool.Group:
			byGroup = p.Decision
		}
	}
	if byGroup != "" {
		d = byGroup
	}
	if byTool != "" {
		d = byTool
	}
	if registry.AsksEveryRun(tool) {
		if d != registry.DecisionDeny {
			d = registry.DecisionAsk
		}
		return d, nil
	}
	if d == registry.DecisionAsk && approvedForSession(log, tool.Name) {
		d = registry.DecisionAllow
	}
	if d == registry.DecisionDeny || len(secrets) == 0 {
		return d, nil
	}
	// Secrets are granted by the user only.
	if !containsAll(sessionGrants(log, tool.Name), secrets) {
		return registry.DecisionAsk, nil
	}
	return d, secrets
}

// DeniedByPolicy is the result of a call the user's rule denies.
func DeniedByPolicy(tool string) registry.Result {
	return registry.Failure("denied", fmt.Sprintf(
		"The user does not allow '%s' to run (their policy denies it). Do not call it again; tell the user, who can change the policy.", tool))
}

// DeniedByUser is the result of a call the user denied when asked.
func DeniedByUser(tool string) registry.Result {
	return registry.Failure("denied", fmt.Sprintf(
		"The user denied this call of '%s': it did not run. Do not call it again unless the user asks; ask them what they want instead.", tool))
}

// sessionGrants are the secrets the user granted a tool for the rest of
// the session: those of its approval answers of "session" in the log.
func sessionGrants(log []Message, tool string) []string {
	var granted []string
	for _, m := range log {
		if m.Type == ApprovalAnswer && m.ToolName == tool && Answer(m.Content) == AnswerSession {
			granted = append(granted, m.Grant...)
		}
	}
	return granted
}

func containsAll(set, names []string) bool {
	for _, n := range names {
		if !slices.Contains(set, n) {
			return false
		}
	}
	return true
}

// approvedForSession reports whether the user let a tool run unasked for
// the rest of the session: an approval answer of "session" in the log.
func approvedForSession(log []Message, tool string) bool {
	for _, m := range log {
		if m.Type == ApprovalAnswer && m.ToolName == tool && Answer(m.Content) == AnswerSession {
			return true
		}
	}
	return false
}

// approve takes the user's answers: each is logged; a denied call gets its
// result now, an approved one runs with the calls that needed no approval.
func (t *Turn) approve(answers []Approval) []Action {
	var logged []Message
	for _, p := range t.asking {
		var a Answer
		var grant []string
		for _, x := range answers {
			if x.ID == p.call.ID {
				a = x.Answer
				grant = x.Grant
			}
		}
		// Only secrets the call asked for, in its order; none when denied.
		var granted []string
		for _, s := range p.run.Secrets {
			if a != AnswerDeny && slices.Contains(grant, s) {
				granted = append(granted, s)
			}
		}
		p.run.Granted = granted
		if a == AnswerSession && registry.AsksEveryRun(registry.Tool{RequiredPermissions: p.run.RequiredPermissions}) {
			a = AnswerOnce // it asks again next time: the log says what held
		}
		logged = append(logged, Message{Type: ApprovalAnswer, ToolCallID: p.call.ID, ToolName: p.call.Name, Content: string(a), Grant: granted, Time: t.now})
		if a == AnswerDeny {
			logged = append(logged, t.resultMessage(p.call, DeniedByUser(p.call.Name)))
			continue
		}
		t.pending = append(t.pending, p)
		t.approved = append(t.approved, p.run)
	}
	t.asking = nil
	// The model's order, whatever order approval left them in.
	slices.SortStableFunc(t.pending, func(a, b pendingCall) int { return cmp.Compare(a.index, b.index) })
	slices.SortStableFunc(t.approved, func(a, b Call) int { return cmp.Compare(t.indexOf(a.ID), t.indexOf(b.ID)) })
	t.log.add(logged...)
	return append([]Action{{Type: ActionAppend, Messages: logged}}, t.runApproved()...)
}

func (t *Turn) indexOf(id string) int {
	for _, p := range t.pending {
		if p.call.ID == id {
			return p.index
		}
	}
	return -1
}

func (t *Turn) isAsking(id string) bool {
	for _, p := range t.asking {
		if p.call.ID == id {
			return true
		}
	}
	return false
}

func (t *Turn) askingIDs() string {
	ids := make([]string, len(t.asking))
	for i, p := range t.asking {
		ids[i] = p.call.ID
	}
	return strings.Join(ids, ", ")
}

// canAsk says the turn may put calls to the user: the host can ask, and
// the turn is not unattended (a scheduled run has no one to answer, even
// in a host that could ask).
func (t *Turn) canAsk() bool { return t.set.Approvals && !t.set.Unattended }

// allowHint is how the user allows tool, which asks: the host's sentence
// (Settings.AllowHint) or one that names no host's way.
func (t *Turn) allowHint(tool string) string {
	if t.set.AllowHint == "" {
		return "The user can allow it with an approval rule that allows '" + tool + "'."
	}
	return strings.ReplaceAll(t.set.AllowHint, "{tool}", tool)
}

// nobody says why no one can answer an approval question.
func (t *Turn) nobody() string {
	if t.set.Unattended {
		return "it runs unattended, as a scheduled task"
	}
	return "the chat is not interactive"
}

// loadedNow are the groups and tools loaded by the response being handled;
// searching says one of its calls is a search the host ranks, whose tools
// are not known yet.
type loadedNow struct {
	groups, tools map[string]bool
	searching     bool
}

// dispatch decides one call: a result now (a meta-tool the engine runs, or a
// call refused), or a call for the host to run.
func (t *Turn) dispatch(c wire.Call, now *loadedNow) (registry.Result, *Call, *GroupLoad) {
	// The arguments are JSON from the model, read below and handed to
	// the host: their nesting is checked first (registry.MaxDepth), and
	// the model told, so that it can call again.
	var deep *registry.DepthError
	if errors.As(jsondec.CheckDepthString(c.Input), &deep) {
		return registry.Failure("invalid_arguments", fmt.Sprintf(
			"The arguments for '%s' nest more than %d levels of arrays and objects (at byte %d), more than any tool takes. Call it again with one JSON object matching its parameters.", c.Name, registry.MaxDepth, deep.Offset)), nil, nil
	}
	if c.Name == registry.SearchToolsName && t.sent[c.Name] {
		if t.set.HostSearch {
			return t.hostSearch(c)
		}
		return t.search(c)
	}
	if c.Name == registry.UnloadToolGroupName && t.sent[c.Name] {
		return t.unloadGroup(c)
	}
	tool, enabled := t.reg.Tool(c.Name)
	switch {
	case !t.reg.Has(c.Name):
		return registry.Failure("unknown_tool", fmt.Sprintf(
			"Tool '%s' does not exist. Call one of the tools you were given, or load a tool group listed in the system prompt with load_tool_group.", c.Name)), nil, nil
	case !enabled:
		return registry.Failure("tool_disabled", fmt.Sprintf(
			"Tool '%s' is disabled. Use another tool, or ask the user to enable it.", c.Name)), nil, nil
	case !t.sent[c.Name] && tool.Origin.Kind != registry.OriginMeta:
		if now.groups[tool.Group] {
			return registry.Failure("tool_not_loaded", fmt.Sprintf(
				"Tool '%s' was not available when you called it: its group '%s' was loaded by this same response. Call '%s' again now.", c.Name, tool.Group, c.Name)), nil, nil
		}
		if now.tools[c.Name] {
			return registry.Failure("tool_not_loaded", fmt.Sprintf(
				"Tool '%s' was not available when you called it: search_tools loaded it in this same response. Call '%s' again now.", c.Name, c.Name)), nil, nil
		}
		if now.searching {
			return registry.Failure("tool_not_loaded", fmt.Sprintf(
				"Tool '%s' was not available when you called it. If the search_tools call of this same response loads it, call '%s' again; if not, call load_tool_group with group_name '%s' first.", c.Name, c.Name, tool.Group)), nil, nil
		}
		return registry.Failure("tool_not_loaded", fmt.Sprintf(
			"Tool '%s' is not loaded: it belongs to tool group '%s'. Call load_tool_group with group_name '%s' first, then call '%s' again.", c.Name, tool.Group, tool.Group, c.Name)), nil, nil
	}

	switch c.Name {
	case registry.LoadToolGroupName:
		res, group := t.reg.LoadToolGroup(json.RawMessage(c.Input))
		if res.Status != registry.StatusSuccess || !t.active.LoadGroup(group) {
			return res, nil, nil
		}
		g, _ := t.reg.Group(group)
		load := &GroupLoad{Name: group, DisplayName: g.DisplayName, Added: t.reg.GroupToolNames(group)}
		var note string
		load.Unloaded, note = t.fitBudget([]string{group})
		res.Output += note
		load.Active = t.offer().names // what the next call offers
		return res, nil, load
	case registry.LoadSkillName:
		return t.reg.LoadSkill(json.RawMessage(c.Input)), nil, nil
	}

	input, problem := CheckArguments(tool, c.Input)
	if problem != "" {
		return registry.Failure("invalid_arguments", problem), nil, nil
	}
	var secrets []string
	if slices.Contains(tool.RequiredPermissions, registry.PermissionSecrets) {
		if secrets, problem = AskedSecrets(tool.Name, input); problem != "" {
			return registry.Failure("invalid_arguments", problem), nil, nil
		}
	}
	return registry.Result{}, &Call{
		ID: c.ID, Tool: tool.Name, Input: input, Origin: tool.Origin, TimeoutSeconds: tool.TimeoutSeconds,
		Env: tool.Env, RequiredPermissions: tool.RequiredPermissions, Secrets: secrets,
	}, nil
}

// search runs search_tools: the tools found join the active list from the
// next model call, and the load says which.
func (t *Turn) search(c wire.Call) (registry.Result, *Call, *GroupLoad) {
	res, found := t.reg.SearchTools(json.RawMessage(c.Input), t.active.Has)
	res, load := t.loadFound(c, res, found)
	return res, nil, load
}

// hostSearch hands a search_tools call whose arguments are right to the
// host to rank (Settings.HostSearch): a call with the tools it may find.
// Arguments that are not right get the result search answers them with;
// with nothing to find, not_found at once.
func (t *Turn) hostSearch(c wire.Call) (registry.Result, *Call, *GroupLoad) {
	query, limit, fail := registry.ParseSearchArgs(json.RawMessage(c.Input))
	if fail != nil {
		return *fail, nil, nil
	}
	candidates := t.reg.SearchCandidates()
	if len(candidates) == 0 {
		res, _ := t.reg.SearchFound(query, nil, limit, nil)
		return res, nil, nil
	}
	tool := registry.SearchToolsTool()
	return registry.Result{}, &Call{
		ID: c.ID, Tool: tool.Name, Input: json.RawMessage(c.Input), Origin: registry.Origin{Kind: registry.OriginSearch},
		TimeoutSeconds: tool.TimeoutSeconds, Search: &SearchCall{Query: query, Limit: limit, Candidates: candidates},
	}, nil
}

// searchAnswered takes the host's answer to a search it ranked: the tools
// it found are loaded as search loads its own ranking's, and the call is
// logged with its outcome, as a call the engine ran; a failure is the
// model's to read.
func (t *Turn) searchAnswered(p pendingCall, r Result) ([]Message, *GroupLoad) {
	res := r.Result
	var load *GroupLoad
	if res.Status == registry.StatusSuccess {
		s := p.run.Search
		var found []registry.Tool
		res, found = t.reg.SearchFound(s.Query, r.Tools, s.Limit, t.active.Has)
		res, load = t.loadFound(p.call, res, found)
	}
	call := t.callMessage(p.index, p.call, res.Status)
	if load != nil {
		call.Loaded, call.Unloaded = load.found, load.Unloaded
	}
	return []Message{call, t.resultMessage(p.call, res)}, load
}

// loadFound loads the tools a search of call c found, with res its result:
// nothing when it failed.
func (t *Turn) loadFound(c wire.Call, res registry.Result, found []registry.Tool) (registry.Result, *GroupLoad) {
	if res.Status != registry.StatusSuccess {
		return res, nil
	}
	names := toolNames(found)
	added := t.active.LoadTools(names)
	// The query as the search read it, trimmed, as a host search's is.
	query, _, _ := registry.ParseSearchArgs(json.RawMessage(c.Input))
	var keep []string
	for _, tool := range found {
		keep = append(keep, tool.Group)
	}
	unloaded, note := t.fitBudget(keep)
	res.Output += note
	load := &GroupLoad{Query: query, Added: added, Unloaded: unloaded, Active: toolNames(t.offered(t.active.Tools())), found: names}
	if load.Added == nil {
		load.Added = []string{}
	}
	return res, load
}

// AskedSecrets reads the "secrets" argument of a tool with the secrets
// permission (an object's): absent, null or an array of secret names, each
// returned once. problem says what is wrong with it, for the model.
func AskedSecrets(tool string, input json.RawMessage) ([]string, string) {
	var args struct {
		Secrets json.RawMessage `json:"secrets"`
	}
	_ = json.Unmarshal(input, &args) // an object: CheckArguments said so
	if len(args.Secrets) == 0 || string(args.Secrets) == "null" {
		return nil, ""
	}
	var names []string
	if json.Unmarshal(args.Secrets, &names) != nil {
		return nil, fmt.Sprintf("The \"secrets\" argument of '%s' is not an array of names: send one such as [\"google\", \"WEATHER_API_KEY\"], or leave it out.", tool)
	}
	var out []string
	for _, n := range names {
		if !registry.ValidSecret(n) {
			return nil, fmt.Sprintf("%q in the \"secrets\" argument of '%s' is not a secret's name: use \"google\" for the Google account or a variable's name such as WEATHER_API_KEY.", n, tool)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, ""
}

// record logs a call the engine answered itself with its result: the
// tool_call message, with the outcome's status, and the tool_result message
// the model reads.
func (t *Turn) record(index int, c wire.Call, res registry.Result) []Message {
	return []Message{t.callMessage(index, c, res.Status), t.resultMessage(c, res)}
}

// callMessage is the tool_call message of the index'th call of a response.
func (t *Turn) callMessage(index int, c wire.Call, status registry.Status) Message {
	return Message{Type: ToolCall, ToolCallID: c.ID, ToolName: c.Name, ToolInput: c.Input, Signature: c.Signature, Status: status, Index: index, Time: t.now}
}

// resultMessage is the tool_result message of a call.
// A result's images a model cannot take are left out, each with a note
// after the text.
func (t *Turn) resultMessage(c wire.Call, res registry.Result) Message {
	m := Message{Type: ToolResult, ToolCallID: c.ID, ToolName: c.Name, Content: res.Content(), Status: res.Status, ErrorType: res.ErrorType, Asked: res.Asked, Time: t.now}
	if len(res.Images) > 0 {
		m.Content, m.Images = registry.CheckImages(m.Content, res.Images)
	}
	if len(res.Documents) > 0 {
		m.Content, m.Documents = registry.CheckDocuments(m.Content, m.Images, res.Documents)
	}
	return m
}

// results logs tool results as they come; when none is pending, the next
// model call goes out.
func (t *Turn) results(results []Result) []Action {
	var logged []Message
	var loads []GroupLoad
	for _, r := range results {
		r.Result = FinishResult(r.Result, r.Console, t.set.ShowConsole)
		for i, p := range t.pending {
			if p.call.ID != r.ID {
				continue
			}
			if p.run.Search != nil {
				msgs, load := t.searchAnswered(p, r)
				logged = append(logged, msgs...)
				if load != nil {
					loads = append(loads, *load)
				}
			} else {
				logged = append(logged, t.resultMessage(p.call, r.Result)) // its tool_call is logged
			}
			t.pending = append(t.pending[:i], t.pending[i+1:]...)
			break
		}
	}
	t.log.add(logged...)
	acts := []Action{{Type: ActionAppend, Messages: logged}}
	for i := range loads {
		acts = append(acts, Action{Type: ActionGroupLoaded, Group: &loads[i]})
	}
	if len(t.pending) > 0 {
		return acts
	}
	return append(acts, t.callModel()...)
}

// uniqueIDs gives every call an id unique in the session: the model's, or,
// where it sent none or repeated one, call_R_I for the Rth response's Ith
// call.
func (t *Turn) uniqueIDs(calls []wire.Call) []wire.Call {
	responses := t.log.responses
	if idsUnique(calls) {
		return calls // the response's own, which the turn may change
	}
	out := make([]wire.Call, len(calls))
	for i, c := range calls {
		if c.ID == "" || slices.ContainsFunc(out[:i], func(d wire.Call) bool { return d.ID == c.ID }) {
			c.ID = fmt.Sprintf("call_%d_%d", responses, i)
		}
		out[i] = c
	}
	return out
}

// idsUnique reports whether every call has an id no other has.
func idsUnique(calls []wire.Call) bool {
	for i, c := range calls {
		if c.ID == "" {
			return false
		}
		for _, d := range calls[:i] {
			if d.ID == c.ID {
				return false
			}
		}
	}
	return true
}

// Stopped is the failure of a turn the user stopped (EventStop).
var Stopped = Failure{Code: "stopped", Message: "Stopped by the user: what came before is kept."}

// CutOffEnd is the end a turn's log gets when the turn was cut off
// with nothing left to feed it (CutOff).
var CutOffEnd = Failure{Code: "interrupted", Message: "Interrupted: the turn was cut off before it ended (the page was closed or reloaded, or the program stopped); what came before is kept."}

// CutOff is what a log keeps of a turn cut off with no Turn left to feed
// (a page closed or reloaded mid-turn, a worker ended): the text streamed
// of its reply, as its assistant message, and a TurnEnd (Stopped when the
// user had stopped it, else CutOffEnd), to be appended to the log whose
// last message has type last. A log that is empty or whose last message
// ends a turn (an answer, a TurnEnd, a summary) gets none: that turn
// ended.
func CutOff(text string, last MessageType, stopped bool) []Message {
	switch last {
	case "", Assistant, TurnEnd, Summary:
		return nil
	}
	var out []Message
	if strings.TrimSpace(text) != "" {
		out = append(out, Message{Type: Assistant, Content: text})
	}
	end := CutOffEnd
	if stopped {
		end = Stopped
	}
	return append(out, Message{Type: TurnEnd, Content: end.Message, ErrorType: end.Code})
}

// fail ends the turn without an answer. Once its start is logged, the log
// keeps what a reader shows of that end: a TurnEnd saying why, after, for
// a stop, the text streamed of the response the user stopped (as its
// assistant message, which the next turn's model reads as its answer so
// far). A response that failed is not logged: its text may be anything
// (a body past the size cap, a provider's error page).
func (t *Turn) fail(f Failure) []Action {
	t.state = finished
	t.stream = nil
	var acts []Action
	if t.opened {
		logged := make([]Message, 0, 2)
		if f.Code == Stopped.Code && t.partial.Len() > 0 && t.compacting == nil {
			logged = append(logged, Message{Type: Assistant, Content: t.partial.String(), Time: t.now})
			t.partial.Reset()
		}
		logged = append(logged, Message{Type: TurnEnd, Content: f.Message, ErrorType: f.Code, Time: t.now})
		t.log.add(logged...)
		acts = append(acts, Action{Type: ActionAppend, Messages: logged})
	}
	return append(append(acts, t.commit()...), Action{Type: ActionFailed, Error: &f, Usage: t.usageCopy()})
}

// commit commits a kept turn's Log as the turn ends: the cache action
// that says how the session's next turn may resume from it, or none when
// the turn is not kept.
func (t *Turn) commit() []Action {
	if !t.keep || t.log == nil {
		return nil
	}
	fp, err := t.log.Commit()
	if err != nil {
		t.keep = false // not reached: the log's messages encode
		return nil
	}
	return []Action{{Type: ActionCache, Cache: &Cache{Fingerprint: fp, Messages: t.log.Len()}}}
}

func (t *Turn) usageCopy() *wire.Usage {
	u := t.usage
	return &u
}

// isSearch reports whether the pending call with id is a search the host
// ranks.
func (t *Turn) isSearch(id string) bool {
	for _, p := range t.pending {
		if p.call.ID == id {
			return p.run.Search != nil
		}
	}
	return false
}

func (t *Turn) isPending(id string) bool {
	for _, p := range t.pending {
		if p.call.ID == id {
			return true
		}
	}
	return false
}

func (t *Turn) pendingIDs() string {
	ids := make([]string, len(t.pending))
	for i, p := range t.pending {
		ids[i] = p.call.ID
	}
	return strings.Join(ids, ", ")
}

// emptyResponse ends a turn whose model call was answered with nothing: a
// 200 with an empty body, or a stream that ended before its first byte.
// Providers never answer so; a wrong base URL or model name behind a proxy
// or gateway can, so the user is told what to check.
var emptyResponse = Failure{Code: "bad_response", Message: "the provider answered the model call with nothing (HTTP 200 with an empty body): " +
	"check the model name and the provider's base URL, then send the message again"}

func responseFailure(err error) Failure {
	if errors.Is(err, wire.ErrProvider) {
		return Failure{Code: "model_error", Message: "the provider answered with an error: " + strings.TrimPrefix(err.Error(), wire.ErrProvider.Error()+": ")}
	}
	return Failure{Code: "bad_response", Message: "the model's response could not be read: " + strings.TrimPrefix(err.Error(), wire.ErrBadResponse.Error()+": ")}
}

// textDelta is the action showing a chunk's text, which the turn keeps
// until its response is logged.
func (t *Turn) textDelta(deltas []string) []Action {
	if text := strings.Join(deltas, ""); text != "" {
		t.partial.WriteString(text)
		return []Action{{Type: ActionTextDelta, Text: text}}
	}
	return nil
}

// ToolDefs are tools as a model request sends them: what every model call,
// `toolroute tokens` and the token meters (describe's tools_json) encode.
func ToolDefs(tools []registry.Tool) []wire.ToolDef {
	defs := make([]wire.ToolDef, len(tools))
	for i, t := range tools {
		defs[i] = wire.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
	}
	return defs
}

func toolNames(tools []registry.Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}
