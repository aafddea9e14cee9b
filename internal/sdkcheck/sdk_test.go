package sdkcheck

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/toolroute/toolroute/registry/wire"
)

const system = "You are helpful.\n\n---\n\n## Available Tool Groups\n\n- pdf: PDF tools <and> more"

var params = json.RawMessage(`{"type":"object","properties":{"group_name":{"type":"string","description":"The group"}},"required":["group_name"]}`)

// request is a conversation with every message shape the engine sends.
func request(stream bool) wire.Request {
	temp := 0.25
	return wire.Request{
		Model:  "test-model",
		System: system,
		Messages: []wire.Message{
			{Role: wire.RoleUser, Text: "Load the PDF tools & read a.pdf"},
			{Role: wire.RoleAssistant, Text: "Loading.", Calls: []wire.Call{
				{ID: "call_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`},
				{ID: "call_2", Name: "get_current_time", Input: `{}`},
			}},
			{Role: wire.RoleTool, Results: []wire.Result{
				{CallID: "call_1", Name: "load_tool_group", Content: "Loaded 1 tools from group 'PDF Tools':\n- pdf_info: Info"},
				{CallID: "call_2", Name: "get_current_time", Content: "Error (timeout): too slow", IsError: true},
			}},
			{Role: wire.RoleAssistant, Calls: []wire.Call{{ID: "call_3", Name: "pdf_info", Input: `{"path":"a.pdf"}`}}},
			{Role: wire.RoleTool, Results: []wire.Result{{CallID: "call_3", Name: "pdf_info", Content: "{\"pages\":3}\n\n[image image/png, 8 bytes]\n\n[resource file:///a.pdf: application/pdf, 9 bytes]",
				Images: []wire.Image{{MIMEType: "image/png", Data: "iVBORw0KGgo="}}, Documents: []wire.Document{{MIMEType: "application/pdf", Data: "JVBERi0xLjQK", Name: "file:///a.pdf"}}}}},
			{Role: wire.RoleAssistant, Text: "It has 3 pages."},
			{Role: wire.RoleUser, Text: "Thanks", Images: []wire.Image{{MIMEType: "image/jpeg", Data: "/9j/4AAQ"}}},
		},
		Tools:       []wire.ToolDef{{Name: "load_tool_group", Description: "Load a tool group", Parameters: params}},
		MaxTokens:   512,
		Temperature: &temp,
		Stream:      stream,
	}
}

// sameJSON compares two JSON texts as values.
func sameJSON(t *testing.T, what string, want, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-ours +sdk):\n%s", what, diff)
	}
}

