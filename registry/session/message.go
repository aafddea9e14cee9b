// Package session is the turn engine: the agent loop of one user turn as a
// state machine that does no I/O. A host feeds it events (the turn's start
// with the session's history, the model's response, the results of tool
// calls) and performs the actions it returns (call the model with this
// request, run these tools, append these messages to the log, the turn is
// done).
//
// The message log is the session's only state. The tool groups loaded in
// earlier turns are found again by scanning it (docs/reference/routing.md), so a turn needs
// nothing but the log to continue a conversation, in any host and in any
// process. The log is provider-neutral: a session may switch between the
// wire formats (OpenAI, Anthropic, Responses, Gemini) from one turn to the
// next.
//
// The package keeps no clock, no randomness and no map order: the same events
// give the same actions, byte for byte.
package session

import (
	"bytes"
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
	// Summary is a compaction: Content summarises the log before it but its
	// last Keep messages, which the model calls after it send verbatim
	// after the summary. The log keeps every message it summarises.
	Summary MessageType = "summary"
	// TurnEnd is the end of a turn that ended without its answer: failed
	// (ErrorType the failure's code, such as "model_error") or stopped
	// by the user (ErrorType "stopped"), Content what the user reads of
	// it. A turn that answers ends with its assistant message instead.
	// The model never sees it: it keeps the log what a reader shows.
	TurnEnd MessageType = "turn_end"
)

// Message is one entry of a session's message log.
type Message struct {
	Type MessageType `json:"type"`
	// Content is the user's or the model's text, or the text the model reads
	// for a tool result.
	Content string `json:"content,omitempty"`
	// Images are a tool result's pictures, sent beside Content where the
	// wire format carries them (Content names each with a placeholder).
	Images []registry.Image `json:"images,omitempty"`
	// Documents are a tool result's PDFs, sent beside Content where the
	// wire format carries them (Content names each with a placeholder).
	Documents []registry.Document `json:"documents,omitempty"`
	// Attachments are the files attached to a user message, as AttachFiles
	// keeps them: images the model sees, text files it reads after Content.
	Attachments []Attachment `json:"attachments,omitempty"`
	ToolCallID  string       `json:"tool_call_id,omitempty"`
	ToolName    string       `json:"tool_name,omitempty"`
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
	// Loaded is, on the tool_call of a search_tools call that succeeded,
	// the tools it found and loaded: a tool-level load, restored from the
	// log like a group load.
	Loaded []string `json:"loaded,omitempty"`
	// Unloaded is, on the tool_call of a load that passed the tool budget
	// or of unload_tool_group, the tools it took off the list; restored
	// from the log like the loads.
	Unloaded []string `json:"unloaded,omitempty"`
	// Asked is, on a tool result, what the user answered the questions
	// the tool's MCP server asked during the call (registry.Result.Asked).
	Asked []string `json:"asked,omitempty"`
	// Keep is, on a summary, how many of the messages before it are sent
	// after it as they are.
	Keep int `json:"keep,omitempty"`
	// Usage is, on an assistant message, what its model call cost, as the
	// provider reported it: a session's usage is the sum over its log.
	Usage *wire.Usage `json:"usage,omitempty"`
	Time  time.Time   `json:"time,omitzero"`
}

// LoadedGroups scans a session's history for the tool groups loaded in it
// (docs/reference/routing.md): the group_name of every load_tool_group call that succeeded, in
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
// core tools and the tools its history loaded that still exist, in load
// order: every group of LoadedGroups, and each tool a search_tools call
// loaded (its Loaded), less those a load or unload_tool_group unloaded (its
// Unloaded).
func ActiveTools(reg *registry.Registry, history []Message) *registry.Active {
	var loads []load
	for _, m := range history {
		loads = appendLoad(loads, m)
	}
	return replay(reg, loads)
}

// ActiveToolsJSON is ActiveTools of a history given as JSON, an array of
// messages (null for none), read one message at a time rather than
// decoded whole: what a long history costs is its text. The error is
// json.Unmarshal's for JSON that is no array of messages.
func ActiveToolsJSON(reg *registry.Registry, history []byte) (*registry.Active, error) {
	var loads []load
	if t := bytes.TrimSpace(history); len(t) == 0 || string(t) == "null" {
		return replay(reg, nil), nil
	}
	_, err := eachMessage(history, 0, func(m *Message) {
		loads = appendLoad(loads, *m)
	})
	if err != nil {
		return nil, err
	}
	return replay(reg, loads), nil
}

// load is what one logged call did to the active tools: loaded a group,
// loaded tools, and unloaded tools, in that order.
type load struct {
	group    string
	tools    []string
	unloaded []string
}

// appendLoad adds what m did to the active tools, if anything.
func appendLoad(loads []load, m Message) []load {
	if m.Type != ToolCall || m.Status != registry.StatusSuccess {
		return loads
	}
	var l load
	switch {
	case m.ToolName == registry.SearchToolsName:
		l.tools = m.Loaded
	case m.ToolName == registry.LoadToolGroupName:
		l.group, _ = loadedGroup(m)
	}
	l.unloaded = m.Unloaded
	if l.group == "" && len(l.tools) == 0 && len(l.unloaded) == 0 {
		return loads
	}
	return append(loads, l)
}

// replay makes the active tools of reg that loads leave.
func replay(reg *registry.Registry, loads []load) *registry.Active {
	active := reg.NewActive()
	for _, l := range loads {
		if l.group != "" {
			active.LoadGroup(l.group)
		}
		active.LoadTools(l.tools)
		active.Unload(l.unloaded)
	}
	return active
}

// UsageOf sums the usage of a log's model calls (its assistant messages,
// and the summaries of its compactions).
func UsageOf(log []Message) (total wire.Usage, calls int) {
	for _, m := range log {
		if (m.Type == Assistant || m.Type == Summary) && m.Usage != nil {
			total.InputTokens += m.Usage.InputTokens
			total.OutputTokens += m.Usage.OutputTokens
			total.CachedTokens += m.Usage.CachedTokens
			calls++
		}
	}
	return total, calls
}
