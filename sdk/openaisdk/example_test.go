package openaisdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolroute/toolroute"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
	"github.com/toolroute/toolroute/sdk/openaisdk"
)

// clock is a group of one Go tool.
var (
	clockGroup = registry.Group{Name: "clock", DisplayName: "Clock", Description: "Tell the time in a city"}
	clockNow   = host.NativeTool{
		Tool: registry.Tool{Name: "clock_now", Description: "The time now in a city", Group: "clock",
			Parameters: json.RawMessage(`{"properties":{"city":{"type":"string"}},"required":["city"]}`)},
		Run: func(ctx context.Context, input json.RawMessage) (string, error) { return "09:00", nil },
	}
)

// toolroute's turns, with the model calls sent by an OpenAI SDK client:
// its base URL, key, retries and middleware are the program's.
func ExampleProvider() {
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
	client := openai.NewClient(option.WithBaseURL(model.URL+"/v1"), option.WithAPIKey("sk-demo"))

	h, err := toolroute.New(ctx, openaisdk.Provider(&client, "gpt-4o-mini", wire.OpenAI), toolroute.Options{
		Groups: []registry.Group{clockGroup},
		Tools:  []host.NativeTool{clockNow},
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
	// Output:
	// It is 09:00 in Paris.
}

// A program that keeps its own loop: the parameters of a session's next
// call in the SDK's types (the system prompt with the group listing, the
// history, the active tools), sent with its own client.
func ExampleParams() {
	ctx := context.Background()
	// A stand-in for the model, speaking OpenAI's Chat Completions: each
	// call gets the next reply. A program points at OpenAI, Ollama,
	// llama.cpp or vLLM instead.
	replies := make(chan string, 3)
	replies <- `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"clock\"}"}}]}`
	replies <- `{"role":"assistant","content":"Loaded."}`
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
	client := openai.NewClient(option.WithBaseURL(model.URL+"/v1"), option.WithAPIKey("sk-demo"))
	h, err := toolroute.New(ctx, openaisdk.Provider(&client, "gpt-4o-mini", wire.OpenAI), toolroute.Options{
		Groups: []registry.Group{clockGroup},
		Tools:  []host.NativeTool{clockNow},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)
	// A first turn through toolroute loads the group.
	for _, err := range h.Session("demo").Send(ctx, "Get the clock tools") {
		if err != nil {
			log.Fatal(err)
		}
	}

	params, err := openaisdk.Params(ctx, h.Host, "demo", "gpt-4o-mini")
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range params.Tools {
		fmt.Println("tool:", t.GetFunction().Name)
	}
	for _, m := range params.Messages {
		fmt.Println("message:", *m.GetRole())
	}
	params.Messages = append(params.Messages, openai.UserMessage("What time is it in Paris?"))
	reply, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Choices[0].Message.Content)
	// Output:
	// tool: load_tool_group
	// tool: clock_now
	// message: system
	// message: user
	// message: assistant
	// message: tool
	// message: assistant
	// It is 09:00 in Paris.
}

// Tools gives toolroute's tools as the SDK's tool params, as toolroute
// sends them; Messages gives a session's log as the SDK's messages.
func ExampleTools() {
	tools, err := openaisdk.Tools([]registry.Tool{clockNow.Tool})
	if err != nil {
		log.Fatal(err)
	}
	fn := tools[0].GetFunction()
	fmt.Println(fn.Name, "-", fn.Description.Value)
	msgs, err := openaisdk.Messages("You tell the time.", []session.Message{
		{Type: session.User, Content: "What time is it in Paris?"},
		{Type: session.Assistant, Content: "It is 09:00."},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Println(*m.GetRole())
	}
	// Output:
	// clock_now - The time now in a city
	// system
	// user
	// assistant
}

// A program's own loop with the SDK's client and its own messages:
// toolroute gives the system prompt and the tools of each call and routes
// the model's calls (the group loaded, its tool run, each logged), and the
// program sends the results back as tool messages.
func ExampleReply() {
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
	client := openai.NewClient(option.WithBaseURL(model.URL+"/v1"), option.WithAPIKey("sk-demo"))

	// No provider: the program makes the model calls.
	h, err := toolroute.New(ctx, nil, toolroute.Options{
		Groups: []registry.Group{clockGroup},
		Tools:  []host.NativeTool{clockNow},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)

	question := "What time is it in Paris?"
	turn, err := h.Session("demo").Start(ctx, question)
	if err != nil {
		log.Fatal(err)
	}
	defer turn.Close(ctx)
	messages := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(turn.SystemPrompt()), openai.UserMessage(question)}
	for !turn.Over() {
		tools, err := openaisdk.Tools(turn.Tools())
		if err != nil {
			log.Fatal(err)
		}
		messages[0] = openai.SystemMessage(turn.SystemPrompt())
		completion, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: "gpt-4o-mini", Messages: messages, Tools: tools,
		})
		if err != nil {
			log.Fatal(err)
		}
		msg := completion.Choices[0].Message
		messages = append(messages, msg.ToParam())
		results, err := turn.Reply(ctx, openaisdk.Reply(completion))
		if err != nil {
			log.Fatal(err)
		}
		for _, r := range results {
			fmt.Println(r.Tool, "answered", r.ErrorType == "")
		}
		messages = append(messages, openaisdk.ToolMessages(results)...)
		if len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
		}
	}
	// Output:
	// load_tool_group answered true
	// clock_now answered true
	// It is 09:00 in Paris.
}
