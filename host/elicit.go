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
