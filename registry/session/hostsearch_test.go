package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/registry"
)

// hostSearchRegistry has two groups, a disabled group tool and a core
// tool: the candidates of a search are the three enabled group tools.
func hostSearchRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg, rep := registry.Build(registry.Catalogue{
		Groups: []registry.Group{
			{Name: "mail", DisplayName: "Mail", Description: "Send and read email"},
			{Name: "pdf", DisplayName: "PDF", Description: "Read PDF files"},
		},
		Tools: []registry.Tool{
			{Name: "send_email", Description: "Send an email message to a recipient. More detail here.", Group: "mail"},
			{Name: "read_email", Description: "Read an email message by its id", Group: "mail"},
			{Name: "delete_email", Description: "Delete an email message", Group: "mail"},
			{Name: "pdf_text", Description: "Extract the text of a PDF file", Group: "pdf"},
			{Name: "clock", Description: "Tell the time"},
		},
		Disabled: []string{"delete_email"},
	})
	if !rep.OK() {
		t.Fatal(rep)
	}
	return reg
}

// toolCallsBody is an OpenAI response calling tools, name and arguments
// in turn, with ids c0, c1...
func toolCallsBody(t *testing.T, nameArgs ...string) Bytes {
	t.Helper()
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Function fn     `json:"function"`
	}
	var calls []call
	for i := 0; i+1 < len(nameArgs); i += 2 {
		calls = append(calls, call{ID: fmt.Sprintf("c%d", i/2), Function: fn{nameArgs[i], nameArgs[i+1]}})
	}
	b, err := json.Marshal(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"tool_calls": calls}, "finish_reason": "tool_calls"}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// searchTurn starts a turn with search_tools offered, host_search as
// given, and feeds it a response making the calls.
func searchTurn(t *testing.T, reg *registry.Registry, set Settings, history []Message, nameArgs ...string) (*Turn, []Action) {
	t.Helper()
	set.Format, set.Model, set.SearchTools = "openai", "m", true
	turn := NewTurn(reg)
	acts := mustActions(t, turn, Event{Type: EventStart, User: "find me a tool", History: history, Settings: set})
	return turn, append(acts, mustActions(t, turn, Event{Type: EventResponse, Body: toolCallsBody(t, nameArgs...)})...)
}

// actionsOf are the actions of a type.
func actionsOf(acts []Action, typ ActionType) []Action {
	var out []Action
	for _, a := range acts {
		if a.Type == typ {
			out = append(out, a)
		}
	}
	return out
}

// appended are the messages the append actions give, in order.
func appended(acts []Action) []Message {
	var out []Message
	for _, a := range actionsOf(acts, ActionAppend) {
		out = append(out, a.Messages...)
	}
	return out
}

// searchCall is the one search call of a run_tools action.
func searchCall(t *testing.T, acts []Action) Call {
	t.Helper()
	run := actionsOf(acts, ActionRunTools)
	if len(run) != 1 || len(run[0].Calls) != 1 || run[0].Calls[0].Search == nil {
		t.Fatalf("want one run_tools action with one search call, got %+v", acts)
	}
	return run[0].Calls[0]
}

