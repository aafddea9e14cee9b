package mcpserve

import (
	"context"
	"crypto/rand"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
)

// From 2026-07-28 a server sends no request while a call waits: to ask its
// client something, the call's result asks (input_required, with a state)
// and the client calls again with the answer. An MCP server upstream that
// asks the user mid-call cannot be put off that way (its call is running),
// so a 2026-07-28 client's call runs apart from the request that made it:
// when the upstream server asks, the request answers input_required and
// the call is parked, waiting; the client's call again with the state and
// the answer hands the answer to the parked call, and waits on it in turn,
// for its result or its next question.

// elicitInput names an upstream server's question in an input_required
// result.
const elicitInput = "elicitation"

// maxParked bounds the calls waiting for a client that never comes back.
const maxParked = 16

// parked is a 2026-07-28 client's call running apart from its requests.
type parked struct {
	state   string
	events  chan parkedEvent      // from the call: a question, or its end
	answers chan host.ElicitReply // to the call's Ask
	cancel  context.CancelFunc    // ends the call
}

// parkedEvent is a question the call asks (params) or its end.
type parkedEvent struct {
	question *mcp.ElicitParams
	res      *mcp.CallToolResult
	err      error
}

type parkedKey struct{}

// runParked runs a 2026-07-28 client's call apart from the request: run
// is the call, which may ask (askParked) through its context.
func (c *client) runParked(ctx context.Context, run func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &parked{events: make(chan parkedEvent, 1), answers: make(chan host.ElicitReply, 1), cancel: cancel}
	go func() {
		defer cancel()
		res, err := run(context.WithValue(runCtx, parkedKey{}, p))
		p.events <- parkedEvent{res: res, err: err}
	}()
	return c.waitParked(ctx, p)
}

// resumeParked hands the answer a client brought (with the state it was
// given) to the call parked under it, and waits on the call; ok is false
// when no call is parked under that state.
func (c *client) resumeParked(ctx context.Context, params *mcp.CallToolParamsRaw) (*mcp.CallToolResult, bool, error) {
	if params.RequestState == "" {
		return nil, false, nil
	}
	c.mu.Lock()
	i := slices.IndexFunc(c.parked, func(p *parked) bool { return p.state == params.RequestState })
	var p *parked
	if i >= 0 {
		p = c.parked[i]
		c.parked = slices.Delete(c.parked, i, i+1)
	}
	c.mu.Unlock()
	if p == nil {
		return nil, false, nil
	}
	reply := host.ElicitReply{Action: "cancel"}
	if res, ok := params.InputResponses[elicitInput].(*mcp.ElicitResult); ok && res != nil {
		reply = host.ElicitReply{Action: res.Action, Content: res.Content}
	}
	p.answers <- reply
	res, err := c.waitParked(ctx, p)
	return res, true, err
}

// waitParked waits for the call's next question, which it answers as
// input_required, parking the call under a new state, or for its end. A
// request that ends first (the client cancelled) ends the call.
func (c *client) waitParked(ctx context.Context, p *parked) (*mcp.CallToolResult, error) {
	select {
	case ev := <-p.events:
		if ev.question == nil {
			return ev.res, ev.err
		}
		p.state = rand.Text()
		c.mu.Lock()
		if len(c.parked) == maxParked {
			c.parked[0].cancel()
			c.parked = c.parked[1:]
		}
		c.parked = append(c.parked, p)
		c.mu.Unlock()
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{elicitInput: ev.question}, RequestState: p.state}, nil
	case <-ctx.Done():
		p.cancel()
		return nil, ctx.Err()
	}
}

// askParked puts a question to a parked call's client: the request
// waiting on the call answers input_required with it, and the answer
// comes with the client's call again.
func askParked(ctx context.Context, p *parked, q *mcp.ElicitParams) (host.ElicitReply, error) {
	select {
	case p.events <- parkedEvent{question: q}:
	case <-ctx.Done():
		return host.ElicitReply{}, ctx.Err()
	}
	select {
	case r := <-p.answers:
		return r, nil
	case <-ctx.Done():
		return host.ElicitReply{}, ctx.Err()
	}
}
