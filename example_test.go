package toolroute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolroute/toolroute"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// A Go tool in a group: the model sees the group by name, loads it, calls
// its tool and answers. The provider here is a local stand-in; in a
// program it is toolroute.OpenAI(key, model) or another.
func Example() {
	ctx := context.Background()
	// A stand-in for the model, speaking OpenAI's Chat Completions: each
	// call gets the next reply. A program points at OpenAI, Ollama,
	// llama.cpp or vLLM instead.
	replies := make(chan string, 3)
	replies <- `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"clock\"}"}}]}`
	replies <- `{"role":"assistant","tool_calls":[{"id":"call_2","type":"function","function":{"name":"clock_now","arguments":"{\"city\":\"Paris\"}"}}]}`
	replies <- `{"role":"assistant","content":"It is 09:00 in Paris."}`
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case reply := <-replies:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"choices":[{"message":%s}]}`, reply)
		default:
			http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusInternalServerError)
		}
	}))
	defer model.Close()

	h, err := toolroute.New(ctx, toolroute.OpenAICompatible(model.URL+"/v1", "", "demo"), toolroute.Options{
		Groups: []registry.Group{{Name: "clock", DisplayName: "Clock", Description: "Tell the time in a city"}},
		Tools: []host.NativeTool{{
			Tool: registry.Tool{Name: "clock_now", Description: "The time now in a city", Group: "clock",
				Parameters: json.RawMessage(`{"properties":{"city":{"type":"string"}},"required":["city"]}`)},
			Run: func(ctx context.Context, input json.RawMessage) (string, error) { return "09:00", nil },
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)

	for ev, err := range h.Session("demo").Send(ctx, "What time is it in Paris?") {
		if err != nil {
			log.Fatal(err)
		}
		switch ev.Type {
		case host.EventModelCall:
			fmt.Println("model call with", ev.Tools)
		case host.EventDone:
			fmt.Println("answer:", ev.Text)
		}
	}
	// Output:
	// model call with [load_tool_group]
	// model call with [load_tool_group clock_now]
	// model call with [load_tool_group clock_now]
	// answer: It is 09:00 in Paris.
}

// A folder of JS tools and one of toolroute's built-in tools: New makes
// the QuickJS runner they need. A tool file with no group entry is sent on
// every call.
func Example_jsTools() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "tools")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("shout.json", `{"name":"shout","description":"Say a text in capitals","function":"shout",
		"parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`)
	write("shout.js", `function shout(args) { return args.text.toUpperCase() + "!"; }`)

	// A stand-in for the model, speaking OpenAI's Chat Completions: each
	// call gets the next reply. A program points at OpenAI, Ollama,
	// llama.cpp or vLLM instead.
	replies := make(chan string, 2)
	replies <- `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"shout","arguments":"{\"text\":\"hello\"}"}}]}`
	replies <- `{"role":"assistant","content":"HELLO!"}`
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case reply := <-replies:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"choices":[{"message":%s}]}`, reply)
		default:
			http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusInternalServerError)
		}
	}))
	defer model.Close()
	h, err := toolroute.New(ctx, toolroute.OpenAICompatible(model.URL+"/v1", "", "demo"), toolroute.Options{
		ToolFolders: []string{dir},
		Builtins:    []string{"get_current_time"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)
	var sent [][]string
	for ev, err := range h.Session("demo").Send(ctx, "Shout hello") {
		if err != nil {
			log.Fatal(err)
		}
		switch {
		case ev.Type == host.EventModelCall:
			sent = append(sent, ev.Tools)
		case ev.Type == host.EventMessage && ev.Message.Type == session.ToolResult:
			fmt.Println(ev.Message.ToolName, "answered", ev.Message.Content)
		}
	}
	fmt.Println("tools sent:", sent[0])
	// Output:
	// shout answered HELLO!
	// tools sent: [get_current_time shout]
}

// Any function can send the model calls: here one that adds a header and
// uses its own HTTP client, as a gateway or an SDK's transport would.
func Example_providerFunc() {
	ctx := context.Background()
	// A stand-in for the model, speaking OpenAI's Chat Completions: each
	// call gets the next reply. A program points at OpenAI, Ollama,
	// llama.cpp or vLLM instead.
	replies := make(chan string, 1)
	replies <- `{"role":"assistant","content":"Hello from the gateway."}`
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case reply := <-replies:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"choices":[{"message":%s}]}`, reply)
		default:
			http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusInternalServerError)
		}
	}))
	defer model.Close()
	client := &http.Client{}
	provider := host.ProviderFunc{Wire: wire.OpenAI, ModelName: "demo",
		Func: func(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
			r, err := http.NewRequestWithContext(ctx, http.MethodPost, model.URL+req.Path, strings.NewReader(string(req.Body)))
			if err != nil {
				return nil, err
			}
			for k, v := range req.Headers {
				r.Header.Set(k, v)
			}
			r.Header.Set("X-Team", "search")
			return client.Do(r)
		}}
	h, err := toolroute.New(ctx, provider, toolroute.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)
	for ev, err := range h.Session("demo").Send(ctx, "Hi") {
		if err != nil {
			log.Fatal(err)
		}
		if ev.Type == host.EventDone {
			fmt.Println(ev.Text)
		}
	}
	// Output:
	// Hello from the gateway.
}

