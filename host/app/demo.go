package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// DemoModel is the demo provider's model name.
const DemoModel = "toolroute-demo"

// Demo is a provider that is not a model: it plays a fixed script showing
// tool-group routing (load the config group, call one of its tools, explain
// what was sent), so toolroute can be tried without any provider. Its
// replies say what it is. Tests never count it as a model.
type Demo struct{}

// Format implements host.Provider.
func (Demo) Format() wire.Format { return wire.OpenAI }

// Model implements host.Provider.
func (Demo) Model() string { return DemoModel }

// Call implements host.Provider: the next step of the script, from the
// request's messages since the user's last one.
func (Demo) Call(_ context.Context, req *session.ModelRequest) (*http.Response, error) {
	var body struct {
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return nil, fmt.Errorf("demo: %v", err)
	}
	// called: the tools called since the user's last message.
	var called []string
	for _, m := range body.Messages {
		if m.Role == "user" {
			called = called[:0]
		}
		for _, c := range m.ToolCalls {
			called = append(called, c.Function.Name)
		}
	}
	tools := make([]string, len(body.Tools))
	for i, t := range body.Tools {
		tools[i] = t.Function.Name
	}
	const tag = "[demo model] "
	var msg map[string]any
	switch {
	case !has(tools, "list_settings") && has(tools, "load_tool_group") && !has(called, "load_tool_group"):
		msg = call(tag+"I am toolroute's scripted demo, not a real model. This call offered "+count(tools)+
			": the core tools only. To read the settings I first load the config group.", "load_tool_group", `{"group_name":"config"}`)
	case has(tools, "list_settings") && !has(called, "list_settings"):
		text := "The config group is loaded: this call offered " + count(tools) + ". Now I call one of its tools."
		if !has(called, "load_tool_group") {
			text = "The config group is still loaded from earlier in this session, so this call offered " + count(tools) +
				" without loading it again. I call one of its tools."
		}
		msg = call(tag+text, "list_settings", `{}`)
	default:
		msg = map[string]any{"role": "assistant", "content": tag + "That was tool-group routing: the first call offered only the core tools and the " +
			"group listing; the config group's schemas were sent only once load_tool_group asked for them, and they stay " +
			"loaded for the rest of this session. This call offered " + count(tools) + ". To talk to a real model, set " +
			"OPENAI_API_KEY, OPENAI_BASE_URL (Ollama, llama.cpp, vLLM) or ANTHROPIC_API_KEY."}
	}
	finish := "stop"
	if _, ok := msg["tool_calls"]; ok {
		finish = "tool_calls"
	}
	out, _ := json.Marshal(map[string]any{
		"id": "demo", "object": "chat.completion", "model": DemoModel,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
	})
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK",
		Header: http.Header{"Content-Type": []string{"application/json"}},
		Body:   io.NopCloser(bytes.NewReader(out)),
	}, nil
}

func call(text, name, args string) map[string]any {
	return map[string]any{"role": "assistant", "content": text, "tool_calls": []map[string]any{{
		"id": "demo_" + name, "type": "function", "function": map[string]string{"name": name, "arguments": args}}}}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func count(tools []string) string {
	return fmt.Sprintf("%d tools (%s)", len(tools), strings.Join(tools, ", "))
}
