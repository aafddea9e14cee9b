package demo_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolroute/toolroute/registry/demo"
)

// The demo model behind an OpenAI-compatible endpoint: a program can try
// toolroute with it (toolroute.OpenAICompatible(server.URL+"/v1", "",
// demo.Model)), with no provider and no key.
func Example() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			body, err = demo.Respond(body)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer server.Close()

	resp, err := http.Post(server.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"toolroute-demo","messages":[{"role":"user","content":"Hello"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var reply struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || len(reply.Choices) == 0 {
		log.Fatal("no reply: ", err)
	}
	fmt.Println(reply.Choices[0].Message.Content)
	// Output:
	// [demo model] I am toolroute's demo, not a real model: I follow a script, so I can only show the routing. This call offered 0 tools (); the 0 groups listed in the system prompt (none) are loaded when asked for. Try "What time is it?", "Load the calendar tools", "Search my mail" or "Write a note". To talk to a real model, set OPENAI_API_KEY, OPENAI_BASE_URL (Ollama, llama.cpp, vLLM), ANTHROPIC_API_KEY or GEMINI_API_KEY.
}