// A program with its own model loop: toolroute gives the tools and the
// system prompt of each model call, and routes the model's tool calls as
// Send's turns do. Here the model is a stand-in function that calls a
// tool before loading its group, then with its arguments missing, then
// right; a program calls its SDK's client instead (sdk/openaisdk's
// ExampleReply).
func Example_ownLoop() {
	ctx := context.Background()
	// No provider: the program makes the model calls.
	h, err := toolroute.New(ctx, nil, toolroute.Options{
		Groups: []registry.Group{{Name: "clock", DisplayName: "Clock", Description: "Tell the time in a city"}},
		Tools: []host.NativeTool{{
			Tool: registry.Tool{Name: "clock_now", Description: "The time now in a city", Group: "clock",
				Parameters: json.RawMessage(`{"properties":{"city":{"type":"string"}},"required":["city"]}`)},
			Run: func(ctx context.Context, input json.RawMessage) (string, error) { return "09:00", nil },
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)

	// A stand-in for the model: each call gets the next reply.
	replies := []host.ModelReply{
		{Calls: []host.ToolCall{{ID: "call_1", Name: "clock_now", Arguments: `{"city":"Paris"}`}}},
		{Calls: []host.ToolCall{{ID: "call_2", Name: "load_tool_group", Arguments: `{"group_name":"clock"}`}}},
		{Calls: []host.ToolCall{{ID: "call_3", Name: "clock_now", Arguments: `{}`}}},
		{Calls: []host.ToolCall{{ID: "call_4", Name: "clock_now", Arguments: `{"city":"Paris"}`}}},
		{Text: "It is 09:00 in Paris."},
	}
	callModel := func(system string, tools []registry.Tool) host.ModelReply {
		var names []string
		for _, t := range tools {
			names = append(names, t.Name)
		}
		fmt.Println("model call with", names)
		reply := replies[0]
		replies = replies[1:]
		return reply
	}

	turn, err := h.Session("demo").Start(ctx, "What time is it in Paris?")
	if err != nil {
		log.Fatal(err)
	}
	defer turn.Close(ctx)
	for !turn.Over() {
		reply := callModel(turn.SystemPrompt(), turn.Tools())
		results, err := turn.Reply(ctx, reply)
		if err != nil {
			log.Fatal(err)
		}
		// A program sends each result back to the model under its ID.
		for _, r := range results {
			first, _, _ := strings.Cut(r.Content, "\n")
			fmt.Printf("  %s %s: %s\n", r.ID, r.Tool, first)
		}
		if len(reply.Calls) == 0 {
			fmt.Println("answer:", reply.Text)
		}
	}
	// Output:
	// model call with [load_tool_group]
	//   call_1 clock_now: Error (tool_not_loaded): Tool 'clock_now' is not loaded: it belongs to tool group 'clock'. Call load_tool_group with group_name 'clock' first, then call 'clock_now' again.
	// model call with [load_tool_group]
	//   call_2 load_tool_group: Loaded 1 tools from group 'Clock':
	// model call with [load_tool_group clock_now]
	//   call_3 clock_now: Error (invalid_arguments): The arguments for 'clock_now' miss the required parameter(s): city. Call it again with them.
	// model call with [load_tool_group clock_now]
	//   call_4 clock_now: 09:00
	// model call with [load_tool_group clock_now]
	// answer: It is 09:00 in Paris.
}