func TestOpenAIRequestDecodesWithSDK(t *testing.T) {
	req, err := wire.Encode(wire.OpenAI, request(false))
	if err != nil {
		t.Fatal(err)
	}
	var p openai.ChatCompletionNewParams
	if err := json.Unmarshal(req.Body, &p); err != nil {
		t.Fatalf("the SDK cannot decode our body: %v\n%s", err, req.Body)
	}
	if p.Model != "test-model" || p.MaxCompletionTokens.Value != 512 || p.Temperature.Value != 0.25 {
		t.Errorf("model %q max %v temperature %v", p.Model, p.MaxCompletionTokens, p.Temperature)
	}
	var got []string
	for _, m := range p.Messages {
		switch {
		case m.OfSystem != nil:
			got = append(got, "system: "+m.OfSystem.Content.OfString.Value)
		case m.OfUser != nil && m.OfUser.Content.OfString.Valid():
			got = append(got, "user: "+m.OfUser.Content.OfString.Value)
		case m.OfUser != nil:
			var parts []string
			for _, c := range m.OfUser.Content.OfArrayOfContentParts {
				switch {
				case c.OfText != nil:
					parts = append(parts, "text "+c.OfText.Text)
				case c.OfImageURL != nil:
					parts = append(parts, "image_url "+c.OfImageURL.ImageURL.URL)
				default:
					parts = append(parts, "<unknown part>")
				}
			}
			got = append(got, "user: "+strings.Join(parts, " | "))
		case m.OfAssistant != nil:
			s := "assistant: " + m.OfAssistant.Content.OfString.Value
			for _, c := range m.OfAssistant.ToolCalls {
				f := c.OfFunction
				s += fmt.Sprintf(" [%s %s %s]", f.ID, f.Function.Name, f.Function.Arguments)
			}
			got = append(got, s)
		case m.OfTool != nil:
			got = append(got, "tool "+m.OfTool.ToolCallID+": "+m.OfTool.Content.OfString.Value)
		default:
			got = append(got, "unknown message")
		}
	}
	want := []string{
		"system: " + system,
		"user: Load the PDF tools & read a.pdf",
		`assistant: Loading. [call_1 load_tool_group {"group_name":"pdf"}] [call_2 get_current_time {}]`,
		"tool call_1: Loaded 1 tools from group 'PDF Tools':\n- pdf_info: Info",
		"tool call_2: Error (timeout): too slow",
		`assistant:  [call_3 pdf_info {"path":"a.pdf"}]`,
		"tool call_3: {\"pages\":3}\n\n[image image/png, 8 bytes]\n\n[resource file:///a.pdf: application/pdf, 9 bytes]",
		"assistant: It has 3 pages.",
		"user: image_url data:image/jpeg;base64,/9j/4AAQ | text Thanks",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages as the SDK reads them (-want +got):\n%s", diff)
	}
	if len(p.Tools) != 1 || p.Tools[0].OfFunction == nil {
		t.Fatalf("tools = %+v", p.Tools)
	}
	fn := p.Tools[0].OfFunction.Function
	schema, _ := json.Marshal(fn.Parameters)
	if fn.Name != "load_tool_group" || fn.Description.Value != "Load a tool group" {
		t.Errorf("tool = %+v", fn)
	}
	sameJSON(t, "tool parameters", params, schema)

	// Nothing we send is lost on the way through the SDK's types.
	again, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "body re-encoded by the SDK", req.Body, again)
}

func TestAnthropicRequestDecodesWithSDK(t *testing.T) {
	req, err := wire.Encode(wire.Anthropic, request(false))
	if err != nil {
		t.Fatal(err)
	}
	var p anthropic.MessageNewParams
	if err := json.Unmarshal(req.Body, &p); err != nil {
		t.Fatalf("the SDK cannot decode our body: %v\n%s", err, req.Body)
	}
	if p.Model != "test-model" || p.MaxTokens != 512 || p.Temperature.Value != 0.25 {
		t.Errorf("model %q max %d temperature %v", p.Model, p.MaxTokens, p.Temperature)
	}
	if len(p.System) != 1 || p.System[0].Text != system {
		t.Errorf("system = %+v", p.System)
	}
	var got []string
	for _, m := range p.Messages {
		var blocks []string
		for _, b := range m.Content {
			switch {
			case b.OfText != nil:
				blocks = append(blocks, "text "+b.OfText.Text)
			case b.OfImage != nil && b.OfImage.Source.OfBase64 != nil:
				blocks = append(blocks, fmt.Sprintf("image %s %s", b.OfImage.Source.OfBase64.MediaType, b.OfImage.Source.OfBase64.Data))
			case b.OfToolUse != nil:
				in, _ := json.Marshal(b.OfToolUse.Input)
				blocks = append(blocks, fmt.Sprintf("tool_use %s %s %s", b.OfToolUse.ID, b.OfToolUse.Name, in))
			case b.OfToolResult != nil:
				var text []string
				for _, c := range b.OfToolResult.Content {
					switch {
					case c.OfText != nil:
						text = append(text, c.OfText.Text)
					case c.OfImage != nil && c.OfImage.Source.OfBase64 != nil:
						src := c.OfImage.Source.OfBase64
						text = append(text, fmt.Sprintf(" <image %s %s>", src.MediaType, src.Data))
					case c.OfDocument != nil && c.OfDocument.Source.OfBase64 != nil:
						src := c.OfDocument.Source.OfBase64
						text = append(text, fmt.Sprintf(" <document %s %s %s>", src.MediaType, src.Data, c.OfDocument.Title.Value))
					default:
						text = append(text, " <unknown content>")
					}
				}
				blocks = append(blocks, fmt.Sprintf("tool_result %s error=%v %s", b.OfToolResult.ToolUseID, b.OfToolResult.IsError.Value, strings.Join(text, "")))
			default:
				blocks = append(blocks, "unknown block")
			}
		}
		got = append(got, string(m.Role)+": "+strings.Join(blocks, " | "))
	}
	want := []string{
		"user: text Load the PDF tools & read a.pdf",
		`assistant: text Loading. | tool_use call_1 load_tool_group {"group_name":"pdf"} | tool_use call_2 get_current_time {}`,
		"user: tool_result call_1 error=false Loaded 1 tools from group 'PDF Tools':\n- pdf_info: Info | tool_result call_2 error=true Error (timeout): too slow",
		`assistant: tool_use call_3 pdf_info {"path":"a.pdf"}`,
		"user: tool_result call_3 error=false {\"pages\":3}\n\n[image image/png, 8 bytes]\n\n[resource file:///a.pdf: application/pdf, 9 bytes] <image image/png iVBORw0KGgo=> <document application/pdf JVBERi0xLjQK file:///a.pdf>",
		"assistant: text It has 3 pages.",
		"user: image image/jpeg /9j/4AAQ | text Thanks",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages as the SDK reads them (-want +got):\n%s", diff)
	}
	if len(p.Tools) != 1 || p.Tools[0].OfTool == nil {
		t.Fatalf("tools = %+v", p.Tools)
	}
	tool := p.Tools[0].OfTool
	schema, _ := json.Marshal(tool.InputSchema)
	if tool.Name != "load_tool_group" || tool.Description.Value != "Load a tool group" {
		t.Errorf("tool = %+v", tool)
	}
	sameJSON(t, "tool input_schema", params, schema)

	again, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "body re-encoded by the SDK", req.Body, again)
}