// A search the host ranks is a run_tools call with what to rank; the
// host's answer is loaded as the module's own ranking would be, its
// unknown, disabled, core and repeated names dropped, and logged so that
// a later turn restores the tools.
func TestHostSearch(t *testing.T) {
	reg := hostSearchRegistry(t)
	turn, acts := searchTurn(t, reg, Settings{HostSearch: true}, nil, "search_tools", `{"query":"  send mail ","limit":2}`)
	first := appended(acts)
	if len(first) != 2 || first[1].Type != Assistant {
		t.Errorf("before the host answers, want the user's message and the response alone logged, got %+v", first)
	}
	call := searchCall(t, acts)
	want := Call{ID: "c0", Tool: "search_tools", Input: json.RawMessage(`{"query":"  send mail ","limit":2}`),
		Origin: registry.Origin{Kind: registry.OriginSearch}, TimeoutSeconds: registry.SearchToolsTool().TimeoutSeconds,
		Search: &SearchCall{Query: "send mail", Limit: 2, Candidates: []string{"send_email", "read_email", "pdf_text"}}}
	if diff := cmp.Diff(want, call); diff != "" {
		t.Errorf("the search call (-want +got):\n%s", diff)
	}

	acts = mustActions(t, turn, Event{Type: EventToolResults, Results: []Result{{ID: "c0", Result: registry.Success(""),
		Tools: []string{"clock", "no_such_tool", "delete_email", "pdf_text", "pdf_text", "send_email", "read_email"}}}})
	msgs := appended(acts)
	if len(msgs) != 2 {
		t.Fatalf("want the search's tool_call and tool_result logged, got %+v", msgs)
	}
	if msgs[0].Type != ToolCall || msgs[0].Status != registry.StatusSuccess || !cmp.Equal(msgs[0].Loaded, []string{"pdf_text", "send_email"}) {
		t.Errorf("tool_call %+v: want status success and loaded [pdf_text send_email]", msgs[0])
	}
	wantText := "Found 2 tools for 'send mail', loaded for the rest of this conversation:\n" +
		"- pdf_text (PDF): Extract the text of a PDF file\n" +
		"- send_email (Mail): Send an email message to a recipient."
	if msgs[1].Type != ToolResult || msgs[1].Content != wantText {
		t.Errorf("tool_result %q, want %q", msgs[1].Content, wantText)
	}
	loads := actionsOf(acts, ActionGroupLoaded)
	if len(loads) != 1 || loads[0].Group.Query != "send mail" || !cmp.Equal(loads[0].Group.Added, []string{"pdf_text", "send_email"}) {
		t.Errorf("group_loaded %+v: want the query, trimmed as the search read it, and the two tools added", loads)
	}
	calls := actionsOf(acts, ActionCallModel)
	wantTools := []string{"load_tool_group", "search_tools", "clock", "pdf_text", "send_email"}
	if len(calls) != 1 || !cmp.Equal(calls[0].Request.Tools, wantTools) {
		t.Fatalf("next model call offers %v, want %v", calls[0].Request.Tools, wantTools)
	}

	// A later turn, in any host, finds the tools in the log.
	log := append(first, msgs...)
	if got := toolNames(ActiveTools(reg, log).Tools()); !cmp.Equal(got, []string{"load_tool_group", "clock", "pdf_text", "send_email"}) {
		t.Errorf("restored from the log: %v", got)
	}
	next := NewTurn(reg)
	acts = mustActions(t, next, Event{Type: EventStart, User: "again", History: log, Settings: Settings{Format: "openai", Model: "m", SearchTools: true, HostSearch: true}})
	if calls := actionsOf(acts, ActionCallModel); len(calls) != 1 || !cmp.Equal(calls[0].Request.Tools, wantTools) {
		t.Errorf("the next turn offers %+v, want %v", calls, wantTools)
	}
}

