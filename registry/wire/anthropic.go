package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// The Anthropic Messages request and response, as far as toolroute uses them
// (docs.anthropic.com/en/api/messages and .../messages-streaming).

// AnthropicVersion is the anthropic-version header sent with every request.
const AnthropicVersion = "2023-06-01"

type anRequest struct {
	Model       string      `json:"model"`
	MaxTokens   int         `json:"max_tokens"`
	System      []anBlock   `json:"system,omitempty"`
	Messages    []anMessage `json:"messages"`
	Tools       any         `json:"tools,omitempty"` // []anTool, or its JSON
	Stream      bool        `json:"stream,omitempty"`
	Temperature *float64    `json:"temperature,omitempty"`
}

type anMessage struct {
	Role    string    `json:"role"`
	Content []anBlock `json:"content"`
}

// anBlock is a request content block: text, tool_use, tool_result or
// image (in a user message or inside a tool_result).
type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   []anBlock       `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Source    *anSource       `json:"source,omitempty"`
	// Title is a document block's: what the document is called.
	Title string `json:"title,omitempty"`
	// ToolName is a tool_reference block's: a deferred tool it loads.
	ToolName     string   `json:"tool_name,omitempty"`
	CacheControl *anCache `json:"cache_control,omitempty"`
}

// anCache is a prompt-caching breakpoint: the prefix up to and including
// its block is cached (docs.anthropic.com, "Prompt caching").
type anCache struct {
	Type string `json:"type"` // "ephemeral"
}

var ephemeral = &anCache{Type: "ephemeral"}

// anSource is an image block's picture or a document block's PDF, inline.
type anSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// DeferLoading keeps the tool out of the model's context until a
	// tool_reference names it.
	DeferLoading bool     `json:"defer_loading,omitempty"`
	CacheControl *anCache `json:"cache_control,omitempty"`
}

func encodeAnthropic(r Request, c *Conv) (HTTPRequest, error) {
	// The system prompt and tool results go as text blocks, the form the
	// official SDK's types use (the API also takes plain strings).
	req := anRequest{Model: r.Model, MaxTokens: r.MaxTokens, Stream: r.Stream, Temperature: r.Temperature}
	if r.System != "" {
		req.System = []anBlock{{Type: "text", Text: r.System}}
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = DefaultMaxTokens
	}
	if !c.empty() && c.anOpen != nil {
		// The open message is copied: the tail's blocks and the cache
		// breakpoint must not reach the one the Conv keeps.
		open := *c.anOpen
		open.Content = append([]anBlock(nil), open.Content...)
		req.Messages = []anMessage{open}
	}
	for _, m := range r.Messages {
		var err error
		if req.Messages, err = anAppend(req.Messages, m); err != nil {
			return HTTPRequest{}, err
		}
	}
	n := len(r.Tools)
	for _, g := range r.Deferred {
		n += len(g.Tools)
	}
	var err error
	req.Tools, err = c.toolsValue(r, n, func() any {
		var tools []anTool
		for _, t := range r.Tools {
			tools = append(tools, anTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
		}
		if core := len(r.Tools); core > 0 {
			// The first breakpoint (placeBreakpoints).
			tools[core-1].CacheControl = ephemeral
		}
		for _, g := range r.Deferred {
			for _, t := range g.Tools {
				tools = append(tools, anTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters, DeferLoading: true})
			}
		}
		return tools
	})
	if err != nil {
		return HTTPRequest{}, err
	}
	placeBreakpoints(&req)
	body, err := marshal(req)
	if err != nil {
		return HTTPRequest{}, err
	}
	if !c.empty() && len(c.final) > 0 {
		body = c.splice(body, "messages", c.final)
	}
	return HTTPRequest{
		Path:    "/v1/messages",
		Headers: map[string]string{"anthropic-version": AnthropicVersion, "content-type": "application/json"},
		Body:    body,
	}, nil
}

// anAppend adds one message to an Anthropic conversation. Anthropic wants
// strictly alternating user and assistant turns, starting with the user: a
// message of the same role as the one before is merged into it, tool
// results first as the API requires. Only the last message of out changes.
func anAppend(out []anMessage, m Message) ([]anMessage, error) {
	add := func(role string, blocks []anBlock) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			last := &out[n-1]
			if role == "user" && blocks[0].Type == "tool_result" {
				last.Content = append(blocks, last.Content...)
			} else {
				last.Content = append(last.Content, blocks...)
			}
			return
		}
		if len(out) == 0 && role != "user" {
			return
		}
		out = append(out, anMessage{Role: role, Content: blocks})
	}
	switch m.Role {
	case RoleUser:
		// Images first: Anthropic's advice for a message with both.
		var blocks []anBlock
		for _, img := range m.Images {
			blocks = append(blocks, anBlock{Type: "image", Source: &anSource{Type: "base64", MediaType: img.MIMEType, Data: img.Data}})
		}
		if m.Text != "" {
			blocks = append(blocks, anBlock{Type: "text", Text: m.Text})
		}
		if len(blocks) > 0 {
			add("user", blocks)
		}
	case RoleAssistant:
		var blocks []anBlock
		if strings.TrimSpace(m.Text) != "" {
			blocks = append(blocks, anBlock{Type: "text", Text: m.Text})
		}
		for _, c := range m.Calls {
			blocks = append(blocks, anBlock{Type: "tool_use", ID: toolUseID(c.ID), Name: c.Name, Input: inputObject(c.Input)})
		}
		add("assistant", blocks)
	case RoleTool:
		var blocks []anBlock
		for _, res := range m.Results {
			b := anBlock{Type: "tool_result", ToolUseID: toolUseID(res.CallID), IsError: res.IsError}
			if res.Content != "" {
				b.Content = []anBlock{{Type: "text", Text: res.Content}}
			}
			for _, img := range res.Images {
				b.Content = append(b.Content, anBlock{Type: "image", Source: &anSource{Type: "base64", MediaType: img.MIMEType, Data: img.Data}})
			}
			// A tool_result's content takes document blocks beside text
			// and images.
			for _, d := range res.Documents {
				b.Content = append(b.Content, anBlock{Type: "document", Source: &anSource{Type: "base64", MediaType: d.MIMEType, Data: d.Data}, Title: d.Name})
			}
			if res.Loaded != nil {
				for _, t := range res.Loaded.Tools {
					b.Content = append(b.Content, anBlock{Type: "tool_reference", ToolName: t.Name})
				}
			}
			blocks = append(blocks, b)
		}
		add("user", blocks)
	default:
		return out, fmt.Errorf("wire: message role %q is not user, assistant or tool", m.Role)
	}
	return out, nil
}

// placeBreakpoints marks the three cache breakpoints, in the order
// Anthropic caches a request (tools, system, messages): the last of the
// tools sent into the context (the core tools; deferred ones come after
// and are not in the context until loaded), the system prompt's end, and
// the conversation's last block. A load in native mode adds to the
// conversation only, so the first two never move and the third is where
// the next call's prefix ends; in classic mode a load appends tools after
// the first, so the tools prefix still hits. Three of the four the API
// allows, the same in every call: the bytes before the last block are
// the previous call's. The tools' is set as they are built, the others
// here.
func placeBreakpoints(req *anRequest) {
	if len(req.System) > 0 {
		req.System[len(req.System)-1].CacheControl = ephemeral
	}
	if n := len(req.Messages); n > 0 {
		last := req.Messages[n-1].Content
		last[len(last)-1].CacheControl = ephemeral
	}
}

// inputObject is a call's input as the JSON object Anthropic requires: the
// model's arguments when they are one, else {} (arguments another format's
// model sent malformed, or nested past jsondec.MaxDepth, which the turn
// refused: the request then nests no deeper than what the module reads).
func inputObject(input string) json.RawMessage {
	var obj map[string]json.RawMessage
	if jsondec.CheckDepthString(input) != nil || json.Unmarshal([]byte(input), &obj) != nil || obj == nil {
		return json.RawMessage(`{}`)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(input)) != nil {
		return json.RawMessage(`{}`)
	}
	return buf.Bytes()
}

// toolUseID makes a call id fit Anthropic's ^[a-zA-Z0-9_-]+$, for ids another
// format's model made.
func toolUseID(id string) string {
	if id == "" {
		return "_"
	}
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

type anResponseBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anUsage struct {
	InputTokens          int `json:"input_tokens"`
	OutputTokens         int `json:"output_tokens"`
	CacheReadInputTokens int `json:"cache_read_input_tokens"`
}

func (u anUsage) usage() Usage {
	return Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CacheReadInputTokens}
}

type anResponse struct {
	Type       string            `json:"type"`
	Content    []anResponseBlock `json:"content"`
	StopReason string            `json:"stop_reason"`
	Usage      anUsage           `json:"usage"`
}

func decodeAnthropic(body []byte) (Response, error) {
	var r anResponse
	if err := unmarshalANResponse(body, &r); err != nil {
		return Response{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return r.response(body)
}

// response is the Response of r, read from body.
func (r *anResponse) response(body []byte) (Response, error) {
	if r.Type == "error" {
		return Response{}, fmt.Errorf("%w: %s", ErrProvider, providerMessage(body))
	}
	if r.Type != "message" {
		return Response{}, fmt.Errorf("%w: response type is %q, not \"message\"", ErrBadResponse, r.Type)
	}
	out := Response{StopReason: r.StopReason, Usage: r.Usage.usage()}
	var text strings.Builder
	for _, b := range r.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			out.Calls = append(out.Calls, Call{ID: b.ID, Name: b.Name, Input: compactInput(b.Input)})
		}
	}
	out.Text = text.String()
	return out, nil
}

func compactInput(raw json.RawMessage) string {
	var buf bytes.Buffer
	if len(raw) == 0 || json.Compact(&buf, raw) != nil {
		return "{}"
	}
	return buf.String()
}

// anEvent is one streamed event's data.
type anEvent struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`
	ContentBlock anResponseBlock `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Message struct {
		Usage anUsage `json:"usage"`
	} `json:"message"`
	Usage *anUsage `json:"usage"`
}

type anStreamBlock struct {
	kind    string
	call    Call
	json    strings.Builder
	started json.RawMessage
}

// anStream assembles a streamed Anthropic response from its content blocks.
type anStream struct {
	resp    Response
	text    strings.Builder
	blocks  []*anStreamBlock
	byIndex map[int]*anStreamBlock
	stopped bool
}

func (s *anStream) event(name, data string) ([]string, error) {
	var e anEvent
	if err := unmarshalANEvent([]byte(data), &e); err != nil {
		return nil, fmt.Errorf("%w: stream event %q is not JSON: %v", ErrBadResponse, name, err)
	}
	if e.Type == "" {
		e.Type = name
	}
	if s.byIndex == nil {
		s.byIndex = map[int]*anStreamBlock{}
	}
	switch e.Type {
	case "error":
		return nil, fmt.Errorf("%w: %s", ErrProvider, providerMessage([]byte(data)))
	case "message_start":
		s.resp.Usage = e.Message.Usage.usage()
	case "content_block_start":
		b := &anStreamBlock{kind: e.ContentBlock.Type}
		if b.kind == "tool_use" {
			b.call = Call{ID: e.ContentBlock.ID, Name: e.ContentBlock.Name}
			b.started = e.ContentBlock.Input
		}
		if b.kind == "text" && e.ContentBlock.Text != "" {
			s.text.WriteString(e.ContentBlock.Text)
			s.byIndex[e.Index] = b
			s.blocks = append(s.blocks, b)
			return []string{e.ContentBlock.Text}, nil
		}
		s.byIndex[e.Index] = b
		s.blocks = append(s.blocks, b)
	case "content_block_delta":
		b, ok := s.byIndex[e.Index]
		if !ok {
			return nil, fmt.Errorf("%w: content_block_delta for block %d, which never started", ErrBadResponse, e.Index)
		}
		switch e.Delta.Type {
		case "text_delta":
			if e.Delta.Text != "" {
				s.text.WriteString(e.Delta.Text)
				return []string{e.Delta.Text}, nil
			}
		case "input_json_delta":
			b.json.WriteString(e.Delta.PartialJSON)
		}
	case "message_delta":
		if e.Delta.StopReason != "" {
			s.resp.StopReason = e.Delta.StopReason
			s.stopped = true
		}
		if e.Usage != nil {
			s.resp.Usage.OutputTokens = e.Usage.OutputTokens
			if e.Usage.InputTokens > 0 {
				s.resp.Usage.InputTokens = e.Usage.InputTokens
			}
			if e.Usage.CacheReadInputTokens > 0 {
				s.resp.Usage.CachedTokens = e.Usage.CacheReadInputTokens
			}
		}
	case "message_stop":
		s.stopped = true
	}
	return nil, nil
}

func (s *anStream) close() (Response, error) {
	if !s.stopped {
		return Response{}, fmt.Errorf("%w: the stream ended before the message did (no message_stop)", ErrBadResponse)
	}
	for _, b := range s.blocks {
		if b.kind != "tool_use" {
			continue
		}
		// The first input_json_delta may be empty, and a call without
		// arguments may have none at all: then the input is the one the block
		// started with, {}.
		if s := strings.TrimSpace(b.json.String()); s != "" {
			b.call.Input = s
		} else {
			b.call.Input = compactInput(b.started)
		}
		s.resp.Calls = append(s.resp.Calls, b.call)
	}
	s.resp.Text = s.text.String()
	return s.resp, nil
}

// providerMessage digs the error message out of a provider's error body:
// OpenAI's {"error":{"message":...}}, Anthropic's {"type":"error","error":
// {"type":...,"message":...}}, Gemini's {"error":{"code":...,"message":...,
// "status":...}}, Ollama's {"error":"..."}; or the start of a body that is
// not JSON.
func providerMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil {
		if msg, ok := errorValueMessage(e.Error); ok {
			return msg
		}
	}
	text := strings.Join(strings.Fields(string(body)), " ")
	if r := []rune(text); len(r) > 300 {
		text = string(r[:300]) + "…"
	}
	return text
}

// errorValueMessage reads an "error" value: a string, or an object with a
// message and its type (Gemini: its status; a failed Responses API
// response: its code). ok is false for none (absent, null) or one without a
// message.
func errorValueMessage(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Status  string          `json:"status"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &obj) != nil || obj.Message == "" {
		return "", false
	}
	var code string
	_ = json.Unmarshal(obj.Code, &code)
	for _, kind := range []string{obj.Type, obj.Status, code} {
		if kind != "" {
			return fmt.Sprintf("%s (%s)", obj.Message, kind), true
		}
	}
	return obj.Message, true
}
