package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// ModelCalls runs the tool calls of a model whose turns the host does not
// run: an MCP client's, whose model calls toolroute's tools one at a time
// through `toolroute mcp`. Each call is checked and decided as a turn does
// it (the catalogue's tool, its required arguments, the user's rules of
// Options.Policies, secrets only as the user grants them) and run as a turn
// runs it (the sandbox and the timeout, redaction, the cut at
// MaxResultChars). The user's answers of "session" hold for the later calls
// of the same ModelCalls, as they do in a turn's log.
//
// Unlike CallTool, which is the user's own call, a call here is the
// model's: a tool that asks first waits for the user's answer (Answer).
// ModelCalls is safe for concurrent use.
type ModelCalls struct {
	h       *Host
	mu      sync.Mutex
	answers []session.Message // the user's answers of "session", as a turn logs them
	n       int               // the calls checked, for their ids
}

// NewModelCalls starts the calls of one conversation: an MCP client
// session's.
func (h *Host) NewModelCalls() *ModelCalls { return &ModelCalls{h: h} }

// ModelCall is a call Check let through.
type ModelCall struct {
	session.Call
	// Ask says the user must allow it first: Answer runs it when they do.
	// Otherwise Run runs it.
	Ask bool
}

// Check checks a call of the tool name with the model's arguments (a JSON
// object; empty counts as {}). A call that ends here gets its result, a
// failure the model reads: no such tool (unknown_tool), a disabled one
// (tool_disabled), arguments that are not an object or miss a required
// parameter, or a "secrets" argument that names none (invalid_arguments),
// or the user's rule denies the tool (denied). Any other call is returned
// to Run, or to put to the user first when its Ask is set.
//
// # Errors
//
// The meta-tools (load_tool_group, load_skill) change what a conversation
// offers, which the caller keeps: they are refused with an error, as is
// failing to read the user's rules.
func (m *ModelCalls) Check(ctx context.Context, name string, input json.RawMessage) (ModelCall, *registry.Result, error) {
	d, refused, err := m.decide(ctx, name, input, nil)
	if err != nil || refused != nil {
		return ModelCall{}, refused, err
	}
	return ModelCall{Call: d.Call, Ask: d.Ask}, nil, nil
}

// CheckLoaded is Check for a conversation that lists only the core tools
// and its loaded groups' (an MCP client's, Offer): a call of another tool
// is refused as a group's tool not loaded yet (tool_not_loaded) or an
// unknown one. The meta-tools are refused with an error: Meta runs them.
func (m *ModelCalls) CheckLoaded(ctx context.Context, name string, input json.RawMessage, loaded []string) (ModelCall, *registry.Result, error) {
	d, refused, err := m.decide(ctx, name, input, nonNil(loaded))
	if err != nil || refused != nil {
		return ModelCall{}, refused, err
	}
	if d.Result != nil {
		return ModelCall{}, nil, fmt.Errorf("host: %s changes what the conversation offers: run it with Meta", name)
	}
	return ModelCall{Call: d.Call, Ask: d.Ask}, nil, nil
}

// Meta runs load_tool_group or load_skill for a conversation that loaded
// the groups loaded: the result the model reads, and the groups loaded
// after it, which the caller keeps (and lists again with Offer).
func (m *ModelCalls) Meta(ctx context.Context, name string, input json.RawMessage, loaded []string) (registry.Result, []string, error) {
	loaded = nonNil(loaded)
	d, refused, err := m.decide(ctx, name, input, loaded)
	switch {
	case err != nil:
		return registry.Result{}, loaded, err
	case refused != nil:
		return *refused, loaded, nil
	case d.Result == nil:
		return registry.Result{}, loaded, fmt.Errorf("host: %s is not a meta-tool: run it with CheckLoaded", name)
	}
	return *d.Result, d.Loaded, nil
}

