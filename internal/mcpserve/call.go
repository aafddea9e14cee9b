package mcpserve

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/elicit"
	"github.com/toolroute/toolroute/registry"
	rcheck "github.com/toolroute/toolroute/registry/check"
	"github.com/toolroute/toolroute/registry/session"
)

// call runs a call of one of the client's tools, as host.ModelCalls
// decides it. A client that gave the call a progressToken gets the
// progress the tool reports (an MCP server's upstream, passed on); a
// client's notifications/cancelled ends ctx, and with it the tool's call.
func (c *client) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		ctx = host.WithProgress(ctx, func(p host.Progress) {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message})
		})
	}
	// An MCP server upstream that asks the user during the call asks this
	// client's user (Ask), through the request.
	ctx = host.WithAsker(context.WithValue(ctx, callKey{}, req), c)
	if req.ProtocolVersion() >= stateless && canElicit(req) {
		// Its answer comes with a call again (park.go).
		if res, ok, err := c.resumeParked(ctx, req.Params); ok {
			return res, err
		}
		return c.runParked(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) { return c.decide(ctx, req) })
	}
	return c.decide(ctx, req)
}

// decide runs the call as the module decides it: refused, run, or asked
// about first.
func (c *client) decide(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	mc, refused, err := c.calls.Check(ctx, req.Params.Name, req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	if refused != nil {
		return result(*refused), nil
	}
	if !mc.Ask {
		return result(c.calls.Run(ctx, mc)), nil
	}
	return c.approve(ctx, req, mc)
}

// approvalInput names the question in a 2026-07-28 input_required result.
const approvalInput = "approval"

// approve puts a call that asks first to the user through the client
// (form elicitation), and runs it if they allow it. A client that cannot
// ask gets a result that says how the user allows the tool.
func (c *client) approve(ctx context.Context, req *mcp.CallToolRequest, mc host.ModelCall) (*mcp.CallToolResult, error) {
	if !canElicit(req) {
		return result(noOneToAsk(mc)), nil
	}
	if req.ProtocolVersion() < stateless {
		// The server asks the client while the call waits.
		res, err := req.Session.Elicit(ctx, question(mc))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return result(registry.Failure("approval_failed", fmt.Sprintf(
				"toolroute could not ask the user whether '%s' may run (%v). It did not run.", mc.Tool, err))), nil
		}
		return result(c.calls.Answer(ctx, mc, answerOf(res))), nil
	}
	// From 2026-07-28 a server may not send requests of its own: the
	// result asks the client to put the question (input_required), and the
	// client calls again with the answer and the state it was given.
	if a, ok := c.answered(req.Params, mc); ok {
		return result(c.calls.Answer(ctx, mc, a)), nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: question(mc)},
		RequestState:  c.ask(mc),
	}, nil
}

