// Package elicit asks the module about an MCP server's question for the
// user (elicitation/create): the fields to put to them, whether a value
// they give will do, the answer to send with its defaults, and why a
// server was refused. The hosts that ask (the terminal chat, serve's page,
// toolroute mcp's client) and host/mcp, which sends the answer, use it, so
// that every rule and sentence is the module's (toolroute_check's
// elicitation op, wasm/ABI.md).
package elicit

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/check"
)

// Read is what to put to the user of q: who asks, the message and the
// fields. A question toolroute will not ask (a malformed form, a URL) is
// a *module.Refused saying why, which the server gets as its error.
func Read(ctx context.Context, q host.Elicitation) (check.ElicitQuestion, error) {
	var out check.ElicitQuestion
	err := module.CheckArgs(ctx, "elicitation", check.Elicitation{Server: q.Server, Params: q.Params}, &out)
	return out, err
}

// Field checks one field's value as the user gave it (a string they
// typed, or a typed value): the value to send (nil for none), or the
// sentence to show them before asking again (msg).
func Field(ctx context.Context, q host.Elicitation, name string, value any) (v any, msg string, err error) {
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, "", err
	}
	var out check.ElicitResult
	err = module.CheckArgs(ctx, "elicitation", check.Elicitation{Server: q.Server, Params: q.Params, Field: name,
		Answer: &check.ElicitAnswer{Action: "accept", Content: map[string]json.RawMessage{name: raw}}}, &out)
	var refused *module.Refused
	if errors.As(err, &refused) {
		return nil, refused.Message, nil
	}
	if err != nil {
		return nil, "", err
	}
	return out.Content[name], "", nil
}

// Reply checks the user's answer: the answer to send the server (for
// accept, the values typed, with the defaults of those not given), or a
// *module.Refused whose message says which value will not do.
func Reply(ctx context.Context, q host.Elicitation, r host.ElicitReply) (host.ElicitReply, error) {
	a := &check.ElicitAnswer{Action: r.Action}
	if r.Action == "accept" {
		a.Content = map[string]json.RawMessage{}
		for k, v := range r.Content {
			raw, err := json.Marshal(v)
			if err != nil {
				return host.ElicitReply{}, err
			}
			a.Content[k] = raw
		}
	}
	var out check.ElicitResult
	if err := module.CheckArgs(ctx, "elicitation", check.Elicitation{Server: q.Server, Params: q.Params, Answer: a}, &out); err != nil {
		return host.ElicitReply{}, err
	}
	return host.ElicitReply{Action: out.Action, Content: out.Content, Said: out.Said}, nil
}

// Refusal is why q was put to no one (check.UnaskedNobody...), in the
// module's words, as an error the server gets. ctx's checker asks; without
// one, the error says only that it was refused.
func Refusal(ctx context.Context, q host.Elicitation, why string, timeoutSeconds int) error {
	err := module.CheckArgs(ctx, "elicitation", check.Elicitation{Server: q.Server, Params: q.Params, Unasked: why, TimeoutSeconds: timeoutSeconds}, nil)
	if err == nil {
		err = errors.New("toolroute refused the question")
	}
	return err
}