// With the host ranking or the module, a search logs the same messages
// when the host finds what the module finds: "(already loaded)", the
// budget's unloading and the result's text included.
func TestHostSearchSameAsModule(t *testing.T) {
	reg := hostSearchRegistry(t)
	for _, tt := range []struct {
		name    string
		set     Settings
		history []Message
		args    string
	}{
		{name: "plain", args: `{"query":"read email message"}`},
		{name: "already loaded", history: []Message{{Type: User, Content: "hi"}, {Type: Assistant}, loadCall("l", `{"group_name":"mail"}`, registry.StatusSuccess),
			{Type: ToolResult, ToolCallID: "l", ToolName: "load_tool_group", Content: "loaded", Status: registry.StatusSuccess}}, args: `{"query":"email","limit":1}`},
		{name: "budget", set: Settings{ToolBudget: 150}, history: []Message{{Type: User, Content: "hi"}, {Type: Assistant}, loadCall("l", `{"group_name":"mail"}`, registry.StatusSuccess),
			{Type: ToolResult, ToolCallID: "l", ToolName: "load_tool_group", Content: "loaded", Status: registry.StatusSuccess}}, args: `{"query":"text of a PDF file","limit":1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, module := searchTurn(t, reg, tt.set, tt.history, "search_tools", tt.args)
			want := appended(module)
			if len(want) != 4 || want[2].Status != registry.StatusSuccess {
				t.Fatalf("the module's search: %+v", want)
			}
			set := tt.set
			set.HostSearch = true
			turn, acts := searchTurn(t, reg, set, tt.history, "search_tools", tt.args)
			searchCall(t, acts)
			got := appended(acts)
			acts = mustActions(t, turn, Event{Type: EventToolResults, Results: []Result{{ID: "c0", Result: registry.Success(""), Tools: want[2].Loaded}}})
			got = append(got, appended(acts)...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-module +host):\n%s", diff)
			}
			if diff := cmp.Diff(actionsOf(module, ActionGroupLoaded), actionsOf(acts, ActionGroupLoaded), cmp.AllowUnexported(GroupLoad{})); diff != "" {
				t.Errorf("group_loaded (-module +host):\n%s", diff)
			}
			if tt.name == "already loaded" && !strings.HasSuffix(got[3].Content, "(already loaded)") {
				t.Errorf("the loaded tool is not said to be: %q", got[3].Content)
			}
			if tt.name == "budget" && (len(got[2].Unloaded) == 0 || !strings.Contains(got[3].Content, "least recently used")) {
				t.Errorf("the budget unloaded nothing: %+v", got[2:])
			}
		})
	}
}

// Arguments that are not right get the module's own answer at once,
// whoever ranks.
func TestHostSearchBadArguments(t *testing.T) {
	reg := hostSearchRegistry(t)
	for _, args := range []string{`{}`, `[]`, `not json`, `{"query":"  "}`, `{"query":"email","limit":0}`, `{"query":"email","limit":"3"}`} {
		t.Run(args, func(t *testing.T) {
			_, module := searchTurn(t, reg, Settings{}, nil, "search_tools", args)
			_, host := searchTurn(t, reg, Settings{HostSearch: true}, nil, "search_tools", args)
			if run := actionsOf(host, ActionRunTools); len(run) > 0 {
				t.Fatalf("the host was asked to rank: %+v", run)
			}
			want, got := appended(module), appended(host)
			if len(got) != 4 || got[3].Status != registry.StatusError {
				t.Fatalf("want a failed search logged, got %+v", got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-module +host):\n%s", diff)
			}
		})
	}
}

// What the host answers that is not a ranking is refused and changes
// nothing; a failure is the model's to read; names of nothing it may
// find are not_found.
func TestHostSearchAnswers(t *testing.T) {
	reg := hostSearchRegistry(t)
	notFound := "Error (not_found): No tool matches 'pdf'. Try other words for what the tool should do, or load a tool group listed in the system prompt with load_tool_group."
	for _, tt := range []struct {
		name      string
		set       Settings
		result    Result
		wantErr   string
		status    registry.Status
		content   string
		wantTools []string
	}{
		{name: "names in output", result: Result{ID: "c0", Result: registry.Success(`{"tools":["pdf_text"]}`)},
			wantErr: `result "c0" answers a search_tools call: give the names of the tools found, best first, in "tools"`},
		{name: "none found", result: Result{ID: "c0", Result: registry.Success("")}, status: registry.StatusError, content: notFound},
		{name: "only unknown names", result: Result{ID: "c0", Result: registry.Success(""), Tools: []string{"zebra", "", "clock"}}, status: registry.StatusError, content: notFound},
		{name: "outside the allowlist", set: Settings{AllowedGroups: []string{"pdf"}}, result: Result{ID: "c0", Result: registry.Success(""), Tools: []string{"send_email"}},
			status: registry.StatusError, content: notFound},
		{name: "in the allowlist", set: Settings{AllowedGroups: []string{"pdf"}}, result: Result{ID: "c0", Result: registry.Success(""), Tools: []string{"send_email", "pdf_text"}},
			status: registry.StatusSuccess, content: "Found 1 tool for 'pdf', loaded for the rest of this conversation:\n- pdf_text (PDF): Extract the text of a PDF file", wantTools: []string{"pdf_text"}},
		{name: "host failure", result: Result{ID: "c0", Result: registry.Failure("execution_error", "the ranker is not ready")},
			status: registry.StatusError, content: "Error (execution_error): the ranker is not ready"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set := tt.set
			set.HostSearch = true
			turn, acts := searchTurn(t, reg, set, nil, "search_tools", `{"query":"pdf"}`)
			call := searchCall(t, acts)
			if len(set.AllowedGroups) > 0 && !cmp.Equal(call.Search.Candidates, []string{"pdf_text"}) {
				t.Errorf("candidates %v, want the allowed group's tools alone", call.Search.Candidates)
			}
			acts, err := turn.Handle(Event{Type: EventToolResults, Results: []Result{tt.result}})
			if tt.wantErr != "" {
				if !errors.Is(err, ErrEvent) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want ErrEvent saying %q", err, tt.wantErr)
				}
				// Unchanged: a right answer is taken.
				acts = mustActions(t, turn, Event{Type: EventToolResults, Results: []Result{{ID: "c0", Result: registry.Success(""), Tools: []string{"pdf_text"}}}})
				if msgs := appended(acts); len(msgs) != 2 || !cmp.Equal(msgs[0].Loaded, []string{"pdf_text"}) {
					t.Errorf("after the refusal: %+v", msgs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			msgs := appended(acts)
			if len(msgs) != 2 || msgs[0].Status != tt.status || msgs[1].Content != tt.content || !cmp.Equal(msgs[0].Loaded, tt.wantTools) {
				t.Errorf("logged %+v\nwant status %s, loaded %v and %q", msgs, tt.status, tt.wantTools, tt.content)
			}
			if loads := actionsOf(acts, ActionGroupLoaded); (len(loads) == 1) != (tt.status == registry.StatusSuccess) {
				t.Errorf("group_loaded %+v", loads)
			}
			if len(actionsOf(acts, ActionCallModel)) != 1 {
				t.Errorf("want the next model call, got %+v", acts)
			}
		})
	}
}

// A host search beside a host tool: both go out in one run_tools, each
// is logged as it comes, and the calls go back to the model in its order.
func TestHostSearchBesideToolCall(t *testing.T) {
	reg := hostSearchRegistry(t)
	turn, acts := searchTurn(t, reg, Settings{HostSearch: true}, nil, "search_tools", `{"query":"pdf"}`, "clock", `{}`)
	run := actionsOf(acts, ActionRunTools)
	if len(run) != 1 || len(run[0].Calls) != 2 || run[0].Calls[0].Search == nil || run[0].Calls[1].Tool != "clock" {
		t.Fatalf("run_tools %+v: want the search and clock", run)
	}
	log := appended(acts)
	acts = mustActions(t, turn, Event{Type: EventToolResults, Results: []Result{{ID: "c1", Result: registry.Success("noon")}}})
	if len(actionsOf(acts, ActionCallModel)) > 0 {
		t.Fatal("the model was called before the search was answered")
	}
	log = append(log, appended(acts)...)
	acts = mustActions(t, turn, Event{Type: EventToolResults, Results: []Result{{ID: "c0", Result: registry.Success(""), Tools: []string{"pdf_text"}}}})
	log = append(log, appended(acts)...)
	calls := actionsOf(acts, ActionCallModel)
	if len(calls) != 1 {
		t.Fatalf("no model call after both results: %+v", acts)
	}
	body := string(calls[0].Request.Body)
	if i, j := strings.Index(body, `"id":"c0"`), strings.Index(body, `"id":"c1"`); i < 0 || j < 0 || i > j {
		t.Errorf("the calls go back out of the model's order: %s", body)
	}
	var types []string
	for _, m := range log {
		types = append(types, string(m.Type)+" "+m.ToolCallID)
	}
	want := []string{"user ", "assistant ", "tool_call c1", "tool_result c1", "tool_call c0", "tool_result c0"}
	if !slices.Equal(types, want) {
		t.Errorf("log %v, want %v", types, want)
	}
}

// A group tool called after a host search in the same response may be one
// the search loads, which is not known yet: the model is told to call it
// again if so, and how to load it if not.
func TestHostSearchThenToolInOneResponse(t *testing.T) {
	reg := hostSearchRegistry(t)
	_, acts := searchTurn(t, reg, Settings{HostSearch: true}, nil, "pdf_text", `{}`, "search_tools", `{"query":"pdf"}`, "pdf_text", `{}`)
	searchCall(t, acts)
	var results []string
	for _, m := range appended(acts) {
		if m.Type == ToolResult {
			results = append(results, m.Content)
		}
	}
	want := []string{
		"Error (tool_not_loaded): Tool 'pdf_text' is not loaded: it belongs to tool group 'pdf'. Call load_tool_group with group_name 'pdf' first, then call 'pdf_text' again.",
		"Error (tool_not_loaded): Tool 'pdf_text' was not available when you called it. If the search_tools call of this same response loads it, call 'pdf_text' again; if not, call load_tool_group with group_name 'pdf' first.",
	}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}
