package wire

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// conversation exercises every message shape: text, an assistant message
// with text and two calls, their results (one failed), a call-only message
// and a last user message.
var conversation = []Message{
	{Role: RoleUser, Text: "Read report.pdf <today> & summarise"},
	{Role: RoleAssistant, Text: "Loading the PDF tools.", Calls: []Call{
		{ID: "call_1", Name: "load_tool_group", Input: `{"group_name": "pdf"}`},
		{ID: "call_2", Name: "get_current_time", Input: ``},
	}},
	{Role: RoleTool, Results: []Result{
		{CallID: "call_1", Name: "load_tool_group", Content: "Loaded 1 tools from group 'PDF':\n- pdf_info: Info"},
		{CallID: "call_2", Name: "get_current_time", Content: "Error (timeout): too slow", IsError: true},
	}},
	{Role: RoleAssistant, Calls: []Call{{ID: "call.3", Name: "pdf_info", Input: `{"path":`}}},
	{Role: RoleTool, Results: []Result{{CallID: "call.3", Name: "pdf_info", Content: ""}}},
	{Role: RoleUser, Text: "Thanks"},
}

var tools = []ToolDef{
	{Name: "load_tool_group", Description: "Load a group", Parameters: []byte(`{"type":"object","properties":{"group_name":{"type":"string"}},"required":["group_name"]}`)},
	{Name: "pdf_info", Description: "PDF info", Parameters: []byte(`{"type":"object","properties":{}}`)},
}

