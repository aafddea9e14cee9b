// Package scripted is a local server speaking OpenAI's Chat Completions
// (not streamed) from a script, for the examples of the packages a Go
// program imports: a real program points at OpenAI, Ollama, llama.cpp or
// vLLM instead.
package scripted

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Reply is one scripted answer of the model: a tool call, or text.
type Reply struct {
	tool, args, text string
}

// Call is a reply calling tool with args, a JSON object.
func Call(tool, args string) Reply { return Reply{tool: tool, args: args} }

// Text is a reply of text.
func Text(t string) Reply { return Reply{text: t} }

// Server answers each request with the next reply.
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []Reply
	// Tools are the names of the tools each request sent.
	Tools [][]string
}

// New starts a server answering with replies, in order.
func New(replies ...Reply) *Server {
	s := &Server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the server's /v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error":{"message":"not a chat completion"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	s.Tools = append(s.Tools, names)
	if len(s.replies) == 0 {
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"the script has no more replies"}}`, http.StatusInternalServerError)
		return
	}
	next := s.replies[0]
	s.replies = s.replies[1:]
	n := len(s.Tools)
	s.mu.Unlock()
	msg := map[string]any{"role": "assistant", "content": next.text}
	finish := "stop"
	if next.tool != "" {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": next.tool, "arguments": next.args}}}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "model": "demo",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	})
}