// decide asks the module to decide a call (toolroute_check's model_call):
// the host reads the user's rules and keeps their answers; the module
// checks and decides, as it does a turn's tool calls.
func (m *ModelCalls) decide(ctx context.Context, name string, input json.RawMessage, loaded []string) (session.ModelCallDecision, *registry.Result, error) {
	var policies []session.Policy
	if m.h.opts.Policies != nil {
		var err error
		if policies, err = m.h.opts.Policies(ctx); err != nil {
			return session.ModelCallDecision{}, nil, fmt.Errorf("host: the approval policies: %w", err)
		}
	}
	m.mu.Lock()
	m.n++
	req := session.ModelCall{ID: "call_" + strconv.Itoa(m.n), Tool: name, Input: input, Loaded: loaded,
		Policies: policies, Answers: slices.Clone(m.answers)}
	m.mu.Unlock()
	a, err := m.h.pool.Check(ctx, abi.ModelCallOp, req)
	if err != nil {
		return session.ModelCallDecision{}, nil, fmt.Errorf("host: deciding the call of %s: %w", name, err)
	}
	if a.Error != nil {
		return session.ModelCallDecision{}, failure(a.Error.Type, a.Error.Message), nil
	}
	var d session.ModelCallDecision
	if err := json.Unmarshal(a.Args, &d); err != nil {
		return session.ModelCallDecision{}, nil, fmt.Errorf("host: the module's decision on %s: %w", name, err)
	}
	return d, nil, nil
}

// nonNil is loaded, or none loaded rather than every tool offered.
func nonNil(loaded []string) []string {
	if loaded == nil {
		return []string{}
	}
	return loaded
}

// Offer is what a conversation without turns (an MCP client's) that loaded
// the groups loaded lists, as the module makes it: the tools in the order a
// turn sends them (the meta-tools' descriptions carrying the listings), the
// instructions for its model, and the loaded groups that still exist.
func (h *Host) Offer(ctx context.Context, loaded []string) (session.Offer, error) {
	a, err := h.pool.Check(ctx, abi.OfferOp, struct {
		Loaded []string `json:"loaded"`
	}{nonNil(loaded)})
	if err != nil {
		return session.Offer{}, fmt.Errorf("host: the tools to offer: %w", err)
	}
	var o session.Offer
	if err := json.Unmarshal(a.Args, &o); err != nil {
		return session.Offer{}, fmt.Errorf("host: the module's offer: %w", err)
	}
	return o, nil
}

// Run runs a call that Check let through unasked.
func (m *ModelCalls) Run(ctx context.Context, c ModelCall) registry.Result {
	if c.Ask {
		return registry.Failure("approval_needed", fmt.Sprintf("'%s' asks the user before it runs, and they were not asked. It did not run.", c.Tool))
	}
	// The rules the module applies to a turn's results.
	res := m.h.run(context.WithValue(ctx, ownerKey{}, m), c.Call)
	return session.FinishResult(res.Result, res.Console, m.h.opts.ShowConsole)
}

// Answer takes the user's answer to a call that asked, and runs it unless
// they denied it. AnswerOnce and AnswerSession run it with every secret it
// asked for; AnswerSession also lets the tool run unasked, with those
// secrets, for the rest of the conversation. Any other answer denies the
// call: its result says so.
func (m *ModelCalls) Answer(ctx context.Context, c ModelCall, a session.Answer) registry.Result {
	if a != session.AnswerOnce && a != session.AnswerSession {
		return session.DeniedByUser(c.Tool)
	}
	if a == session.AnswerSession {
		m.mu.Lock()
		m.answers = append(m.answers, session.Message{Type: session.ApprovalAnswer, ToolCallID: c.ID, ToolName: c.Tool,
			Content: string(a), Grant: c.Secrets})
		m.mu.Unlock()
	}
	c.Granted, c.Ask = c.Secrets, false
	return m.Run(ctx, c)
}

func failure(errorType, message string) *registry.Result {
	r := registry.Failure(errorType, message)
	return &r
}