// canElicit reports whether the client can put a form to the user:
// elicitation came with 2025-06-18, and the client must say it has it.
func canElicit(req *mcp.CallToolRequest) bool {
	if req.ProtocolVersion() < "2025-06-18" {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	// Neither form nor url declared means form, as before modes existed.
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// asked is a question a 2026-07-28 client was given to put to the user.
type asked struct {
	state string // the RequestState it was given
	tool  string
	input json.RawMessage
}

// maxAsked bounds the questions kept for clients that never call again.
const maxAsked = 32

// ask keeps a question for the client's call with the answer, and returns
// the state that call must bring back.
func (c *client) ask(mc host.ModelCall) string {
	state := rand.Text()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) == maxAsked {
		c.asked = c.asked[1:]
	}
	c.asked = append(c.asked, asked{state: state, tool: mc.Tool, input: mc.Input})
	return state
}

// answered takes the answer a 2026-07-28 client brings with its call
// again. Only a state toolroute gave, for this tool and these arguments,
// and only once, counts: a call that brings another is asked anew.
func (c *client) answered(p *mcp.CallToolParamsRaw, mc host.ModelCall) (session.Answer, bool) {
	if p.RequestState == "" {
		return "", false
	}
	c.mu.Lock()
	i := slices.IndexFunc(c.asked, func(a asked) bool { return a.state == p.RequestState })
	var a asked
	if i >= 0 {
		a = c.asked[i]
		c.asked = slices.Delete(c.asked, i, i+1)
	}
	c.mu.Unlock()
	if i < 0 || a.tool != mc.Tool || !bytes.Equal(a.input, mc.Input) {
		return "", false
	}
	res, ok := p.InputResponses[approvalInput].(*mcp.ElicitResult)
	if !ok {
		return session.AnswerDeny, true
	}
	return answerOf(res), true
}

// answerOf reads the user's answer: accept runs the call, once or, with
// "always" ticked, for the rest of the session; decline and cancel deny it.
func answerOf(res *mcp.ElicitResult) session.Answer {
	if res == nil || res.Action != "accept" {
		return session.AnswerDeny
	}
	if always, _ := res.Content["always"].(bool); always {
		return session.AnswerSession
	}
	return session.AnswerOnce
}

// question is the form that asks the user about a call.
func question(mc host.ModelCall) *mcp.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "The model wants to run %s", mc.Tool)
	if len(mc.RequiredPermissions) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(mc.RequiredPermissions, ", "))
	}
	fmt.Fprintf(&b, " with %s.", registry.Shorten(string(mc.Input), 600))
	if len(mc.Secrets) > 0 {
		fmt.Fprintf(&b, " It asks to read your secrets: %s. Allow it with them?", host.DescribeSecrets(mc.Secrets))
	} else {
		b.WriteString(" Allow it?")
	}
	type prop struct {
		Type    string `json:"type"`
		Title   string `json:"title"`
		Default bool   `json:"default"`
	}
	type form struct {
		Type       string          `json:"type"`
		Properties map[string]prop `json:"properties"`
	}
	schema, _ := json.Marshal(form{Type: "object", Properties: map[string]prop{
		"always": {Type: "boolean", Title: "Allow " + mc.Tool + " for the rest of this session", Default: false},
	}})
	return &mcp.ElicitParams{Mode: "form", Message: b.String(), RequestedSchema: json.RawMessage(schema)}
}

// noOneToAsk is the result of a call that asks first when the client
// cannot ask the user: what the user can do about it.
func noOneToAsk(mc host.ModelCall) registry.Result {
	if len(mc.Secrets) > 0 {
		return registry.Failure("approval_needed", fmt.Sprintf(
			"'%s' asked for secrets (%s), which only the user can grant when asked, and this MCP client cannot ask them (it does not support elicitation). It did not run. "+
				"Call it again without \"secrets\" if the work can be done without them, or tell the user.", mc.Tool, strings.Join(mc.Secrets, ", ")))
	}
	return registry.Failure("approval_needed", fmt.Sprintf(
		"'%s' asks the user before it runs, and this MCP client cannot ask them (it does not support elicitation). It did not run. "+
			"The user can allow it with: toolroute policy set tool %s allow", mc.Tool, mc.Tool))
}

// callKey holds the tools/call request a call's context runs.
type callKey struct{}

// Ask forwards an MCP server's question, asked during a call this client
// made, to the client, saying which server asks (host.Asker): as a
// request while the call waits, or from 2026-07-28 as the call's
// input_required result (park.go). A client that did not declare
// elicitation cannot be asked: the server is refused with why.
func (c *client) Ask(ctx context.Context, q host.Elicitation) (host.ElicitReply, error) {
	req, _ := ctx.Value(callKey{}).(*mcp.CallToolRequest)
	p, _ := ctx.Value(parkedKey{}).(*parked)
	if req == nil || req.Session == nil || !canElicit(req) || req.ProtocolVersion() >= stateless && p == nil {
		return host.ElicitReply{}, elicit.Refusal(ctx, q, rcheck.UnaskedClient, 0)
	}
	form, err := elicit.Read(ctx, q)
	if err != nil {
		return host.ElicitReply{}, err
	}
	// The form goes on as the server wrote it, its fields in their order.
	var sent struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(q.Params, &sent); err != nil {
		return host.ElicitReply{}, err
	}
	params := &mcp.ElicitParams{Mode: "form", Message: form.Asks + " " + form.Message}
	if len(sent.RequestedSchema) > 0 && string(sent.RequestedSchema) != "null" {
		params.RequestedSchema = sent.RequestedSchema
	}
	if p != nil {
		return askParked(ctx, p, params)
	}
	res, err := req.Session.Elicit(ctx, params)
	if err != nil {
		return host.ElicitReply{}, err
	}
	return host.ElicitReply{Action: res.Action, Content: res.Content}, nil
}
