// Package fakemodel is a scripted model server on loopback for tests,
// examples and benchmarks: it answers each request with the next reply of
// its script, in the OpenAI Chat Completions or Anthropic Messages wire
// format, whole or streamed as server-sent events, and records every request
// it receives so tests can check what was sent.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Format is the wire format the server speaks.
type Format string

const (
	OpenAI    Format = "openai"
	Anthropic Format = "anthropic"
)

// Reply is one scripted answer.
type Reply struct {
	// Text is the assistant's text.
	Text string
	// Calls are tool calls: name and arguments (JSON text).
	Calls []Call
	// Status, when set, answers with this HTTP status and ErrorBody instead.
	Status     int
	ErrorBody  string
	RetryAfter string
	// Hold, when set, keeps the request waiting until it is closed or the
	// client goes away, to catch a program in the middle of a turn.
	Hold <-chan struct{}
}

// Call is one scripted tool call.
type Call struct {
	Name string
	Args string
}

// Text is a reply with text only.
func Text(text string) Reply { return Reply{Text: text} }

// ToolCall is a reply calling one tool.
func ToolCall(name, args string) Reply { return Reply{Calls: []Call{{name, args}}} }

// ToolCalls is a reply calling several tools.
func ToolCalls(calls ...Call) Reply { return Reply{Calls: calls} }

// Error is a reply with an HTTP error status and body.
func Error(status int, body string) Reply { return Reply{Status: status, ErrorBody: body} }

// Request is one request the server received.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// ToolNames lists the names of the tools the request offered, in order.
func (r Request) ToolNames() []string {
	var body struct {
		Tools []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &body)
	var names []string
	for _, t := range body.Tools {
		if t.Function.Name != "" {
			names = append(names, t.Function.Name)
		} else {
			names = append(names, t.Name)
		}
	}
	return names
}

// Server is a scripted model server.
type Server struct {
	*httptest.Server
	format Format

	mu       sync.Mutex
	script   []Reply
	requests []Request
	calls    int
}

// New starts a server speaking format that answers with the replies in
// order; once they run out it answers 500. Close it when done.
func New(format Format, replies ...Reply) *Server {
	s := &Server{format: format, script: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// BaseURL is the base URL a provider uses: with /v1 for OpenAI, without for
// Anthropic, as their official clients expect.
func (s *Server) BaseURL() string {
	if s.format == OpenAI {
		return s.URL + "/v1"
	}
	return s.URL
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var reply Reply
	ok := s.calls < len(s.script)
	if ok {
		reply = s.script[s.calls]
	}
	s.calls++
	n := s.calls
	s.mu.Unlock()

	if reply.Hold != nil {
		select {
		case <-reply.Hold:
		case <-r.Context().Done():
			return
		}
	}
	want := "/v1/chat/completions"
	if s.format == Anthropic {
		want = "/v1/messages"
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != want:
		http.Error(w, fmt.Sprintf(`{"error":{"message":"no route %s %s","type":"invalid_request_error"}}`, r.Method, r.URL.Path), http.StatusNotFound)
		return
	case !ok:
		http.Error(w, `{"error":{"message":"the script has no more replies","type":"server_error"}}`, http.StatusInternalServerError)
		return
	case reply.Status != 0:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		io.WriteString(w, reply.ErrorBody)
		return
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	id := "r" + strconv.Itoa(n)
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range s.events(id, reply) {
			io.WriteString(w, ev)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.whole(id, reply))
}

func (s *Server) whole(id string, r Reply) any {
	if s.format == Anthropic {
		content := []map[string]any{}
		if r.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": r.Text})
		}
		for i, c := range r.Calls {
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i), "name": c.Name, "input": json.RawMessage(orEmpty(c.Args))})
		}
		stop := "end_turn"
		if len(r.Calls) > 0 {
			stop = "tool_use"
		}
		return map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant", "model": "fake", "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 5}}
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	finish := "stop"
	if len(r.Calls) > 0 {
		var calls []map[string]any
		for i, c := range r.Calls {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%s_%d", id, i), "type": "function",
				"function": map[string]string{"name": c.Name, "arguments": orEmpty(c.Args)}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	return map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "model": "fake",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
}

// events streams a reply: text in two deltas, each call's arguments in two
// fragments, as the providers do.
func (s *Server) events(id string, r Reply) []string {
	var out []string
	data := func(event string, v any) {
		b, _ := json.Marshal(v)
		if event != "" {
			out = append(out, "event: "+event+"\ndata: "+string(b)+"\n\n")
		} else {
			out = append(out, "data: "+string(b)+"\n\n")
		}
	}
	half := func(s string) (string, string) { return s[:len(s)/2], s[len(s)/2:] }
	if s.format == Anthropic {
		data("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_" + id, "type": "message",
			"role": "assistant", "content": []any{}, "model": "fake", "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
		idx := 0
		if r.Text != "" {
			data("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
			a, b := half(r.Text)
			for _, t := range []string{a, b} {
				data("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": t}})
			}
			data("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		for i, c := range r.Calls {
			data("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{
				"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i), "name": c.Name, "input": map[string]any{}}})
			a, b := half(orEmpty(c.Args))
			for _, p := range []string{"", a, b} {
				data("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
			}
			data("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		stop := "end_turn"
		if len(r.Calls) > 0 {
			stop = "tool_use"
		}
		data("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]int{"output_tokens": 5}})
		data("message_stop", map[string]any{"type": "message_stop"})
		return out
	}
	chunk := func(delta map[string]any, finish any) {
		data("", map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "model": "fake",
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	if r.Text != "" {
		a, b := half(r.Text)
		chunk(map[string]any{"role": "assistant", "content": a}, nil)
		chunk(map[string]any{"content": b}, nil)
	}
	for i, c := range r.Calls {
		a, b := half(orEmpty(c.Args))
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": fmt.Sprintf("call_%s_%d", id, i), "type": "function",
			"function": map[string]string{"name": c.Name, "arguments": a}}}}, nil)
		chunk(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]string{"arguments": b}}}}, nil)
	}
	finish := "stop"
	if len(r.Calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	out = append(out, "data: [DONE]\n\n")
	return out
}

func orEmpty(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}
