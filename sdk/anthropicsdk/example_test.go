package anthropicsdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/toolroute/toolroute"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/sdk/anthropicsdk"
)

// toolroute's turns, with the model calls sent by an Anthropic SDK client:
// its base URL, key, retries and middleware are the program's.
func ExampleProvider() {
	ctx := context.Background()
	model := newScripted(
		toolUse("load_tool_group", `{"group_name":"clock"}`),
		toolUse("clock_now", `{"city":"Paris"}`),
		textReply("It is 09:00 in Paris."),
		textReply("And 08:00 in London."),
	)
	defer model.Close()
	client := anthropic.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("sk-ant-demo"))

	h, err := toolroute.New(ctx, anthropicsdk.Provider(&client, "claude-sonnet-4-5"), toolroute.Options{
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
		if ev.Type == host.EventDone {
			fmt.Println(ev.Text)
		}
	}
	fmt.Println("key sent:", model.keys[0], "· tools of the last call:", model.tools[2])

	// A program that keeps its own loop takes the session's next call as
	// the SDK's parameters and sends it itself.
	params, err := anthropicsdk.Params(ctx, h.Host, "demo", "claude-sonnet-4-5", 1024)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(params.Messages), "messages,", len(params.Tools), "tools, system:", len(params.System[0].Text) > 0)
	params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock("And in London?")))
	reply, err := client.Messages.New(ctx, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Content[0].Text, "· tools sent:", model.tools[3])
	// Output:
	// It is 09:00 in Paris.
	// key sent: sk-ant-demo · tools of the last call: [load_tool_group clock_now]
	// 6 messages, 2 tools, system: true
	// And 08:00 in London. · tools sent: [load_tool_group clock_now]
}

// A local server speaking Anthropic's Messages API (not streamed) from a
// script; a real program talks to api.anthropic.com.
type scripted struct {
	*httptest.Server
	mu      sync.Mutex
	replies []map[string]any
	keys    []string
	tools   [][]string
}

func toolUse(name, input string) map[string]any {
	return map[string]any{"stop_reason": "tool_use", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + name, "name": name, "input": json.RawMessage(input)}}}
}

func textReply(t string) map[string]any {
	return map[string]any{"stop_reason": "end_turn", "content": []any{map[string]any{"type": "text", "text": t}}}
}

func newScripted(replies ...map[string]any) *scripted {
	s := &scripted{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if r.URL.Path != "/v1/messages" || r.Header.Get("anthropic-version") == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"not a Messages request"}}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		names := []string{}
		for _, t := range req.Tools {
			names = append(names, t.Name)
		}
		s.keys = append(s.keys, r.Header.Get("X-Api-Key"))
		s.tools = append(s.tools, names)
		if len(s.replies) == 0 {
			http.Error(w, `{"type":"error","error":{"type":"api_error","message":"the script has no more replies"}}`, http.StatusInternalServerError)
			return
		}
		reply := s.replies[0]
		s.replies = s.replies[1:]
		reply["id"], reply["type"], reply["role"], reply["model"] = "msg_1", "message", "assistant", "claude-sonnet-4-5"
		reply["usage"] = map[string]any{"input_tokens": 100, "output_tokens": 10}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(reply)
	}))
	return s
}

// Tools and Messages give toolroute's tools and a session's log as the
// SDK's params, as toolroute sends them.
func ExampleMessages() {
	tools, err := anthropicsdk.Tools([]registry.Tool{{Name: "clock_now", Description: "The time now in a city",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tools[0].OfTool.Name)
	system, msgs, err := anthropicsdk.Messages("You tell the time.", []session.Message{
		{Type: session.User, Content: "What time is it in Paris?"},
		{Type: session.Assistant, Content: "It is 09:00."},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(system[0].Text)
	for _, m := range msgs {
		fmt.Println(m.Role)
	}
	// Output:
	// clock_now
	// You tell the time.
	// user
	// assistant
}

// A program's own loop with the SDK's client and its own messages:
// toolroute gives the system prompt and the tools of each call and routes
// the model's tool_use blocks, and the program answers them with the
// tool_result blocks ToolResults makes.
func ExampleReply() {
	ctx := context.Background()
	model := newScripted(
		toolUse("load_tool_group", `{"group_name":"clock"}`),
		toolUse("clock_now", `{"city":"Paris"}`),
		textReply("It is 09:00 in Paris."),
	)
	defer model.Close()
	client := anthropic.NewClient(option.WithBaseURL(model.URL), option.WithAPIKey("sk-ant-demo"))

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

	turn, err := h.Session("demo").Start(ctx, "What time is it in Paris?")
	if err != nil {
		log.Fatal(err)
	}
	defer turn.Close(ctx)
	messages := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What time is it in Paris?"))}
	for !turn.Over() {
		tools, err := anthropicsdk.Tools(turn.Tools())
		if err != nil {
			log.Fatal(err)
		}
		reply, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model: "claude-sonnet-4-5", MaxTokens: 1024, Messages: messages, Tools: tools,
			System: []anthropic.TextBlockParam{{Text: turn.SystemPrompt()}},
		})
		if err != nil {
			log.Fatal(err)
		}
		messages = append(messages, reply.ToParam())
		results, err := turn.Reply(ctx, anthropicsdk.Reply(reply))
		if err != nil {
			log.Fatal(err)
		}
		if len(results) == 0 {
			fmt.Println(reply.Content[0].Text)
			break
		}
		for _, r := range results {
			fmt.Println(r.Tool, "answered", r.ErrorType == "")
		}
		messages = append(messages, anthropicsdk.ToolResults(results))
	}
	fmt.Println("tools of the last call:", model.tools[2])
	// Output:
	// load_tool_group answered true
	// clock_now answered true
	// It is 09:00 in Paris.
	// tools of the last call: [load_tool_group clock_now]
}
