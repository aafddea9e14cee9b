package host

import (
	"context"
	"encoding/json"
)

// Elicitation is an MCP server's question for the user (elicitation/create),
// sent while one of its tools ran: the server's key and the request's
// params as it sent them (a message and a form). The module reads it
// (toolroute_check's elicitation op) into the fields to ask.
type Elicitation struct {
	Server string
	Params json.RawMessage
	// CallID is the model's id of the call the question is for, when the
	// host knows it (CallIDFrom): a page shows the question at that call's
	// card, and the answer is logged on its result.
	CallID string
}

// ElicitReply is the user's answer: Action is accept (with Content, the
// values by field name), decline or cancel.
type ElicitReply struct {
	Action  string
	Content map[string]any
	// Said is the answer as the user reads it back, the module's sentence
	// (internal/elicit.Reply sets it): the call's result keeps it
	// (Output.Asked).
	Said string
}

// Asker puts an MCP server's question to the user of the call it came
// during: the terminal chat, the page, or toolroute mcp's own client. Ask
// blocks until the user answers or ctx ends; an error is sent to the
// server as the request's failure. An Asker is compared with == (to tell
// whether several calls belong to one chat), so it is a pointer or another
// comparable value.
type Asker interface {
	Ask(ctx context.Context, q Elicitation) (ElicitReply, error)
}

type askerKey struct{}

// WithAsker returns a context whose tool calls put an MCP server's
// questions to a: a chat gives its turns one. Without an Asker, a server
// that asks is refused, with a message saying no one is there to answer.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerFrom returns the Asker of the call ctx belongs to, nil when no one
// can be asked.
func AskerFrom(ctx context.Context) Asker {
	a, _ := ctx.Value(askerKey{}).(Asker)
	return a
}

type callIDKey struct{}

// WithCallID returns a context for running the call whose id (the
// model's) is id: the host gives each native tool's call one, and a
// program that runs a native tool itself may.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallIDFrom returns the model's id of the tool call ctx runs, "" outside
// one: a host-native tool (an MCP server's) reads it to say which call a
// question is for.
func CallIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}
