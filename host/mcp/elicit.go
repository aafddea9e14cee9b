package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/elicit"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/check"
)

// An MCP server may ask the user something while one of its tools runs
// (elicitation/create). The question is for whoever made that call: the
// call's context carries its Asker (host.WithAsker), the chat or page or
// client of the turn. The request does not say which call it belongs to,
// so it goes to the call the server is running; when several run for
// different askers, toolroute cannot tell, and refuses it. The module
// reads the form, checks the answer and words every refusal.

// runningKey holds a call's *running in its context.
type runningKey struct{}

// running is a call of the server's tools in progress.
type running struct {
	ctx   context.Context // the call's: its Asker, the module's checker, its deadline
	asked bool            // the user was being asked when the call ended
	said  []string        // the answers given, as the user reads them back
}

// track counts a call as running until the returned func is called.
func (s *server) track(ctx context.Context) (r *running, done func()) {
	r = &running{ctx: ctx}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs++
	id := s.runs
	if s.running == nil {
		s.running = map[uint64]*running{}
	}
	s.running[id] = r
	return r, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.running, id)
	}
}

// caller is the running call a question is for, or why there is none
// (check.UnaskedNoCall, check.UnaskedSeveral, check.UnaskedNobody): of
// several calls of one Asker, the latest still running, as the JS hosts
// choose (the request does not say which).
func (s *server) caller() (*running, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *running
	var asker host.Asker
	for _, id := range slices.Sorted(maps.Keys(s.running)) {
		r := s.running[id]
		a := host.AskerFrom(r.ctx)
		if found != nil && !sameAsker(a, asker) {
			return nil, check.UnaskedSeveral
		}
		if found == nil || r.ctx.Err() == nil {
			found, asker = r, a
		}
	}
	switch {
	case found == nil:
		return nil, check.UnaskedNoCall
	case asker == nil:
		return found, check.UnaskedNobody
	}
	return found, ""
}

// sameAsker reports whether two calls have one Asker; one that cannot be
// compared is no one's but its own.
func sameAsker(a, b host.Asker) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// elicit is the client's handler of the server's elicitation/create.
func (s *server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	params, err := json.Marshal(req.Params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	q := host.Elicitation{Server: s.cfg.Key, Params: s.asSent(params)}
	r, why := s.caller()
	if own, ok := ctx.Value(runningKey{}).(*running); ok {
		// From 2026-07-28 the question comes in the call's result, and
		// the SDK asks it with the call's context: whose it is is known.
		r, why = own, ""
		if host.AskerFrom(own.ctx) == nil {
			why = check.UnaskedNobody
		}
	}
	if r == nil {
		// No call to ask for: the module's words, through the checker
		// the last listing had.
		return nil, refusal(module.WithChecker(ctx, s.opts.checker()), q, why, 0)
	}
	callCtx := r.ctx
	q.CallID = host.CallIDFrom(callCtx)
	if why != "" {
		return nil, refusal(callCtx, q, why, 0)
	}
	if _, err := elicit.Read(callCtx, q); err != nil {
		return nil, refusal(callCtx, q, "", 0, err)
	}
	// The user has as long as the call has left; the server's own
	// request ends with its connection.
	askCtx, cancel := context.WithCancel(callCtx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	s.mu.Lock()
	r.asked = true
	s.mu.Unlock()
	reply, err := host.AskerFrom(callCtx).Ask(askCtx, q)
	if callCtx.Err() == nil {
		// Still in time: a deadline from now on is not the user's. One
		// that passed while they were asked stays theirs (call reads it).
		s.mu.Lock()
		r.asked = false
		s.mu.Unlock()
	}
	if err != nil {
		if errors.Is(callCtx.Err(), context.DeadlineExceeded) {
			return nil, refusal(context.WithoutCancel(callCtx), q, check.UnaskedTimedOut, s.cfg.TimeoutSeconds)
		}
		var refused *module.Refused
		if errors.As(err, &refused) {
			// The Asker's own refusal (a client that cannot ask).
			return nil, refusal(callCtx, q, "", 0, err)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: clip(err.Error(), 500)}
	}
	out, err := elicit.Reply(context.WithoutCancel(callCtx), q, reply)
	if err != nil {
		return nil, refusal(callCtx, q, "", 0, err)
	}
	if out.Said != "" {
		s.mu.Lock()
		r.said = append(r.said, out.Said)
		s.mu.Unlock()
	}
	res := &mcp.ElicitResult{Action: out.Action}
	if out.Action == "accept" {
		res.Content = out.Content
		if res.Content == nil {
			res.Content = map[string]any{}
		}
	}
	return res, nil
}

// refusal is the JSON-RPC error a refused question gets: the module's
// sentence (why, or the refusal given) as its message, so that the server,
// and the model through its tool's result, read why.
func refusal(ctx context.Context, q host.Elicitation, why string, timeoutSeconds int, given ...error) error {
	err := errors.Join(given...)
	if why != "" {
		err = elicit.Refusal(ctx, q, why, timeoutSeconds)
	}
	var refused *module.Refused
	if errors.As(err, &refused) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: refused.Message}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "toolroute could not read the question: " + clip(err.Error(), 300)}
}

// toolError is a refusal as the failure the model reads, of type typ.
func toolError(err error, typ string) error {
	var refused *module.Refused
	if errors.As(err, &refused) {
		return &host.ToolError{Type: typ, Message: refused.Message}
	}
	return err
}

// maxHeard bounds the questions kept as sent.
const maxHeard = 8

// heardAsk keeps a question's params as the stdio connection read them.
func (s *server) heardAsk(params json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.heard) == maxHeard {
		s.heard = s.heard[1:]
	}
	s.heard = append(s.heard, params)
}

// asSent is the question's params as the server wrote them, its fields in
// their order, when the connection kept them (stdio); else params, the
// SDK's decoding, whose fields come in the order of their names.
func (s *server) asSent(params json.RawMessage) json.RawMessage {
	want := sameForm(params)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, raw := range s.heard {
		if sameForm(raw) == want {
			s.heard = append(s.heard[:i:i], s.heard[i+1:]...)
			return raw
		}
	}
	return params
}

// sameForm is what two encodings of one question share: its message and
// form, with the keys sorted.
func sameForm(params json.RawMessage) string {
	var p struct {
		Message         string `json:"message"`
		RequestedSchema any    `json:"requestedSchema"`
		URL             string `json:"url"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// withAsked adds the user's answers to the questions r's server asked
// during the call to its outcome (Output.Asked, ToolError.Asked), for the
// log to keep.
func (s *server) withAsked(r *running) func(host.Output, error) (host.Output, error) {
	return func(out host.Output, err error) (host.Output, error) {
		s.mu.Lock()
		said := slices.Clone(r.said)
		s.mu.Unlock()
		if len(said) == 0 {
			return out, err
		}
		var te *host.ToolError
		switch {
		case err == nil:
			out.Asked = said
		case errors.As(err, &te):
			te.Asked = said
		}
		return out, err
	}
}
