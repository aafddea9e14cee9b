// Package session is the turn engine: the agent loop of one user turn as a
// state machine that does no I/O. A host feeds it events (the turn's start
// with the session's history, the model's response, the results of tool
// calls) and performs the actions it returns (call the model with this
// request, run these tools, append these messages to the log, the turn is
// done).
//
// The message log is the session's only state. The tool groups loaded in
// earlier turns are found again by scanning it (RFC-044), so a turn needs
// nothing but the log to continue a conversation, in any host and in any
// process. The log is provider-neutral: a session may switch between the
// wire formats (OpenAI, Anthropic, Responses, Gemini) from one turn to the
// next.
//
// The package keeps no clock, no randomness and no map order: the same events
// give the same actions, byte for byte.
package session

import (
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// MessageType says what a log message is.
type MessageType string

const (
	// User is the user's message.
	User MessageType = "user"
	// Assistant is the text of one model response, "" when the response only
	// called tools. The tool calls that follow it belong to that response.
	Assistant MessageType = "assistant"
	// ToolCall is one tool call of the response before it, logged once its
	// outcome is known, with that outcome's status.
	ToolCall MessageType = "tool_call"
	// ToolResult is what the model reads for a tool call.
	ToolResult MessageType = "tool_result"
	// ApprovalAnswer is the user's answer about a tool call that asked first:
	// Content is "once", "session" or "deny", Grant the secrets granted. The model never sees it; an
	// answer of "session" lets the tool run unasked for the rest of the
	// session, in this process or the next.
	ApprovalAnswer MessageType = "approval"
)

// Message is one entry of a session's message log.
type Message struct {
	Type MessageType `json:"type"`
	// Content is the user's or the model's text, or the text the model reads
	// for a tool result.
	Content string `json:"content,omitempty"`
	// Images are a tool result's pictures, sent beside Content where the
	// wire format carries them (Content names each with a placeholder).
	Images     []registry.Image `json:"images,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	// ToolInput is a tool call's arguments exactly as the model sent them:
	// JSON text, possibly malformed.
	ToolInput string `json:"tool_input,omitempty"`
	// Signature is an opaque token the provider sent with a tool call and
	// wants back with it (Gemini's thoughtSignature); the other formats
	// ignore it.
	Signature string `json:"signature,omitempty"`
	// Status is a tool call's or a tool result's outcome.
	Status registry.Status `json:"status,omitempty"`
	// ErrorType is a failed tool result's error type, such as "not_found".
	ErrorType string `json:"error_type,omitempty"`
	// Index is a tool call's position among its response's calls, so the
	// calls are sent back in the model's order whatever order they finished in.
	Index int `json:"index,omitempty"`
	// Grant is, on an approval, the secrets the user granted the call; with
	// "session" they stay granted to the tool for the rest of the session.
	Grant []string `json:"grant,omitempty"`
	// Usage is, on an assistant message, what its model call cost, as the
	// provider reported it: a session's usage is the sum over its log.
	Usage *wire.Usage `json:"usage,omitempty"`
	Time  time.Time   `json:"time,omitzero"`
}

// LoadedGroups scans a session's history for the tool groups loaded in it
// (RFC-044): the group_name of every load_tool_group call that succeeded, in
// the order first loaded, each once. Failed calls and calls whose input is not
// a JSON object with a string group_name are skipped. Whether each group still
// exists is for the caller to decide.
func LoadedGroups(history []Message) []string {
	var groups []string
	seen := map[string]bool{}
	for _, m := range history {
		if name, ok := loadedGroup(m); ok && !seen[name] {
			seen[name] = true
			groups = append(groups, name)
		}
	}
	return groups
}

// ActiveTools returns the tools a session's next model call starts with: the
// core tools and the tools of every group its history loaded that still
// exists, in load order.
func ActiveTools(reg *registry.Registry, history []Message) *registry.Active {
	active := reg.NewActive()
	for _, g := range LoadedGroups(history) {
		active.LoadGroup(g)
	}
	return active
}

// UsageOf sums the usage of a log's model calls (its assistant messages).
func UsageOf(log []Message) (total wire.Usage, calls int) {
	for _, m := range log {
		if m.Type == Assistant && m.Usage != nil {
			total.InputTokens += m.Usage.InputTokens
			total.OutputTokens += m.Usage.OutputTokens
			total.CachedTokens += m.Usage.CachedTokens
			calls++
		}
	}
	return total, calls
}
