package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The OpenAI Chat Completions request and response, as far as toolroute uses
// them (platform.openai.com/docs/api-reference/chat).

type oaRequest struct {
	Model    string      `json:"model"`
	Messages []oaMessage `json:"messages"`
	Tools    any         `json:"tools,omitempty"` // []oaTool, or its JSON
	Stream   bool        `json:"stream,omitempty"`
	// StreamOptions asks a stream for its usage, in a last chunk with no
	// choices: without it a streamed call reports none.
	StreamOptions       *oaStreamOptions `json:"stream_options,omitempty"`
	MaxCompletionTokens int              `json:"max_completion_tokens,omitempty"`
	Temperature         *float64         `json:"temperature,omitempty"`
}

type oaStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type oaMessage struct {
	Role string `json:"role"`
	// Content is a *string, or a user message's []oaPart when it has
	// images.
	Content    any          `json:"content,omitempty"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

// oaPart is a user message's content part: text, or an image as a data URL.
type oaPart struct {
	Type     string      `json:"type"`
	Text     string      `json:"text,omitempty"`
	ImageURL *oaImageURL `json:"image_url,omitempty"`
}

type oaImageURL struct {
	URL string `json:"url"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type oaTool struct {
	Type     string        `json:"type"`
	Function oaFunctionDef `json:"function"`
}

type oaFunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func encodeOpenAI(r Request, c *Conv) (HTTPRequest, error) {
	req := oaRequest{Model: r.Model, Stream: r.Stream, MaxCompletionTokens: r.MaxTokens, Temperature: r.Temperature}
	if r.Stream {
		req.StreamOptions = &oaStreamOptions{IncludeUsage: true}
	}
	var tail []oaMessage
	if c != nil {
		tail = c.oaTail[:0] // the last call's, cleared
	}
	if cap(tail) < len(r.Messages)+3 {
		// A tool message for each result; with a Conv, room for the next
		// calls' too.
		tail = make([]oaMessage, 0, max(len(r.Messages)+3, 8))
	}
	for i := range r.Messages {
		var err error
		if tail, err = oaAppend(tail, &r.Messages[i]); err != nil {
			return HTTPRequest{}, err
		}
	}
	var err error
	req.Tools, err = c.toolsValue(r, len(r.Tools), func() any {
		if c != nil {
			return c.oaTools(r.Tools)
		}
		tools := make([]oaTool, len(r.Tools))
		for i, t := range r.Tools {
			tools[i] = oaTool{Type: "function", Function: oaFunctionDef{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
		}
		return tools
	})
	if err != nil {
		return HTTPRequest{}, err
	}
	var body []byte
	if c == nil {
		req.Messages = tail
		if r.System != "" {
			req.Messages = append([]oaMessage{{Role: "system", Content: ptr(r.System)}}, tail...)
		}
		body, err = req.appendJSON(nil)
	} else {
		// The system message, then the conversation encoded before, then
		// the newer messages: the bytes the whole request would give,
		// written in place. The newer messages are encoded apart and kept
		// (AppendTail): when they close unchanged, the conversation takes
		// these bytes rather than encoding them again.
		newer := c.tail[:0]
		if size := encodedSize(r.Messages); cap(newer) < size {
			newer = make([]byte, 0, max(size, 512)) // and the next calls'
		}
		for i, m := range tail {
			if i > 0 {
				newer = append(newer, ',')
			}
			newer = m.appendJSON(newer)
		}
		var head []byte
		if r.System != "" {
			head = c.systemJSON(r.System)
		}
		req.Messages = tail[:0] // "[]" when every part is empty
		body, err = req.appendJSON(c.buffer(len(head)+len(c.final)+len(newer)), head, c.final, newer)
		c.tail, c.tailEls, c.hasTail = newer, len(tail), err == nil
		clear(tail) // they point into r
		c.oaTail = tail[:0]
	}
	if err != nil {
		return HTTPRequest{}, err
	}
	return HTTPRequest{
		Path:    "/chat/completions",
		Headers: map[string]string{"content-type": "application/json"},
		Body:    body,
	}, nil
}

// encodedSize is about the bytes msgs take encoded, a little more when
// their text needs no escapes: room to encode them in at once.
func encodedSize(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += 64 + len(m.Text)
		for _, img := range m.Images {
			n += 64 + len(img.Data)
		}
		for _, c := range m.Calls {
			n += 96 + len(c.ID) + len(c.Name) + len(c.Input) + len(c.Input)/8
		}
		for _, res := range m.Results {
			n += 64 + len(res.CallID) + len(res.Content) + len(res.Content)/8
		}
	}
	return n
}

// dataURL is an image as a data URL, as OpenAI's formats take it.
func dataURL(img Image) string { return "data:" + img.MIMEType + ";base64," + img.Data }

// oaAppend adds one message's Chat Completions messages to out.
// The messages point into m, which must outlive them.
func oaAppend(out []oaMessage, m *Message) ([]oaMessage, error) {
	switch m.Role {
	case RoleUser:
		if len(m.Images) == 0 {
			out = append(out, oaMessage{Role: "user", Content: &m.Text})
			break
		}
		parts := make([]oaPart, 0, len(m.Images)+1)
		for _, img := range m.Images {
			parts = append(parts, oaPart{Type: "image_url", ImageURL: &oaImageURL{URL: dataURL(img)}})
		}
		if m.Text != "" {
			parts = append(parts, oaPart{Type: "text", Text: m.Text})
		}
		out = append(out, oaMessage{Role: "user", Content: parts})
	case RoleAssistant:
		msg := oaMessage{Role: "assistant"}
		if m.Text != "" || len(m.Calls) == 0 {
			msg.Content = &m.Text
		}
		for _, c := range m.Calls {
			args := c.Input
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			msg.ToolCalls = append(msg.ToolCalls, oaToolCall{ID: c.ID, Type: "function", Function: oaFunction{Name: c.Name, Arguments: args}})
		}
		out = append(out, msg)
	case RoleTool:
		for i := range m.Results {
			res := &m.Results[i]
			out = append(out, oaMessage{Role: "tool", ToolCallID: res.CallID, Content: &res.Content})
		}
	default:
		return out, fmt.Errorf("wire: message role %q is not user, assistant or tool", m.Role)
	}
	return out, nil
}

type oaResponse struct {
	Choices []struct {
		Message struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *oaUsage        `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// oaUsage is a response's usage, whole or in a stream's last chunk.
type oaUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *oaUsage) usage() Usage {
	out := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}

func decodeOpenAI(body []byte) (Response, error) {
	var r oaResponse
	if err := unmarshalOAResponse(body, &r); err != nil {
		return Response{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return r.response(body)
}

// response is the Response of r, read from body.
func (r *oaResponse) response(body []byte) (Response, error) {
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return Response{}, fmt.Errorf("%w: %s", ErrProvider, providerMessage(body))
	}
	if len(r.Choices) == 0 {
		return Response{}, fmt.Errorf("%w: no choices in the response", ErrBadResponse)
	}
	c := r.Choices[0]
	text, err := contentText(c.Message.Content)
	if err != nil {
		return Response{}, err
	}
	out := Response{Text: text, StopReason: c.FinishReason}
	for _, tc := range c.Message.ToolCalls {
		out.Calls = append(out.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Input: argumentsText(tc.Function.Arguments)})
	}
	if r.Usage != nil {
		out.Usage = r.Usage.usage()
	}
	return out, nil
}

// contentText reads a message's content: a string, null, or an array of
// content parts whose text parts are joined.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if s, ok := unquote(raw); ok {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("%w: message content is neither text nor content parts", ErrBadResponse)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// argumentsText reads a function call's arguments: the JSON text the format
// specifies, or, from servers that send a JSON object instead, its encoding.
func argumentsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if s, ok := unquote(raw); ok {
		return s
	}
	return string(raw)
}

// oaChunk is one streamed chat.completion.chunk.
type oaChunk struct {
	Choices []struct {
		Delta struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *oaUsage        `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// oaStream assembles a streamed OpenAI response. Tool call fragments are
// accumulated by their index.
type oaStream struct {
	resp     Response
	text     strings.Builder
	byIndex  map[int]int
	done     bool
	finished bool
}

func (s *oaStream) event(_ string, data string) ([]string, error) {
	if strings.TrimSpace(data) == "[DONE]" {
		s.done = true
		return nil, nil
	}
	var c oaChunk
	if err := unmarshalOAChunk([]byte(data), &c); err != nil {
		return nil, fmt.Errorf("%w: stream chunk is not JSON: %v", ErrBadResponse, err)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return nil, fmt.Errorf("%w: %s", ErrProvider, providerMessage([]byte(data)))
	}
	if c.Usage != nil {
		s.resp.Usage = c.Usage.usage()
	}
	var deltas []string
	for _, ch := range c.Choices {
		text, err := contentText(ch.Delta.Content)
		if err != nil {
			return nil, err
		}
		if text != "" {
			s.text.WriteString(text)
			deltas = append(deltas, text)
		}
		for _, tc := range ch.Delta.ToolCalls {
			i := s.callFor(tc.Index, tc.ID)
			call := &s.resp.Calls[i]
			if call.ID == "" {
				call.ID = tc.ID
			}
			if name := tc.Function.Name; name != "" && name != call.Name {
				call.Name += name
			}
			call.Input += argumentsText(tc.Function.Arguments)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.resp.StopReason = *ch.FinishReason
			s.finished = true
		}
	}
	return deltas, nil
}

// callFor finds the call a fragment belongs to: by index when the server
// sends one; otherwise a new id starts a new call and anything else continues
// the last one.
func (s *oaStream) callFor(index *int, id string) int {
	if s.byIndex == nil {
		s.byIndex = map[int]int{}
	}
	if index != nil {
		if i, ok := s.byIndex[*index]; ok {
			return i
		}
		s.byIndex[*index] = len(s.resp.Calls)
		s.resp.Calls = append(s.resp.Calls, Call{})
		return len(s.resp.Calls) - 1
	}
	if n := len(s.resp.Calls); n > 0 && (id == "" || id == s.resp.Calls[n-1].ID) {
		return n - 1
	}
	s.resp.Calls = append(s.resp.Calls, Call{})
	return len(s.resp.Calls) - 1
}

func (s *oaStream) close() (Response, error) {
	if !s.done && !s.finished {
		return Response{}, fmt.Errorf("%w: the stream ended before the response did (no finish_reason and no [DONE])", ErrBadResponse)
	}
	s.resp.Text = s.text.String()
	return s.resp, nil
}

func ptr[T any](v T) *T { return &v }

// marshal encodes without HTML escaping, so "<" and "&" in prompts reach the
// model as written. The values every model call encodes are written by
// hand (codec.go), the others by encoding/json; both give the same bytes.
func marshal(v any) ([]byte, error) {
	if b, ok, err := appendKnown(nil, v); ok {
		return b, err
	}
	return marshalReflect(v)
}

// marshalReflect is marshal by encoding/json alone.
func marshalReflect(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
