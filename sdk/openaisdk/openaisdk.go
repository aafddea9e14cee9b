// Package openaisdk joins toolroute to OpenAI's official Go SDK
// (github.com/openai/openai-go): Provider sends toolroute's model calls
// through an SDK client, with its key, base URL, retries and middleware.
//
// A program that makes the calls in its own loop routes them through a
// host.Turn (Session.Start): Tools gives the turn's tools as the SDK's
// tool params, Reply gives a Chat Completion to the turn, and
// ToolMessages gives the turn's results back as the tool messages that
// answer the model (ExampleReply). Messages and Params give a session's
// log as the SDK's messages.
package openaisdk

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Provider is a host.Provider that sends each model call through client to
// model, in format: wire.OpenAI for Chat Completions (OpenAI, or any
// server the client's base URL names) or wire.Responses for the Responses
// API. The request goes as toolroute built it; the client adds its key and
// headers, and retries as it is configured to before toolroute's own
// retries see the answer. opts are added to every call.
func Provider(client *openai.Client, model string, format wire.Format, opts ...option.RequestOption) host.Provider {
	return &provider{client: client, model: model, format: format, opts: opts}
}

type provider struct {
	client *openai.Client
	model  string
	format wire.Format
	opts   []option.RequestOption
}

func (p *provider) Format() wire.Format { return p.format }
func (p *provider) Model() string       { return p.model }

func (p *provider) Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	if p.format != wire.OpenAI && p.format != wire.Responses {
		return nil, fmt.Errorf("openaisdk: format %q is not one the OpenAI SDK speaks: use wire.OpenAI or wire.Responses", p.format)
	}
	opts := append([]option.RequestOption{}, p.opts...)
	for _, k := range sortedKeys(req.Headers) {
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

// Tools are tools as toolroute sends them in a Chat Completions request.
func Tools(tools []registry.Tool) ([]openai.ChatCompletionToolUnionParam, error) {
	var out struct {
		Tools []openai.ChatCompletionToolUnionParam `json:"tools"`
	}
	if err := encode(wire.Request{Model: "-", Tools: session.ToolDefs(tools)}, &out); err != nil {
		return nil, err
	}
	return out.Tools, nil
}

// Messages are a session's log as a Chat Completions request sends it,
// the system prompt first (with the log's last summary, when compaction
// made one): what toolroute's next classic model call would send.
func Messages(system string, log []session.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	system, conv := session.Conversation(system, log)
	var out struct {
		Messages []openai.ChatCompletionMessageParamUnion `json:"messages"`
	}
	if err := encode(wire.Request{Model: "-", System: system, Messages: conv}, &out); err != nil {
		return nil, err
	}
	return out.Messages, nil
}

// Params are the Chat Completions parameters of a session's next model
// call to model: its system prompt with the group listing, its history and
// the tools it would send (classic routing: the core tools and the groups
// its history loaded), from h's store and catalogue. A program that makes
// the calls itself sends them with its client.
func Params(ctx context.Context, h *host.Host, sessionID, model string) (openai.ChatCompletionNewParams, error) {
	d, err := h.Describe(ctx, sessionID)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	log, err := h.Session(sessionID).Messages(ctx)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	msgs, err := Messages(d.SystemPrompt, log)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	tools, err := Tools(d.ActiveTools())
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	return openai.ChatCompletionNewParams{Model: model, Messages: msgs, Tools: tools}, nil
}

// Reply is a Chat Completion's first choice as a reply for a host.Turn:
// its text, its function calls in order, and the call's usage.
func Reply(c *openai.ChatCompletion) host.ModelReply {
	var r host.ModelReply
	if c == nil || len(c.Choices) == 0 {
		return r
	}
	m := c.Choices[0].Message
	r.Text = m.Content
	for _, tc := range m.ToolCalls {
		r.Calls = append(r.Calls, host.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	if u := c.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		r.Usage = &wire.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
			CachedTokens: int(u.PromptTokensDetails.CachedTokens)}
	}
	return r
}

// ToolMessages are a host.Turn's results as the tool messages that answer
// the model's calls, each under its call's id, in order.
func ToolMessages(results []host.ToolResult) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, len(results))
	for i, r := range results {
		out[i] = openai.ToolMessage(r.Content, r.ID)
	}
	return out
}

// encode builds r's OpenAI request body, as the module does, and reads it
// into out.
func encode(r wire.Request, out any) error {
	req, err := wire.Encode(wire.OpenAI, r)
	if err != nil {
		return fmt.Errorf("openaisdk: %w", err)
	}
	if err := json.Unmarshal(req.Body, out); err != nil {
		return fmt.Errorf("openaisdk: the SDK's types do not take toolroute's request: %w", err)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
