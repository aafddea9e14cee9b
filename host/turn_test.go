package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// ownHost is a host with no provider, for turns of the program's own loop,
// with the pdf group whose tools record their calls.
func ownHost(t *testing.T, opts host.Options) (*host.Host, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var calls []string
	groups, tools := pdfTools(&calls, &mu)
	opts.Groups = append(opts.Groups, groups...)
	opts.Tools = append(opts.Tools, tools...)
	opts.NoBuiltins = true
	opts.Module.CacheDir = testcache.Module(cacheDir)
	h, err := host.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(calls)
	}
}

func toolNames(tools []registry.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

// reply hands the turn one call and returns its one result.
func reply(t *testing.T, turn *host.Turn, id, name, args string) host.ToolResult {
	t.Helper()
	res, err := turn.Reply(context.Background(), host.ModelReply{Calls: []host.ToolCall{{ID: id, Name: name, Arguments: args}}})
	if err != nil {
		t.Fatalf("Reply %s %s: %v", name, args, err)
	}
	if len(res) != 1 {
		t.Fatalf("Reply %s %s: %d results, want 1: %+v", name, args, len(res), res)
	}
	if res[0].ID != id || res[0].Tool != name {
		t.Errorf("Reply %s: result of %s %s, want %s %s", name, res[0].ID, res[0].Tool, id, name)
	}
	return res[0]
}

// The program's own loop, routed as Send's turns are: the first call
// offers load_tool_group alone and the listing in the system prompt; a
// tool of a group not loaded is refused with the module's text and not
// run; the load adds the group's tools; missing arguments are refused;
// the right call runs once; the answer ends the turn; and every message
// is in the log, so the session's next turn starts with the group loaded.
func TestTurnRoutesTheProgramsLoop(t *testing.T) {
	ctx := context.Background()
	h, ran := ownHost(t, host.Options{SystemPrompt: "Be brief."})
	turn, err := h.Session("own").Start(ctx, "Pages of a.pdf?")
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close(ctx)
	if got := toolNames(turn.Tools()); !slices.Equal(got, []string{"load_tool_group"}) {
		t.Errorf("first call's tools = %v, want [load_tool_group]", got)
	}
	if sp := turn.SystemPrompt(); !strings.HasPrefix(sp, "Be brief.") || !strings.Contains(sp, "pdf") {
		t.Errorf("system prompt = %q, want the host's prompt then the group listing", sp)
	}

	res := reply(t, turn, "c1", "pdf_info", `{"path":"a.pdf"}`)
	if res.ErrorType != "tool_not_loaded" || !strings.Contains(res.Content, "load_tool_group") {
		t.Errorf("a tool of a group not loaded: %+v, want tool_not_loaded saying to load its group", res)
	}
	if len(ran()) != 0 {
		t.Errorf("the refused call ran: %v", ran())
	}

	res = reply(t, turn, "c2", "load_tool_group", `{"group_name":"pdf"}`)
	if res.ErrorType != "" || !strings.Contains(res.Content, "pdf_info") {
		t.Errorf("load_tool_group: %+v, want a success listing pdf_info", res)
	}
	if got := toolNames(turn.Tools()); !slices.Equal(got, []string{"load_tool_group", "pdf_info", "pdf_text"}) {
		t.Errorf("tools after the load = %v", got)
	}

	res = reply(t, turn, "c3", "pdf_info", `{}`)
	if res.ErrorType != "invalid_arguments" || !strings.Contains(res.Content, "path") {
		t.Errorf("missing arguments: %+v, want invalid_arguments naming path", res)
	}

	res = reply(t, turn, "c4", "pdf_info", `{"path":"a.pdf"}`)
	if res.ErrorType != "" || res.Content != `{"pages":3}` {
		t.Errorf("the right call: %+v", res)
	}
	if got := ran(); !slices.Equal(got, []string{`pdf_info {"path":"a.pdf"}`}) {
		t.Errorf("tools run = %v, want pdf_info once", got)
	}

	res2, err := turn.Reply(ctx, host.ModelReply{Text: "a.pdf has 3 pages."})
	if err != nil || len(res2) != 0 || !turn.Over() {
		t.Fatalf("the answer: %v, %v, over %v; want no results and the turn over", res2, err, turn.Over())
	}
	if _, err := turn.Reply(ctx, host.ModelReply{Text: "again"}); err == nil {
		t.Error("a reply after the answer was taken")
	}

	log, err := h.Session("own").Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, m := range log {
		k := string(m.Type)
		if m.ToolName != "" {
			k += " " + m.ToolName + " " + string(m.Status)
		}
		kinds = append(kinds, k)
	}
	want := []string{"user",
		"assistant", "tool_call pdf_info error", "tool_result pdf_info error",
		"assistant", "tool_call load_tool_group success", "tool_result load_tool_group success",
		"assistant", "tool_call pdf_info error", "tool_result pdf_info error",
		"assistant", "tool_call pdf_info pending", "tool_result pdf_info success",
		"assistant"}
	if !slices.Equal(kinds, want) {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	if last := log[len(log)-1]; last.Content != "a.pdf has 3 pages." {
		t.Errorf("last message %+v, want the answer", last)
	}

	// The next turn, the program's or Send's, has the group loaded.
	next, err := h.Session("own").Start(ctx, "And b.pdf?")
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close(ctx)
	if got := toolNames(next.Tools()); !slices.Equal(got, []string{"load_tool_group", "pdf_info", "pdf_text"}) {
		t.Errorf("the next turn's tools = %v, want the group loaded", got)
	}
}

// Calls of one reply are answered in the reply's order, each under the id
// the model gave (none given: none back); a group's tool called in the
// reply that loads the group is refused, as in Send's turns.
func TestTurnAnswersEachCallOfAReply(t *testing.T) {
	ctx := context.Background()
	h, _ := ownHost(t, host.Options{})
	turn, err := h.Session("many").Start(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close(ctx)
	res, err := turn.Reply(ctx, host.ModelReply{Calls: []host.ToolCall{
		{ID: "a", Name: "load_tool_group", Arguments: `{"group_name":"pdf"}`},
		{Name: "pdf_text", Arguments: `{"path":"a.pdf"}`},
		{ID: "c", Name: "no_such_tool"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, r.ID+" "+r.Tool+" "+r.ErrorType)
	}
	want := []string{"a load_tool_group ", " pdf_text tool_not_loaded", "c no_such_tool unknown_tool"}
	if !slices.Equal(got, want) {
		t.Errorf("results = %q, want %q", got, want)
	}
}

// Approval rules and the Approver apply to the program's calls: a denied
// tool is refused, a tool that asks is refused when no one can be asked,
// and runs when the Approver says once.
func TestTurnAppliesApprovals(t *testing.T) {
	ctx := context.Background()
	writer := host.NativeTool{
		Tool: registry.Tool{Name: "save_note", Description: "Save a note", RequiredPermissions: []string{"write"},
			Parameters: json.RawMessage(`{"properties":{"text":{"type":"string"}}}`)},
		Run: func(context.Context, json.RawMessage) (string, error) { return "saved", nil },
	}
	policies := func(context.Context) ([]session.Policy, error) {
		return []session.Policy{{Tool: "pdf_text", Decision: registry.DecisionDeny}}, nil
	}
	h, _ := ownHost(t, host.Options{Tools: []host.NativeTool{writer}, Policies: policies})
	turn, err := h.Session("ask").Start(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close(ctx)
	reply(t, turn, "l", "load_tool_group", `{"group_name":"pdf"}`)
	if res := reply(t, turn, "d", "pdf_text", `{"path":"a.pdf"}`); res.ErrorType != "denied" {
		t.Errorf("a denied tool: %+v", res)
	}
	if res := reply(t, turn, "w", "save_note", `{"text":"hi"}`); res.ErrorType != "approval_needed" {
		t.Errorf("a tool that asks, with no one to ask: %+v", res)
	}

	var asked []string
	approver := host.ApproverFunc(func(ctx context.Context, id string, calls []session.Call) ([]session.Approval, error) {
		var out []session.Approval
		for _, c := range calls {
			asked = append(asked, id+" "+c.Tool)
			out = append(out, session.Approval{ID: c.ID, Answer: session.AnswerOnce})
		}
		return out, nil
	})
	h2, _ := ownHost(t, host.Options{Tools: []host.NativeTool{writer}, Approver: approver})
	turn2, err := h2.Session("ask").Start(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	defer turn2.Close(ctx)
	if res := reply(t, turn2, "w", "save_note", `{"text":"hi"}`); res.ErrorType != "" || res.Content != "saved" {
		t.Errorf("a tool the user allows once: %+v", res)
	}
	if !slices.Equal(asked, []string{"ask save_note"}) {
		t.Errorf("asked %v, want save_note once", asked)
	}
}

// A turn closed before the model answered is logged as stopped, as Send's
// is when its context ends, and lets the session go: its next turn starts.
func TestTurnClosedUnansweredIsStopped(t *testing.T) {
	ctx := context.Background()
	h, _ := ownHost(t, host.Options{})
	turn, err := h.Session("cut").Start(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	reply(t, turn, "l", "load_tool_group", `{"group_name":"pdf"}`)
	turn.Close(ctx)
	if !turn.Over() {
		t.Error("a closed turn is not over")
	}
	log, err := h.Session("cut").Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if last := log[len(log)-1]; last.Type != session.TurnEnd || last.ErrorType != "stopped" {
		t.Errorf("last message %+v, want a turn_end stopped", last)
	}
	next, err := h.Session("cut").Start(ctx, "again")
	if err != nil {
		t.Fatal(err)
	}
	next.Close(ctx)
}

// The module's limit on a turn's model calls ends the program's turn too:
// Reply gives the results and a *TurnFailedError.
func TestTurnModelCallLimit(t *testing.T) {
	ctx := context.Background()
	h, _ := ownHost(t, host.Options{MaxModelCalls: 2})
	turn, err := h.Session("limit").Start(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close(ctx)
	reply(t, turn, "l", "load_tool_group", `{"group_name":"pdf"}`)
	res, err := turn.Reply(ctx, host.ModelReply{Calls: []host.ToolCall{{ID: "p", Name: "pdf_info", Arguments: `{"path":"a"}`}}})
	var failed *host.TurnFailedError
	if !errors.As(err, &failed) || failed.Failure.Code != "iteration_limit" {
		t.Fatalf("err = %v, want a *TurnFailedError iteration_limit", err)
	}
	if len(res) != 1 || res[0].Content != `{"pages":3}` {
		t.Errorf("results = %+v, want the call's", res)
	}
	if !turn.Over() {
		t.Error("the turn is not over")
	}
}

// search_tools and unload_tool_group work in the program's loop as in
// Send's turns: a search loads the tools it finds, an unload takes a
// group's tools off the next call.
func TestTurnSearchesAndUnloads(t *testing.T) {
	ctx := context.Background()
	h, _ := ownHost(t, host.Options{SearchTools: true, NoEncoderSearch: true, ToolBudget: 100000})
	turn, err := h.Session("search").Start(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close(ctx)
	if got := toolNames(turn.Tools()); !slices.Equal(got, []string{"load_tool_group", "search_tools", "unload_tool_group"}) {
		t.Fatalf("tools = %v, want the three meta-tools", got)
	}
	res := reply(t, turn, "s", "search_tools", `{"query":"PDF text","limit":1}`)
	if res.ErrorType != "" || !strings.Contains(res.Content, "pdf_text") {
		t.Errorf("search_tools: %+v", res)
	}
	if got := toolNames(turn.Tools()); !slices.Contains(got, "pdf_text") {
		t.Errorf("tools after the search = %v, want pdf_text", got)
	}
	reply(t, turn, "l", "load_tool_group", `{"group_name":"pdf"}`)
	if res := reply(t, turn, "u", "unload_tool_group", `{"group_name":"pdf"}`); res.ErrorType != "" {
		t.Errorf("unload_tool_group: %+v", res)
	}
	if got := toolNames(turn.Tools()); slices.Contains(got, "pdf_info") || slices.Contains(got, "pdf_text") {
		t.Errorf("tools after the unload = %v, want the group's off", got)
	}
}
