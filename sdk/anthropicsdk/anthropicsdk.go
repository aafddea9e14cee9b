// Package anthropicsdk joins toolroute to Anthropic's official Go SDK
// (github.com/anthropics/anthropic-sdk-go): Provider sends toolroute's
// model calls through an SDK client, with its key, base URL, retries and
// middleware.
//
// A program that makes the calls in its own loop routes them through a
// host.Turn (Session.Start): Tools gives the turn's tools as the SDK's
// tool params, Reply gives the model's Message to the turn, and
// ToolResults gives the turn's results back as the user message of
// tool_result blocks that answers the model. Messages and Params give a
// session's log as the SDK's Messages API types.
package anthropicsdk

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Provider is a host.Provider that sends each model call through client to
// model, in Anthropic's Messages format. The request goes as toolroute
// built it (its anthropic-version and, with native routing, beta headers
// included); the client adds its key and headers, and retries as it is
// configured to before toolroute's own retries see the answer. opts are
// added to every call.
func Provider(client *anthropic.Client, model string, opts ...option.RequestOption) host.Provider {
	return &provider{client: client, model: model, opts: opts}
}

type provider struct {
	client *anthropic.Client
	model  string
	opts   []option.RequestOption
}

func (p *provider) Format() wire.Format { return wire.Anthropic }
func (p *provider) Model() string       { return p.model }

func (p *provider) Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	opts := append([]option.RequestOption{}, p.opts...)
	for _, k := range slices.Sorted(maps.Keys(req.Headers)) {
		opts = append(opts, option.WithHeader(k, req.Headers[k]))
	}
	var resp *http.Response
	// The SDK hands over the response unread when asked for it this way,
	// and also for an error status, after it keeps the body in its error.
	err := p.client.Post(ctx, strings.TrimPrefix(req.Path, "/"), []byte(req.Body), &resp, opts...)
	if resp != nil {
		return resp, nil
	}
	return nil, err
}

// Tools are tools as toolroute sends them in a Messages request.
func Tools(tools []registry.Tool) ([]anthropic.ToolUnionParam, error) {
	var out struct {
		Tools []anthropic.ToolUnionParam `json:"tools"`
	}
	if err := encode(wire.Request{Model: "-", Tools: session.ToolDefs(tools)}, &out); err != nil {
		return nil, err
	}
	return out.Tools, nil
}

// Messages are a session's log as a Messages request sends it: the system
// prompt's blocks (with the log's last summary, when compaction made one)
// and the messages, what toolroute's next classic model call would send.
func Messages(system string, log []session.Message) ([]anthropic.TextBlockParam, []anthropic.MessageParam, error) {
	system, conv := session.Conversation(system, log)
	var out struct {
		System   json.RawMessage          `json:"system"`
		Messages []anthropic.MessageParam `json:"messages"`
	}
	if err := encode(wire.Request{Model: "-", System: system, Messages: conv}, &out); err != nil {
		return nil, nil, err
	}
	var blocks []anthropic.TextBlockParam
	var text string
	switch {
	case len(out.System) == 0:
	case json.Unmarshal(out.System, &text) == nil:
		blocks = []anthropic.TextBlockParam{{Text: text}}
	default:
		if err := json.Unmarshal(out.System, &blocks); err != nil {
			return nil, nil, fmt.Errorf("anthropicsdk: the SDK's types do not take toolroute's system prompt: %w", err)
		}
	}
	return blocks, out.Messages, nil
}

// Params are the Messages API parameters of a session's next model call to
// model: its system prompt with the group listing, its history and the
// tools it would send (classic routing: the core tools and the groups its
// history loaded), from h's store and catalogue, with maxTokens. A program
// that makes the calls itself sends them with its client.
func Params(ctx context.Context, h *host.Host, sessionID, model string, maxTokens int64) (anthropic.MessageNewParams, error) {
	d, err := h.Describe(ctx, sessionID)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	log, err := h.Session(sessionID).Messages(ctx)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	system, msgs, err := Messages(d.SystemPrompt, log)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	tools, err := Tools(d.ActiveTools())
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: maxTokens, System: system, Messages: msgs, Tools: tools}, nil
}

// Reply is a Messages API reply as a reply for a host.Turn: its text
// blocks joined, its tool_use blocks in order, and the call's usage.
func Reply(m *anthropic.Message) host.ModelReply {
	var r host.ModelReply
	if m == nil {
		return r
	}
	var text strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			r.Calls = append(r.Calls, host.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	r.Text = text.String()
	if u := m.Usage; u.InputTokens > 0 || u.OutputTokens > 0 {
		r.Usage = &wire.Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens), CachedTokens: int(u.CacheReadInputTokens)}
	}
	return r
}

// ToolResults are a host.Turn's results as the user message that answers
// the model's tool_use blocks: a tool_result block each, under its call's
// id, in order, a failure's marked as an error.
func ToolResults(results []host.ToolResult) anthropic.MessageParam {
	blocks := make([]anthropic.ContentBlockParamUnion, len(results))
	for i, r := range results {
		blocks[i] = anthropic.NewToolResultBlock(r.ID, r.Content, r.ErrorType != "")
	}
	return anthropic.NewUserMessage(blocks...)
}

// encode builds r's Anthropic request body, as the module does, and reads
// it into out.
func encode(r wire.Request, out any) error {
	req, err := wire.Encode(wire.Anthropic, r)
	if err != nil {
		return fmt.Errorf("anthropicsdk: %w", err)
	}
	if err := json.Unmarshal(req.Body, out); err != nil {
		return fmt.Errorf("anthropicsdk: the SDK's types do not take toolroute's request: %w", err)
	}
	return nil
}
