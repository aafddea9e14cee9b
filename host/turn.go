package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// ownModel is the model a turn of the program's own loop names to the
// module when neither the session (WithModel), its agent nor a provider
// names one: the module needs a name, and reads it only to know which
// attached images the model can see.
const ownModel = "model"

// Turn is one turn of a session whose model calls the program makes in its
// own loop (with an SDK's client, say), while toolroute routes the tools
// as Send's turns do: Tools and SystemPrompt say what to offer the model
// on its next call, and Reply takes the model's reply and answers its
// tool calls. load_tool_group, unload_tool_group and search_tools work,
// the call of a tool whose group is not loaded is refused, arguments are
// checked, approval rules and the Approver apply, and every message is
// written to the session's log, so the session's next turn, Send's or
// another Turn's, continues from it.
//
// A Turn holds its session until Close: the session's other turns wait.
// Its methods are for one goroutine at a time.
type Turn struct {
	t   *turn
	end func()
	// tools and system are what the module's next model call would send.
	tools  []registry.Tool
	system string
	over   bool
	// failure is why the module ended the turn without an answer.
	failure *session.Failure
	// reply is the ModelReply being answered: its calls, and their
	// results as they are logged, by the call's place in the reply.
	reply   *ModelReply
	results []*ToolResult
	places  map[string]int
}

// ModelReply is what the model answered: its text, and the tools it
// called, in its order.
type ModelReply struct {
	Text  string
	Calls []ToolCall
	// Usage is what the model call cost, as the provider reported it,
	// for the log (Message.Usage); nil when unknown.
	Usage *wire.Usage
}

// ToolCall is one tool call of the model's reply.
type ToolCall struct {
	// ID is the call's id as the model gave it; "" when it gave none
	// (toolroute then names it in the log).
	ID string
	// Name is the tool called.
	Name string
	// Arguments are the call's arguments as the model sent them: a JSON
	// object as text ("" for none), checked against the tool's schema.
	Arguments string
}

// ToolResult is what the model reads of one of its tool calls.
type ToolResult struct {
	// ID is the call's id as the ModelReply gave it: send the result
	// back to the model under it.
	ID string
	// Tool is the tool called.
	Tool string
	// Content is the text the model reads: the tool's output, or for a
	// call that failed or was refused, "Error (TYPE): why".
	Content string
	// ErrorType is the failure's type ("tool_not_loaded",
	// "invalid_arguments", "denied", a tool's own), "" for a success.
	ErrorType string
	// Images are the result's pictures, for a format that sends them
	// beside Content (Content names each with a placeholder).
	Images []registry.Image
}

// TurnFailedError is Reply's error when the module ended the turn
// without letting the model answer: its model calls reached
// Options.MaxModelCalls, say. The messages stay in the log.
type TurnFailedError struct {
	Failure session.Failure
}

// Error is the module's sentence.
func (e *TurnFailedError) Error() string { return e.Failure.Message }

// Start begins a turn whose model calls the program makes itself: text
// (and files) is the user's message, logged at once. The Turn then gives
// the system prompt and tools of the model's first call. Close it when
// done, as its session's other turns wait for it.
//
// The turn is the session's as Send's would be (its agent, WithModel,
// Unattended, the host's approval rules and Approver), with these
// differences: no Provider is needed, the module never compacts the log
// (the program sends its own messages), and the session's tools are
// those of classic routing.
func (s *Session) Start(ctx context.Context, text string, files ...session.Attachment) (*Turn, error) {
	ot := &Turn{}
	t, end, err := s.open(ctx, ot.see, true)
	if err != nil {
		return nil, err
	}
	ot.t, ot.end = t, end
	ctx = s.withTurn(ctx, ot.see)
	acts, err := t.begin(ctx, text, files, false)
	if err == nil {
		err = ot.advance(ctx, acts)
	}
	if err == nil && ot.failure != nil {
		err = &TurnFailedError{Failure: *ot.failure}
	}
	if err != nil {
		ot.Close(ctx)
		return nil, err
	}
	return ot, nil
}

// Tools are the tools to offer the model on its next call, in order:
// load_tool_group (and search_tools, unload_tool_group when the host
// offers them), the tools with no group, and those of the groups the
// session loaded. They change as the model loads groups. None once the
// turn is over.
func (ot *Turn) Tools() []registry.Tool { return ot.tools }

// SystemPrompt is the system prompt of the model's next call: the host's
// (Options.SystemPrompt, or the session's agent's), its skills and
// memories, and the listing of the tool groups the model may load.
func (ot *Turn) SystemPrompt() string { return ot.system }

// Over reports whether the turn has ended: the model answered (a Reply
// without calls), the module ended it (Reply's *TurnFailedError), or it
// was closed.
func (ot *Turn) Over() bool { return ot.over }

// Reply hands toolroute the model's reply and returns what the model
// reads of each of its calls, in the reply's order: the meta-tools'
// answers, the refusals (a tool not loaded, bad arguments, a denied
// tool), and the results of the tools that ran (in parallel). Send them
// back to the model, each under its ID, then offer it Tools again. A
// reply without calls is the model's answer: it ends the turn.
//
// When the module ends the turn after the calls (MaxModelCalls reached),
// Reply returns the results and a *TurnFailedError. An error from ctx
// stops the turn as Send's does: the log says it was stopped.
func (ot *Turn) Reply(ctx context.Context, r ModelReply) ([]ToolResult, error) {
	if ot.over {
		return nil, errors.New("host: the turn is over: Start another for the next message")
	}
	body, err := replyBody(r)
	if err != nil {
		return nil, err
	}
	ot.reply, ot.results, ot.places = &r, make([]*ToolResult, len(r.Calls)), map[string]int{}
	defer func() { ot.reply = nil }()
	ctx = ot.t.s.withTurn(ctx, ot.see)
	acts, err := ot.t.event(ctx, session.Event{Type: session.EventResponse, Now: time.Now(), Body: body})
	if err == nil {
		err = ot.advance(ctx, acts)
	}
	if err != nil {
		if !ot.t.over && ctx.Err() != nil {
			ot.t.stop(context.WithoutCancel(ctx))
		}
		ot.finish()
		return nil, err
	}
	out := make([]ToolResult, 0, len(ot.results))
	for i, res := range ot.results {
		if res == nil {
			// The module ended the turn before answering the call.
			continue
		}
		res.ID = r.Calls[i].ID
		out = append(out, *res)
	}
	if ot.failure != nil {
		return out, &TurnFailedError{Failure: *ot.failure}
	}
	return out, nil
}