func TestOpenAIResponseFromSDK(t *testing.T) {
	resp := openai.ChatCompletion{
		ID:     "chatcmpl-1",
		Object: "chat.completion",
		Model:  "test-model",
		Choices: []openai.ChatCompletionChoice{{
			FinishReason: "tool_calls",
			Message: openai.ChatCompletionMessage{
				Role:    "assistant",
				Content: "Loading.",
				ToolCalls: []openai.ChatCompletionMessageToolCallUnion{
					{ID: "call_1", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "load_tool_group", Arguments: `{"group_name":"pdf"}`}},
					{ID: "call_2", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "get_current_time", Arguments: `{}`}},
				},
			},
		}},
		Usage: openai.CompletionUsage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150},
	}
	body, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.Decode(wire.OpenAI, body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	want := wire.Response{Text: "Loading.", StopReason: "tool_calls", Usage: wire.Usage{InputTokens: 120, OutputTokens: 30}, Calls: []wire.Call{
		{ID: "call_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`},
		{ID: "call_2", Name: "get_current_time", Input: `{}`},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOpenAIStreamFromSDK(t *testing.T) {
	idx0, idx1 := int64(0), int64(1)
	chunk := func(delta openai.ChatCompletionChunkChoiceDelta, finish string) openai.ChatCompletionChunk {
		return openai.ChatCompletionChunk{ID: "chatcmpl-2", Object: "chat.completion.chunk", Model: "test-model",
			Choices: []openai.ChatCompletionChunkChoice{{Delta: delta, FinishReason: finish}}}
	}
	call := func(index int64, id, name, args string) []openai.ChatCompletionChunkChoiceDeltaToolCall {
		return []openai.ChatCompletionChunkChoiceDeltaToolCall{{Index: index, ID: id, Type: "function",
			Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: name, Arguments: args}}}
	}
	chunks := []openai.ChatCompletionChunk{
		chunk(openai.ChatCompletionChunkChoiceDelta{Role: "assistant", Content: "Load"}, ""),
		chunk(openai.ChatCompletionChunkChoiceDelta{Content: "ing."}, ""),
		chunk(openai.ChatCompletionChunkChoiceDelta{ToolCalls: call(idx0, "call_1", "load_tool_group", `{"group`)}, ""),
		chunk(openai.ChatCompletionChunkChoiceDelta{ToolCalls: call(idx1, "call_2", "get_current_time", `{}`)}, ""),
		chunk(openai.ChatCompletionChunkChoiceDelta{ToolCalls: call(idx0, "", "", `_name":"pdf"}`)}, ""),
		chunk(openai.ChatCompletionChunkChoiceDelta{}, "tool_calls"),
	}
	var body strings.Builder
	for _, c := range chunks {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&body, "data: %s\n\n", b)
	}
	body.WriteString("data: [DONE]\n\n")
	got := readStream(t, wire.OpenAI, body.String())
	want := wire.Response{Text: "Loading.", StopReason: "tool_calls", Calls: []wire.Call{
		{ID: "call_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`},
		{ID: "call_2", Name: "get_current_time", Input: `{}`},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAnthropicResponseFromSDK(t *testing.T) {
	resp := anthropic.Message{
		ID:   "msg_1",
		Type: "message",
		Role: "assistant",
		Content: []anthropic.ContentBlockUnion{
			{Type: "text", Text: "Loading."},
			{Type: "tool_use", ID: "toolu_1", Name: "load_tool_group", Input: json.RawMessage(`{"group_name":"pdf"}`)},
		},
		Model:      "test-model",
		StopReason: anthropic.StopReasonToolUse,
		Usage:      anthropic.Usage{InputTokens: 90, OutputTokens: 12},
	}
	body, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.Decode(wire.Anthropic, body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	want := wire.Response{Text: "Loading.", StopReason: "tool_use", Usage: wire.Usage{InputTokens: 90, OutputTokens: 12},
		Calls: []wire.Call{{ID: "toolu_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAnthropicStreamFromSDK(t *testing.T) {
	events := []struct {
		name string
		v    any
	}{
		{"message_start", anthropic.MessageStartEvent{Type: "message_start", Message: anthropic.Message{ID: "msg_2", Type: "message", Role: "assistant",
			Model: "test-model", Usage: anthropic.Usage{InputTokens: 200, OutputTokens: 1}}}},
		{"content_block_start", anthropic.ContentBlockStartEvent{Type: "content_block_start", Index: 0,
			ContentBlock: anthropic.ContentBlockStartEventContentBlockUnion{Type: "text"}}},
		{"content_block_delta", anthropic.ContentBlockDeltaEvent{Type: "content_block_delta", Index: 0,
			Delta: anthropic.RawContentBlockDeltaUnion{Type: "text_delta", Text: "Loading."}}},
		{"content_block_stop", anthropic.ContentBlockStopEvent{Type: "content_block_stop", Index: 0}},
		{"content_block_start", anthropic.ContentBlockStartEvent{Type: "content_block_start", Index: 1,
			ContentBlock: anthropic.ContentBlockStartEventContentBlockUnion{Type: "tool_use", ID: "toolu_1", Name: "load_tool_group", Input: json.RawMessage(`{}`)}}},
		{"content_block_delta", anthropic.ContentBlockDeltaEvent{Type: "content_block_delta", Index: 1,
			Delta: anthropic.RawContentBlockDeltaUnion{Type: "input_json_delta", PartialJSON: ""}}},
		{"content_block_delta", anthropic.ContentBlockDeltaEvent{Type: "content_block_delta", Index: 1,
			Delta: anthropic.RawContentBlockDeltaUnion{Type: "input_json_delta", PartialJSON: `{"group_name":`}}},
		{"content_block_delta", anthropic.ContentBlockDeltaEvent{Type: "content_block_delta", Index: 1,
			Delta: anthropic.RawContentBlockDeltaUnion{Type: "input_json_delta", PartialJSON: `"pdf"}`}}},
		{"content_block_stop", anthropic.ContentBlockStopEvent{Type: "content_block_stop", Index: 1}},
		{"message_delta", anthropic.MessageDeltaEvent{Type: "message_delta", Delta: anthropic.MessageDeltaEventDelta{StopReason: anthropic.StopReasonToolUse},
			Usage: anthropic.MessageDeltaUsage{OutputTokens: 40}}},
		{"message_stop", anthropic.MessageStopEvent{Type: "message_stop"}},
	}
	var body strings.Builder
	for _, e := range events {
		b, err := json.Marshal(e.v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&body, "event: %s\ndata: %s\n\n", e.name, b)
	}
	got := readStream(t, wire.Anthropic, body.String())
	want := wire.Response{Text: "Loading.", StopReason: "tool_use", Usage: wire.Usage{InputTokens: 200, OutputTokens: 40},
		Calls: []wire.Call{{ID: "toolu_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func readStream(t *testing.T, f wire.Format, body string) wire.Response {
	t.Helper()
	s, err := wire.NewStream(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write([]byte(body)); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	resp, _, err := s.Close()
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	return resp
}
