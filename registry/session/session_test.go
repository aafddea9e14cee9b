package session

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

func loadCall(id, input string, status registry.Status) Message {
	return Message{Type: ToolCall, ToolCallID: id, ToolName: registry.LoadToolGroupName, ToolInput: input, Status: status}
}

// The restoring rules of docs/reference/routing.md, "Loaded groups last
// across turns", and their edge cases.
func TestLoadedGroups(t *testing.T) {
	tests := []struct {
		name    string
		history []Message
		want    []string
	}{
		{name: "new session", history: nil, want: nil},
		{
			name: "successful calls only",
			history: []Message{
				{Type: User, Content: "check email"},
				loadCall("1", `{"group_name": "google_gmail"}`, registry.StatusSuccess),
				{Type: ToolResult, ToolCallID: "1", ToolName: registry.LoadToolGroupName, Status: registry.StatusSuccess},
				{Type: ToolCall, ToolCallID: "2", ToolName: "gmail_search", ToolInput: `{"group_name":"x"}`, Status: registry.StatusSuccess},
				loadCall("3", `{"group_name": "google_drive"}`, registry.StatusError),
			},
			want: []string{"google_gmail"},
		},
		{
			name: "loaded twice, loaded once, in first-load order",
			history: []Message{
				loadCall("1", `{"group_name":"pdf"}`, registry.StatusSuccess),
				loadCall("2", `{"group_name":"config"}`, registry.StatusSuccess),
				loadCall("3", `{"group_name":"pdf"}`, registry.StatusSuccess),
			},
			want: []string{"pdf", "config"},
		},
		{
			name: "malformed input is skipped",
			history: []Message{
				loadCall("1", `{"group_name":`, registry.StatusSuccess),
				loadCall("2", `{"group_name":7}`, registry.StatusSuccess),
				loadCall("3", `[]`, registry.StatusSuccess),
				loadCall("4", ``, registry.StatusSuccess),
				loadCall("5", `{"group":"pdf"}`, registry.StatusSuccess),
				loadCall("6", `{"group_name":"ok"}`, registry.StatusSuccess),
			},
			want: []string{"ok"},
		},
		{
			name:    "a result message is not a call",
			history: []Message{{Type: ToolResult, ToolName: registry.LoadToolGroupName, ToolInput: `{"group_name":"pdf"}`, Status: registry.StatusSuccess}},
			want:    nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, LoadedGroups(tt.history)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestActiveToolsIgnoresDeletedGroups(t *testing.T) {
	reg := registry.New()
	if err := reg.AddGroup(registry.Group{Name: "pdf", Description: "PDF"}); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddTool(registry.Tool{Name: "pdf_info", Description: "Info", Group: "pdf"}); err != nil {
		t.Fatal(err)
	}
	active := ActiveTools(reg, []Message{
		loadCall("1", `{"group_name":"gone"}`, registry.StatusSuccess),
		loadCall("2", `{"group_name":"pdf"}`, registry.StatusSuccess),
	})
	if got := active.Groups(); !cmp.Equal(got, []string{"pdf"}) {
		t.Errorf("groups = %v", got)
	}
	if !active.Has("pdf_info") {
		t.Error("pdf_info not active")
	}
}

func TestConversation(t *testing.T) {
	call := func(id string, index int) Message {
		return Message{Type: ToolCall, ToolCallID: id, ToolName: "t", ToolInput: "{}", Status: registry.StatusSuccess, Index: index}
	}
	result := func(id, content string, status registry.Status) Message {
		return Message{Type: ToolResult, ToolCallID: id, ToolName: "t", Content: content, Status: status}
	}
	tests := []struct {
		name string
		log  []Message
		want []wire.Message
	}{
		{
			name: "calls sorted by index, results follow in that order",
			log: []Message{{Type: User, Content: "q"}, {Type: Assistant, Content: "a"},
				call("b", 1), result("b", "B", registry.StatusError), call("a", 0), result("a", "A", registry.StatusSuccess)},
			want: []wire.Message{
				{Role: wire.RoleUser, Text: "q"},
				{Role: wire.RoleAssistant, Text: "a", Calls: []wire.Call{{ID: "a", Name: "t", Input: "{}"}, {ID: "b", Name: "t", Input: "{}"}}},
				{Role: wire.RoleTool, Results: []wire.Result{{CallID: "a", Name: "t", Content: "A"}, {CallID: "b", Name: "t", Content: "B", IsError: true}}},
			},
		},
		{
			name: "a call without a result is dropped, and so is an empty response",
			log:  []Message{{Type: User, Content: "q"}, {Type: Assistant}, call("x", 0), {Type: User, Content: "again"}},
			want: []wire.Message{{Role: wire.RoleUser, Text: "q"}, {Role: wire.RoleUser, Text: "again"}},
		},
		{
			name: "a result without a call is dropped",
			log:  []Message{{Type: User, Content: "q"}, {Type: Assistant, Content: "hi"}, result("z", "?", registry.StatusSuccess)},
			want: []wire.Message{{Role: wire.RoleUser, Text: "q"}, {Role: wire.RoleAssistant, Text: "hi"}},
		},
		{
			name: "a call before any assistant message starts a response; duplicate ids keep the first",
			log:  []Message{{Type: User, Content: "q"}, call("x", 0), call("x", 1), result("x", "X", registry.StatusSuccess), result("x", "Y", registry.StatusSuccess)},
			want: []wire.Message{{Role: wire.RoleUser, Text: "q"},
				{Role: wire.RoleAssistant, Calls: []wire.Call{{ID: "x", Name: "t", Input: "{}"}}},
				{Role: wire.RoleTool, Results: []wire.Result{{CallID: "x", Name: "t", Content: "X"}}}},
		},
		{
			name: "a result before any response and unknown message types are ignored",
			log:  []Message{result("x", "X", registry.StatusSuccess), {Type: "note", Content: "?"}, {Type: User, Content: "q"}},
			want: []wire.Message{{Role: wire.RoleUser, Text: "q"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, conversation(tt.log, nil)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBytesJSON(t *testing.T) {
	tests := []struct {
		in       string
		want     string
		marshals string
	}{
		{`"data: x\n\n"`, "data: x\n\n", `"data: x\n\n"`},
		{`{"a": 1}`, `{"a": 1}`, `{"a":1}`},
		{`[1, 2]`, `[1, 2]`, `[1,2]`},
		{`"{\"a\":1}"`, `{"a":1}`, `{"a":1}`},
		{`"<html>"`, `<html>`, `"\u003chtml\u003e"`},
	}
	for _, tt := range tests {
		var b Bytes
		if err := json.Unmarshal([]byte(tt.in), &b); err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("unmarshal %s = %q, want %q", tt.in, b, tt.want)
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != tt.marshals {
			t.Errorf("marshal %q = %s, want %s", b, out, tt.marshals)
		}
	}
}

// A tool registered mid-turn is offered from the next model call after
// Reload, with the groups loaded earlier in the turn still active.
func TestReload(t *testing.T) {
	build := func(extra ...registry.Tool) *registry.Registry {
		reg, rep := registry.Build(registry.Catalogue{
			Groups: []registry.Group{{Name: "pdf", Description: "PDF"}},
			Tools: append([]registry.Tool{
				{Name: "pdf_info", Description: "Info", Group: "pdf"},
				{Name: "create_tool", Description: "Create a tool"},
			}, extra...),
		})
		if !rep.OK() {
			t.Fatal(rep)
		}
		return reg
	}
	turn := NewTurn(build())
	if err := turn.Reload(build()); err == nil {
		t.Error("Reload before the start was accepted")
	}
	mustActions(t, turn, Event{Type: EventStart, User: "make a tool", Settings: Settings{Format: "openai", Model: "m"}})
	mustActions(t, turn, Event{Type: EventResponse, Body: Bytes(`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"}},{"id":"b","function":{"name":"create_tool","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)})
	if err := turn.Reload(build(registry.Tool{Name: "new_tool", Description: "Made just now"})); err != nil {
		t.Fatal(err)
	}
	acts := mustActions(t, turn, Event{Type: EventToolResults, Results: []Result{{ID: "b", Result: registry.Success("created")}}})
	req := acts[len(acts)-1].Request
	want := []string{"load_tool_group", "create_tool", "new_tool", "pdf_info"}
	if req == nil || !cmp.Equal(req.Tools, want) {
		t.Fatalf("next call offers %v, want %v", req, want)
	}
}

func mustActions(t *testing.T, turn *Turn, e Event) []Action {
	t.Helper()
	acts, err := turn.Handle(e)
	if err != nil {
		t.Fatal(err)
	}
	return acts
}