// Close ends the turn and lets its session go. A turn the model has not
// answered is stopped first, as Send's turn is when its context ends: the
// log says so, and the session's next turn continues from it. Closing a
// turn that is over does nothing.
func (ot *Turn) Close(ctx context.Context) error {
	if ot.end == nil {
		return nil
	}
	if !ot.t.over {
		ot.t.stop(context.WithoutCancel(ctx))
	}
	ot.finish()
	return nil
}

// finish lets go of what the turn holds.
func (ot *Turn) finish() {
	ot.over, ot.tools, ot.system = true, nil, ""
	if ot.end != nil {
		ot.end()
		ot.end = nil
	}
}

// advance performs the module's actions (storing messages, running tools,
// asking approval) until it asks for the next model call, whose request
// gives the tools and system prompt, or ends the turn.
func (ot *Turn) advance(ctx context.Context, acts []session.Action) error {
	t := ot.t
	for {
		next, err := t.perform(ctx, acts)
		if err != nil {
			return err
		}
		if next == nil {
			if !t.over {
				return errors.New("host: the module asked for nothing more and did not end the turn")
			}
			ot.finish()
			return nil
		}
		switch next.Type {
		case session.ActionCallModel:
			body, err := t.mt.Body(ctx)
			if err != nil {
				return fmt.Errorf("host: taking the request body: %w", err)
			}
			if next.Request.Compaction {
				// Not asked for (ownContextLimit); should it come, a
				// summary with no text leaves the log uncompacted and the
				// turn goes on.
				acts, err = t.event(ctx, session.Event{Type: session.EventResponse, Now: time.Now(),
					Body: []byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`)})
				if err != nil {
					return err
				}
				continue
			}
			return ot.offer(body)
		case session.ActionRunTools:
			acts, err = t.runTools(ctx, next.Calls)
		case session.ActionAskApproval:
			acts, err = t.askApproval(ctx, next.Calls)
		}
		if err != nil {
			return err
		}
	}
}

// offer reads the system prompt and the tools of the module's request
// for the next model call (Chat Completions' form).
func (ot *Turn) offer(body []byte) error {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return fmt.Errorf("host: reading the module's request: %w", err)
	}
	ot.system = ""
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		json.Unmarshal(req.Messages[0].Content, &ot.system)
	}
	ot.tools = make([]registry.Tool, len(req.Tools))
	for i, tool := range req.Tools {
		f := tool.Function
		ot.tools[i] = registry.Tool{Name: f.Name, Description: f.Description, Parameters: f.Parameters}
	}
	return nil
}

// see takes the turn's events: the results of the reply's calls, and why
// the turn failed.
func (ot *Turn) see(ev Event) bool {
	switch ev.Type {
	case EventFailed:
		ot.failure = ev.Failure
	case EventMessage:
		if ot.reply == nil {
			break
		}
		m := ev.Message
		switch m.Type {
		case session.ToolCall:
			if m.Index >= 0 && m.Index < len(ot.results) {
				ot.places[m.ToolCallID] = m.Index
			}
		case session.ToolResult:
			i, ok := ot.places[m.ToolCallID]
			if !ok || ot.results[i] != nil {
				break
			}
			res := &ToolResult{Tool: m.ToolName, Content: m.Content, Images: m.Images}
			if m.Status != registry.StatusSuccess {
				res.ErrorType = m.ErrorType
				if res.ErrorType == "" {
					res.ErrorType = string(m.Status)
				}
			}
			ot.results[i] = res
		}
	}
	return true
}

// replyBody is the model's reply as a Chat Completions response, the form
// the module reads for a turn of the program's own loop.
func replyBody(r ModelReply) ([]byte, error) {
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string   `json:"id,omitempty"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	type usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		Details          struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
	msg := struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []call `json:"tool_calls,omitempty"`
	}{Role: "assistant", Content: r.Text}
	finish := "stop"
	for _, c := range r.Calls {
		if c.Name == "" {
			return nil, errors.New("host: a tool call of the reply has no name: give each call the tool's name the model sent")
		}
		msg.ToolCalls = append(msg.ToolCalls, call{ID: c.ID, Type: "function", Function: function{Name: c.Name, Arguments: c.Arguments}})
		finish = "tool_calls"
	}
	type choice struct {
		Index        int    `json:"index"`
		Message      any    `json:"message"`
		FinishReason string `json:"finish_reason"`
	}
	resp := struct {
		Choices []choice `json:"choices"`
		Usage   *usage   `json:"usage,omitempty"`
	}{Choices: []choice{{Message: msg, FinishReason: finish}}}
	if r.Usage != nil {
		u := &usage{PromptTokens: r.Usage.InputTokens, CompletionTokens: r.Usage.OutputTokens}
		u.Details.CachedTokens = r.Usage.CachedTokens
		resp.Usage = u
	}
	return json.Marshal(resp)
}