func TestEncodeOpenAI(t *testing.T) {
	temp := 0.5
	got, err := Encode(OpenAI, Request{Model: "gpt-4o-mini", System: "Be brief.", Messages: conversation, Tools: tools, Stream: true, MaxTokens: 1000, Temperature: &temp})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-4o-mini","messages":[` +
		`{"role":"system","content":"Be brief."},` +
		`{"role":"user","content":"Read report.pdf <today> & summarise"},` +
		`{"role":"assistant","content":"Loading the PDF tools.","tool_calls":[` +
		`{"id":"call_1","type":"function","function":{"name":"load_tool_group","arguments":"{\"group_name\": \"pdf\"}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"get_current_time","arguments":"{}"}}]},` +
		`{"role":"tool","content":"Loaded 1 tools from group 'PDF':\n- pdf_info: Info","tool_call_id":"call_1"},` +
		`{"role":"tool","content":"Error (timeout): too slow","tool_call_id":"call_2"},` +
		`{"role":"assistant","tool_calls":[{"id":"call.3","type":"function","function":{"name":"pdf_info","arguments":"{\"path\":"}}]},` +
		`{"role":"tool","content":"","tool_call_id":"call.3"},` +
		`{"role":"user","content":"Thanks"}],` +
		`"tools":[{"type":"function","function":{"name":"load_tool_group","description":"Load a group","parameters":{"type":"object","properties":{"group_name":{"type":"string"}},"required":["group_name"]}}},` +
		`{"type":"function","function":{"name":"pdf_info","description":"PDF info","parameters":{"type":"object","properties":{}}}}],` +
		`"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":1000,"temperature":0.5}`
	if diff := cmp.Diff(want, string(got.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if got.Path != "/chat/completions" || got.Headers["content-type"] != "application/json" {
		t.Errorf("path %q headers %v", got.Path, got.Headers)
	}
}

func TestEncodeAnthropic(t *testing.T) {
	got, err := Encode(Anthropic, Request{Model: "claude-sonnet-4-5", System: "Be brief.", Messages: conversation, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"claude-sonnet-4-5","max_tokens":4096,"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"Read report.pdf <today> & summarise"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"Loading the PDF tools."},` +
		`{"type":"tool_use","id":"call_1","name":"load_tool_group","input":{"group_name":"pdf"}},` +
		`{"type":"tool_use","id":"call_2","name":"get_current_time","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"Loaded 1 tools from group 'PDF':\n- pdf_info: Info"}]},` +
		`{"type":"tool_result","tool_use_id":"call_2","content":[{"type":"text","text":"Error (timeout): too slow"}],"is_error":true}]},` +
		// The malformed input becomes {}, the id loses its '.'.
		`{"role":"assistant","content":[{"type":"tool_use","id":"call_3","name":"pdf_info","input":{}}]},` +
		// The last results and the next user text share one user turn, results first.
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_3"},{"type":"text","text":"Thanks","cache_control":{"type":"ephemeral"}}]}],` +
		`"tools":[{"name":"load_tool_group","description":"Load a group","input_schema":{"type":"object","properties":{"group_name":{"type":"string"}},"required":["group_name"]}},` +
		`{"name":"pdf_info","description":"PDF info","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}]}`
	if diff := cmp.Diff(want, string(got.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	wantHeaders := map[string]string{"anthropic-version": "2023-06-01", "content-type": "application/json"}
	if got.Path != "/v1/messages" || !cmp.Equal(got.Headers, wantHeaders) {
		t.Errorf("path %q headers %v", got.Path, got.Headers)
	}
}

func TestEncodeAnthropicAlternation(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{
			name: "an empty assistant message is dropped and the user turns merge",
			msgs: []Message{{Role: RoleUser, Text: "a"}, {Role: RoleAssistant, Text: " "}, {Role: RoleUser, Text: "b"}},
			want: `[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]}]`,
		},
		{
			name: "a conversation must start with the user",
			msgs: []Message{{Role: RoleAssistant, Text: "hello"}, {Role: RoleUser, Text: "hi"}},
			want: `[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]`,
		},
		{
			name: "empty user text is dropped",
			msgs: []Message{{Role: RoleUser, Text: ""}, {Role: RoleUser, Text: "x"}},
			want: `[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Encode(Anthropic, Request{Model: "m", Messages: tt.msgs})
			if err != nil {
				t.Fatal(err)
			}
			_, after, _ := strings.Cut(string(got.Body), `"messages":`)
			after = strings.TrimSuffix(after, "}")
			if after != tt.want {
				t.Errorf("messages:\n got %s\nwant %s", after, tt.want)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := Encode("mistral", Request{}); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("unknown format: %v", err)
	}
	for _, f := range Formats {
		if _, err := Encode(f, Request{Messages: []Message{{Role: "system"}}}); err == nil {
			t.Errorf("%s: a bad role was accepted", f)
		}
	}
	if _, err := ParseFormat("anthropic"); err != nil {
		t.Error(err)
	}
	if _, err := ParseFormat("Anthropic"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("ParseFormat is case-sensitive: %v", err)
	}
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseFormat("mistral")
	if want := `wire: unknown format: "mistral": use "openai", "anthropic", "responses" or "gemini"`; err == nil || err.Error() != want {
		t.Errorf("ParseFormat(mistral):\n got %v\nwant %s", err, want)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		format  Format
		body    string
		want    Response
		wantErr error
	}{
		{
			name:   "openai text",
			format: OpenAI,
			body:   `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!","refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}`,
			want:   Response{Text: "Hello!", StopReason: "stop", Usage: Usage{InputTokens: 9, OutputTokens: 3}},
		},
		{
			name:   "openai tool calls with null content",
			format: OpenAI,
			body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
				`{"id":"call_1","type":"function","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"}},` +
				`{"id":"call_2","type":"function","function":{"name":"pdf_info","arguments":{"path":"a.pdf"}}}]},"finish_reason":"tool_calls"}]}`,
			want: Response{StopReason: "tool_calls", Calls: []Call{
				{ID: "call_1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`},
				{ID: "call_2", Name: "pdf_info", Input: `{"path":"a.pdf"}`},
			}},
		},
		{
			name:   "openai content parts",
			format: OpenAI,
			body:   `{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]},"finish_reason":"stop"}]}`,
			want:   Response{Text: "ab", StopReason: "stop"},
		},
		{name: "openai error object", format: OpenAI, body: `{"error":{"message":"The model 'x' does not exist","type":"invalid_request_error","code":"model_not_found"}}`, wantErr: ErrProvider},
		{name: "openai no choices", format: OpenAI, body: `{"choices":[]}`, wantErr: ErrBadResponse},
		{name: "openai not JSON", format: OpenAI, body: `<html>Bad Gateway</html>`, wantErr: ErrBadResponse},
		{name: "openai content a number", format: OpenAI, body: `{"choices":[{"message":{"content":5}}]}`, wantErr: ErrBadResponse},
		{
			name:   "anthropic text and tool use",
			format: Anthropic,
			body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[` +
				`{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_1","name":"gmail_search","input":{"query": "is:unread"}}],` +
				`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":20}}`,
			want: Response{Text: "Let me check.", StopReason: "tool_use", Usage: Usage{InputTokens: 100, OutputTokens: 20},
				Calls: []Call{{ID: "toolu_1", Name: "gmail_search", Input: `{"query":"is:unread"}`}}},
		},
		{
			name:   "anthropic skips thinking blocks",
			format: Anthropic,
			body:   `{"type":"message","content":[{"type":"thinking","thinking":"hmm","signature":"x"},{"type":"text","text":"Done"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
			want:   Response{Text: "Done", StopReason: "end_turn", Usage: Usage{InputTokens: 1, OutputTokens: 1}},
		},
		{
			name:   "openai cached tokens",
			format: OpenAI,
			body:   `{"choices":[{"message":{"content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}}`,
			want:   Response{Text: "Hi", StopReason: "stop", Usage: Usage{InputTokens: 2006, OutputTokens: 300, CachedTokens: 1920}},
		},
		{
			name:   "anthropic cache reads",
			format: Anthropic,
			body:   `{"type":"message","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":21,"cache_creation_input_tokens":0,"cache_read_input_tokens":1888,"output_tokens":5}}`,
			want:   Response{Text: "Hi", StopReason: "end_turn", Usage: Usage{InputTokens: 21, OutputTokens: 5, CachedTokens: 1888}},
		},
		{name: "anthropic error", format: Anthropic, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, wantErr: ErrProvider},
		{name: "anthropic wrong type", format: Anthropic, body: `{"type":"completion"}`, wantErr: ErrBadResponse},
		{name: "anthropic truncated", format: Anthropic, body: `{"type":"message","content":[`, wantErr: ErrBadResponse},
		{
			name:   "responses text, refusal and calls, reasoning skipped",
			format: Responses,
			body: `{"id":"resp_1","object":"response","status":"completed","error":null,"incomplete_details":null,"output":[` +
				`{"id":"rs_1","type":"reasoning","summary":[]},` +
				`{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Let me check.","annotations":[]}]},` +
				`{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"gmail_search","arguments":"{\"query\":\"is:unread\"}"}],` +
				`"usage":{"input_tokens":2006,"input_tokens_details":{"cached_tokens":1920},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":200},"total_tokens":2306}}`,
			want: Response{Text: "Let me check.", StopReason: "completed", Usage: Usage{InputTokens: 2006, OutputTokens: 300, CachedTokens: 1920},
				Calls: []Call{{ID: "call_1", Name: "gmail_search", Input: `{"query":"is:unread"}`}}},
		},
		{
			name:   "responses refusal",
			format: Responses,
			body:   `{"status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"I can't help with that."}]}]}`,
			want:   Response{Text: "I can't help with that.", StopReason: "completed"},
		},
		{
			name:   "responses incomplete",
			format: Responses,
			body:   `{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","content":[{"type":"output_text","text":"Partial"}]}]}`,
			want:   Response{Text: "Partial", StopReason: "max_output_tokens"},
		},
		{name: "responses error body", format: Responses, body: `{"error":{"message":"Unknown parameter: 'foo'.","type":"invalid_request_error","param":"foo","code":"unknown_parameter"}}`, wantErr: ErrProvider},
		{name: "responses failed", format: Responses, body: `{"status":"failed","error":{"code":"server_error","message":"The model failed."},"output":[]}`, wantErr: ErrProvider},
		{name: "responses not a response", format: Responses, body: `{"choices":[]}`, wantErr: ErrBadResponse},
		{
			name:   "gemini text and calls, thoughts skipped, signature kept",
			format: Gemini,
			body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"thinking...","thought":true},{"text":"Let me "},{"text":"check."},` +
				`{"functionCall":{"id":"fc_1","name":"gmail_search","args":{"query": "is:unread"}},"thoughtSignature":"CiQBsig="},` +
				`{"functionCall":{"name":"get_current_time"}}]},"finishReason":"STOP","index":0}],` +
				`"usageMetadata":{"promptTokenCount":2006,"candidatesTokenCount":100,"thoughtsTokenCount":200,"cachedContentTokenCount":1920,"totalTokenCount":2306},"modelVersion":"gemini-test"}`,
			want: Response{Text: "Let me check.", StopReason: "STOP", Usage: Usage{InputTokens: 2006, OutputTokens: 300, CachedTokens: 1920},
				Calls: []Call{{ID: "fc_1", Name: "gmail_search", Input: `{"query":"is:unread"}`, Signature: "CiQBsig="}, {Name: "get_current_time", Input: `{}`}}},
		},
		{
			name:   "gemini text with a signature on an empty last part",
			format: Gemini,
			body:   `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"},{"text":"","thoughtSignature":"CiQB"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}}`,
			want:   Response{Text: "Hi", StopReason: "STOP", Usage: Usage{InputTokens: 5, OutputTokens: 1}},
		},
		{name: "gemini error body", format: Gemini, body: `{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"foo\": Cannot find field.","status":"INVALID_ARGUMENT"}}`, wantErr: ErrProvider},
		{name: "gemini prompt blocked", format: Gemini, body: `{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":5}}`, wantErr: ErrProvider},
		{name: "gemini candidate blocked", format: Gemini, body: `{"candidates":[{"finishReason":"SAFETY","index":0}]}`, wantErr: ErrProvider},
		{name: "gemini no candidates", format: Gemini, body: `{"usageMetadata":{"promptTokenCount":5}}`, wantErr: ErrBadResponse},
		{name: "gemini not JSON", format: Gemini, body: `<html>`, wantErr: ErrBadResponse},
		{name: "unknown format", format: "x", body: `{}`, wantErr: ErrUnknownFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(tt.format, []byte(tt.body))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeProviderMessage(t *testing.T) {
	_, err := Decode(OpenAI, []byte(`{"error":{"message":"The model 'x' does not exist","type":"invalid_request_error"}}`))
	if err == nil || !strings.Contains(err.Error(), "The model 'x' does not exist (invalid_request_error)") {
		t.Errorf("err = %v", err)
	}
}

func TestStreams(t *testing.T) {
	want := Response{Text: "Loading the PDF tools.", Calls: []Call{
		{ID: "call_Ab1", Name: "load_tool_group", Input: `{"group_name": "pdf"}`},
		{ID: "call_Cd2", Name: "get_current_time", Input: `{}`},
	}, StopReason: "tool_calls"}
	wantResponses := Response{Text: "Loading the PDF tools.", Calls: []Call{
		{ID: "call_Ab1", Name: "load_tool_group", Input: `{"group_name": "pdf"}`},
		{ID: "call_Cd2", Name: "get_current_time", Input: `{}`},
	}, StopReason: "completed", Usage: Usage{InputTokens: 472, OutputTokens: 61, CachedTokens: 384}}
	wantGemini := Response{Text: "Loading the PDF tools.", Calls: []Call{
		{ID: "fc_g1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`, Signature: "CiQBjz1rX2Rsb2FkIHRoZSBQREYgdG9vbHM="},
		{ID: "fc_g2", Name: "get_current_time", Input: `{}`},
	}, StopReason: "STOP", Usage: Usage{InputTokens: 472, OutputTokens: 61, CachedTokens: 384}}
	wantAnthropic := Response{Text: "Loading the PDF tools.", Calls: []Call{
		{ID: "toolu_01A", Name: "load_tool_group", Input: `{"group_name": "pdf"}`},
		{ID: "toolu_01B", Name: "get_current_time", Input: `{}`},
	}, StopReason: "tool_use", Usage: Usage{InputTokens: 472, OutputTokens: 61}}

	for _, tt := range []struct {
		format Format
		file   string
		want   Response
	}{
		{OpenAI, "testdata/openai_stream_tools.sse", want},
		{Anthropic, "testdata/anthropic_stream_tools.sse", wantAnthropic},
		{Responses, "testdata/responses_stream_tools.sse", wantResponses},
		{Gemini, "testdata/gemini_stream_tools.sse", wantGemini},
	} {
		body, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, crlf := range []bool{false, true} {
			b := body
			if crlf {
				b = bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n"))
			}
			// Split the body at every size from one byte to all of it: the
			// result and the text deltas must not depend on where chunks end.
			for size := 1; size <= len(b); size += max(1, size/3) {
				s, err := NewStream(tt.format)
				if err != nil {
					t.Fatal(err)
				}
				var text strings.Builder
				for off := 0; off < len(b); off += size {
					deltas, err := s.Write(b[off:min(off+size, len(b))])
					if err != nil {
						t.Fatalf("%s crlf=%v size %d: %v", tt.format, crlf, size, err)
					}
					text.WriteString(strings.Join(deltas, ""))
				}
				got, deltas, err := s.Close()
				if err != nil {
					t.Fatalf("%s crlf=%v size %d: close: %v", tt.format, crlf, size, err)
				}
				text.WriteString(strings.Join(deltas, ""))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Fatalf("%s crlf=%v size %d (-want +got):\n%s", tt.format, crlf, size, diff)
				}
				if text.String() != tt.want.Text {
					t.Fatalf("%s crlf=%v size %d: deltas %q", tt.format, crlf, size, text.String())
				}
			}
		}
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name    string
		format  Format
		body    string
		wantErr error
	}{
		{"openai cut before the end", OpenAI, "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n", ErrBadResponse},
		{"openai error event", OpenAI, "data: {\"error\":{\"message\":\"Rate limit\",\"type\":\"requests\"}}\n\n", ErrProvider},
		{"openai garbage", OpenAI, "data: {nope\n\n", ErrBadResponse},
		{"anthropic cut", Anthropic, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n", ErrBadResponse},
		{"anthropic error event", Anthropic, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", ErrProvider},
		{"anthropic delta before start", Anthropic, "data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n", ErrBadResponse},
		{"responses cut", Responses, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hel\"}\n\n", ErrBadResponse},
		{"responses error event", Responses, "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\",\"param\":null,\"sequence_number\":3}\n\n", ErrProvider},
		{"responses failed", Responses, "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed.\"},\"output\":[]}}\n\n", ErrProvider},
		{"responses arguments before the item", Responses, "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_9\",\"output_index\":4,\"delta\":\"{\"}\n\n", ErrBadResponse},
		{"responses garbage", Responses, "data: {nope\n\n", ErrBadResponse},
		{"gemini cut", Gemini, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}]}}]}\n\n", ErrBadResponse},
		{"gemini error chunk", Gemini, "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\n\n", ErrProvider},
		{"gemini blocked", Gemini, "data: {\"candidates\":[{\"finishReason\":\"SAFETY\"}]}\n\n", ErrProvider},
		{"gemini garbage", Gemini, "data: [1,2\n\n", ErrBadResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := NewStream(tt.format)
			_, err := s.Write([]byte(tt.body))
			if err == nil {
				_, _, err = s.Close()
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if _, again := s.Write([]byte("data: [DONE]\n\n")); !errors.Is(again, tt.wantErr) {
				t.Errorf("after an error, Write gave %v", again)
			}
		})
	}
	if _, err := NewStream("x"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("NewStream(x): %v", err)
	}
}

