package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// A conversation against a local stand-in for an OpenAI-compatible model: the
// model loads the "clock" group, calls its tool, and answers. In a real
// program the provider points at OpenAI, Ollama, llama.cpp or vLLM.
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

	h, err := host.New(ctx, host.Options{
		Provider:   &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: model.URL + "/v1", ModelName: "demo"},
		NoBuiltins: true,
		Groups:     []registry.Group{{Name: "clock", DisplayName: "Clock", Description: "Tell the time in a city"}},
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
		case host.EventGroupLoaded:
			fmt.Println("loaded group", ev.Group.Name, ev.Group.Added)
		case host.EventMessage:
			switch m := ev.Message; m.Type {
			case session.ToolCall: // committed before it runs
				fmt.Println("called", m.ToolName, m.ToolInput)
			case session.ToolResult:
				fmt.Println("result", m.ToolName, m.Status)
			}
		case host.EventDone:
			fmt.Println("answer:", ev.Text)
		}
	}
	// Output:
	// model call with [load_tool_group]
	// called load_tool_group {"group_name":"clock"}
	// result load_tool_group success
	// loaded group clock [clock_now]
	// model call with [load_tool_group clock_now]
	// called clock_now {"city":"Paris"}
	// result clock_now success
	// model call with [load_tool_group clock_now]
	// answer: It is 09:00 in Paris.
}