func TestStreamOpenAIWithoutIndexOrDone(t *testing.T) {
	// Some OpenAI-compatible servers send each call whole, without an index,
	// and end without [DONE].
	body := `data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"two","arguments":"{\"x\":1}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":7}}`
	s, _ := NewStream(OpenAI)
	if _, err := s.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := Response{StopReason: "tool_calls", Usage: Usage{InputTokens: 5, OutputTokens: 7},
		Calls: []Call{{ID: "a", Name: "one", Input: "{}"}, {ID: "b", Name: "two", Input: `{"x":1}`}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSSEFraming(t *testing.T) {
	type ev struct{ name, data string }
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"LF", "event: a\ndata: 1\n\n", []ev{{"a", "1"}}},
		{"CR", "event: a\rdata: 1\r\r", []ev{{"a", "1"}}},
		{"multi-line data", "data: x\ndata:y\n\n", []ev{{"", "x\ny"}}},
		{"comments and unknown fields", ": keep-alive\nid: 7\nretry: 10\ndata: z\n\n", []ev{{"", "z"}}},
		{"event without data is dropped", "event: ping\n\ndata: q\n\n", []ev{{"", "q"}}},
		{"last event without blank line", "data: tail", []ev{{"", "tail"}}},
		{"field without colon", "data\n\n", []ev{{"", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []ev
			var d sseDecoder
			emit := func(name, data string) error { got = append(got, ev{name, data}); return nil }
			for i := 0; i < len(tt.in); i++ {
				if err := d.feed([]byte{tt.in[i]}, emit); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.flush(emit); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(ev{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSSEEventLimit(t *testing.T) {
	s, _ := NewStream(OpenAI)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		_, err = s.Write(chunk)
	}
	if !errors.Is(err, ErrBadResponse) {
		t.Errorf("a 10 MB line gave %v", err)
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{401, `{"error":{"message":"Incorrect API key provided: sk-xx.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			"HTTP 401: check the API key: Incorrect API key provided: sk-xx. (invalid_request_error)"},
		{404, `{"error":"model \"llama9\" not found, try pulling it first"}`,
			`HTTP 404: check the model name and the base URL: model "llama9" not found, try pulling it first`},
		{429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`,
			"HTTP 429: rate limited, try again later: Number of requests has exceeded your rate limit (rate_limit_error)"},
		{502, "<html>\n<body>Bad   Gateway</body></html>", "HTTP 502: the provider failed, try again later: <html> <body>Bad Gateway</body></html>"},
		{429, `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"27s"}]}}`,
			"HTTP 429: rate limited, try again later: You exceeded your current quota. (RESOURCE_EXHAUSTED)"},
		{400, ``, "HTTP 400"},
	}
	for _, tt := range tests {
		if got := ErrorMessage(tt.status, []byte(tt.body)); got != tt.want {
			t.Errorf("ErrorMessage(%d):\n got %q\nwant %q", tt.status, got, tt.want)
		}
	}
}

// TestEncodeImages: Anthropic carries a result's images as image blocks after
// its text, Responses as input_image parts of function_call_output, Gemini
// as inline data parts of the functionResponse (PNG, JPEG and WebP: it reads
// no GIF); OpenAI's tool messages are text only, so the text's placeholder
// stands for the image there.
func TestEncodeImages(t *testing.T) {
	conv := []Message{
		{Role: RoleUser, Text: "Show me"},
		{Role: RoleAssistant, Calls: []Call{{ID: "c1", Name: "shot", Input: `{}`}, {ID: "c2", Name: "pic", Input: `{}`}}},
		{Role: RoleTool, Results: []Result{
			{CallID: "c1", Name: "shot", Content: "A screenshot:\n\n[image image/png, 8 bytes]", Images: []Image{{MIMEType: "image/png", Data: "iVBORw0KGgo="}}},
			{CallID: "c2", Name: "pic", Images: []Image{{MIMEType: "image/jpeg", Data: "/9j/4A=="}, {MIMEType: "image/gif", Data: "R0lGOD=="}}},
		}},
	}
	an, err := Encode(Anthropic, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","max_tokens":4096,"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"Show me"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"shot","input":{}},{"type":"tool_use","id":"c2","name":"pic","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"A screenshot:\n\n[image image/png, 8 bytes]"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},` +
		`{"type":"tool_result","tool_use_id":"c2","content":[{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4A=="}},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGOD=="}}],"cache_control":{"type":"ephemeral"}}]}]}`
	if diff := cmp.Diff(want, string(an.Body)); diff != "" {
		t.Errorf("anthropic body (-want +got):\n%s", diff)
	}
	oa, err := Encode(OpenAI, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(oa.Body, []byte("iVBORw0KGgo=")) || !bytes.Contains(oa.Body, []byte(`"content":"A screenshot:\n\n[image image/png, 8 bytes]"`)) {
		t.Errorf("openai body carries the image data or lost the placeholder:\n%s", oa.Body)
	}
	rs, err := Encode(Responses, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Show me"}]},` +
		`{"type":"function_call","call_id":"c1","name":"shot","arguments":"{}"},{"type":"function_call","call_id":"c2","name":"pic","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"A screenshot:\n\n[image image/png, 8 bytes]"},` +
		`{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]},` +
		`{"type":"function_call_output","call_id":"c2","output":[{"type":"input_image","image_url":"data:image/jpeg;base64,/9j/4A=="},` +
		`{"type":"input_image","image_url":"data:image/gif;base64,R0lGOD=="}]}],"store":false}`
	if diff := cmp.Diff(want, string(rs.Body)); diff != "" {
		t.Errorf("responses body (-want +got):\n%s", diff)
	}
	gm, err := Encode(Gemini, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"contents":[{"role":"user","parts":[{"text":"Show me"}]},` +
		`{"role":"model","parts":[{"functionCall":{"id":"c1","name":"shot"},"thoughtSignature":"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="},{"functionCall":{"id":"c2","name":"pic"}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"shot","response":{"output":"A screenshot:\n\n[image image/png, 8 bytes]"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}},` +
		`{"functionResponse":{"id":"c2","name":"pic","response":{"output":""},"parts":[{"inlineData":{"mimeType":"image/jpeg","data":"/9j/4A=="}}]}}]}]}`
	if diff := cmp.Diff(want, string(gm.Body)); diff != "" {
		t.Errorf("gemini body (-want +got):\n%s", diff)
	}
}

// TestEncodeDocuments: a result's PDF goes where the format carries one:
// Anthropic as a document block of the tool_result, after its images,
// titled with its name; Responses as an input_file part with the PDF as a
// data URL and a file name; Gemini as inline data of the functionResponse.
// OpenAI's tool messages are text only: the text's placeholder stands for
// it there.
func TestEncodeDocuments(t *testing.T) {
	conv := []Message{
		{Role: RoleUser, Text: "Read it"},
		{Role: RoleAssistant, Calls: []Call{{ID: "c1", Name: "report", Input: `{}`}}},
		{Role: RoleTool, Results: []Result{
			{CallID: "c1", Name: "report", Content: "[resource file:///r/q3.pdf: application/pdf, 9 bytes]",
				Documents: []Document{{MIMEType: "application/pdf", Data: "JVBERi0xLjQK", Name: "file:///r/q3.pdf"}, {MIMEType: "application/pdf", Data: "JVBERi0xLjQK"}}},
		}},
	}
	an, err := Encode(Anthropic, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"[resource file:///r/q3.pdf: application/pdf, 9 bytes]"},` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"},"title":"file:///r/q3.pdf"},` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"}}],"cache_control":{"type":"ephemeral"}}`
	if !bytes.Contains(an.Body, []byte(want)) {
		t.Errorf("anthropic body lacks\n%s\n%s", want, an.Body)
	}
	oa, err := Encode(OpenAI, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(oa.Body, []byte("JVBERi0xLjQK")) || !bytes.Contains(oa.Body, []byte(`"content":"[resource file:///r/q3.pdf: application/pdf, 9 bytes]"`)) {
		t.Errorf("openai body carries the PDF or lost the placeholder:\n%s", oa.Body)
	}
	rs, err := Encode(Responses, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"[resource file:///r/q3.pdf: application/pdf, 9 bytes]"},` +
		`{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"q3.pdf"},` +
		`{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"document.pdf"}]}`
	if !bytes.Contains(rs.Body, []byte(want)) {
		t.Errorf("responses body lacks\n%s\n%s", want, rs.Body)
	}
	gm, err := Encode(Gemini, Request{Model: "m", Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"functionResponse":{"id":"c1","name":"report","response":{"output":"[resource file:///r/q3.pdf: application/pdf, 9 bytes]"},` +
		`"parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQK"}},{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQK"}}]}}`
	if !bytes.Contains(gm.Body, []byte(want)) {
		t.Errorf("gemini body lacks\n%s\n%s", want, gm.Body)
	}
}
