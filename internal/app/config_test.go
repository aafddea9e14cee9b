package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
)

// configTools are the config group's tools, in the order docs/reference/routing.md lists them.
var configTools = []string{
	"list_providers", "create_provider", "update_provider", "delete_provider",
	"list_models", "fetch_models", "set_default_model", "add_model", "delete_model",
	"list_agents", "update_agent", "delete_agent",
	"get_config", "set_config", "manage_env_var", "list_tool_states", "set_tool_enabled",
}

// coreTools are the Go program's core tools, sent before any group is
// loaded: a full host has 13 (docs/reference/routing.md, "The built-in
// catalogue"); here it is the list below (no load_skill without
// skills; no exec, which is off unless --exec; no browser, which the
// tests leave off).
var coreTools = []string{
	"load_tool_group", "create_agent", "get_current_time", "http_request", "js_eval", "read_file",
	"save_memory", "search_history", "webfetch", "write_file",
}

// Routing scenario 6, "Add a new OpenAI provider", as a user's model
// would do it in the Go program: it loads the config group (TEST-040-09:
// the core tools and the group's 17 are sent from then on), stores the
// provider with the name of the secret holding its key, and ends in
// success. The user sets the secret; set_config provider sends the next
// turn's model calls to the new provider, with its key, which no log,
// result or other request ever shows.
func TestScenario6AddOpenAIProvider(t *testing.T) {
	work := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hello from the work provider."))
	defer work.Close()
	own := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.ToolCall("create_provider", `{"name":"openai_work","format":"openai","base_url":"`+work.BaseURL()+`","key_secret":"OPENAI_WORK_KEY"}`),
		fakemodel.Text("I added openai_work; set OPENAI_WORK_KEY to use it."),
		fakemodel.ToolCall("set_default_model", `{"provider":"openai_work","model":"gpt-work-1"}`),
		fakemodel.ToolCall("set_config", `{"key":"provider","value":"openai_work"}`),
		fakemodel.Text("Switched."),
	)
	defer own.Close()
	cfg := testConfig(t)
	cfg.Provider, cfg.Model = "openai", "fake-1"
	cfg.Getenv = env(map[string]string{"OPENAI_BASE_URL": own.BaseURL(), "OPENAI_API_KEY": "sk-own-test"})
	var asked []string
	cfg.Approver = host.ApproverFunc(func(_ context.Context, _ string, calls []session.Call) ([]session.Approval, error) {
		out := make([]session.Approval, len(calls))
		for i, c := range calls {
			asked = append(asked, c.Tool)
			out[i] = session.Approval{ID: c.ID, Answer: session.AnswerOnce}
		}
		return out, nil
	})
	a := open(t, cfg)
	ctx := context.Background()

	got := summarize(send(t, a, "s", "Add a new OpenAI provider"))
	if w := []string{"load_tool_group:success", "create_provider:success"}; !slices.Equal(got.calls, w) {
		t.Fatalf("calls = %v, want %v", got.calls, w)
	}
	reqs := own.Requests()
	if n := len(reqs[0].ToolNames()); !slices.Equal(reqs[0].ToolNames(), coreTools) {
		t.Errorf("the first call's %d tools = %v, want the %d core tools %v", n, reqs[0].ToolNames(), len(coreTools), coreTools)
	}
	// TEST-040-09: after the load, the core tools and the 17 config tools,
	// 10 + 17 = 27 here (13 + 17 = 30 with every core tool).
	if after := reqs[1].ToolNames(); !slices.Equal(after, slices.Concat(coreTools, configTools)) || len(after) != 27 {
		t.Errorf("after the load, %d tools: %v", len(after), after)
	}
	if !slices.Equal(asked, []string{"create_provider"}) {
		t.Errorf("asked about %v", asked)
	}

	// The user sets the key (toolroute env set OPENAI_WORK_KEY).
	const key = "sk-work-secret-value-0042"
	if err := a.Store.SetSetting(ctx, builtin.EnvPrefix+"OPENAI_WORK_KEY", key); err != nil {
		t.Fatal(err)
	}
	got = summarize(send(t, a, "s", "Use it, with gpt-work-1"))
	if w := []string{"set_default_model:success", "set_config:success"}; !slices.Equal(got.calls, w) {
		t.Fatalf("calls = %v, want %v", got.calls, w)
	}
	if n := len(work.Requests()); n != 0 {
		t.Fatalf("the turn that switched made %d calls to the new provider: a change applies from the next turn", n)
	}
	got = summarize(send(t, a, "s", "Hello?"))
	if got.reply != "Hello from the work provider." {
		t.Fatalf("reply = %q", got.reply)
	}
	wr := work.Requests()
	if len(wr) != 1 || wr[0].Header.Get("Authorization") != "Bearer "+key || wr[0].JSON()["model"] != "gpt-work-1" {
		t.Fatalf("the work provider's request: %+v", wr)
	}
	// The key is in no stored message and no other request.
	msgs, err := a.Store.Messages(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if strings.Contains(m.Content, key) || strings.Contains(string(m.ToolInput), key) {
			t.Errorf("a message shows the key: %+v", m)
		}
	}
	for _, r := range slices.Concat(own.Requests(), wr) {
		if strings.Contains(string(r.Body), key) {
			t.Errorf("a request body shows the key")
		}
	}
	// Back to the program's own provider.
	if res, err := a.Host.CallTool(ctx, "set_config", []byte(`{"key":"provider","value":""}`)); err != nil || res.Output != "provider restored to its default, the program's own (openai)." {
		t.Errorf("set_config provider \"\" = %+v, %v", res, err)
	}
	if m := a.Model(); m != "fake-1" {
		t.Errorf("model = %q", m)
	}
}

// set_config provider refuses a name no provider has, and a provider whose
// key's secret is not set, saying who sets it.
func TestProviderSettingChecks(t *testing.T) {
	cfg := testConfig(t)
	a := open(t, cfg)
	ctx := context.Background()
	call := func(tool, args string) string {
		res, err := a.Host.CallTool(ctx, tool, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return res.Output + res.Message
	}
	if got := call("set_config", `{"key":"provider","value":"nobody"}`); !strings.Contains(got, `no provider "nobody" is stored: create_provider stores one`) {
		t.Errorf("an unknown provider: %q", got)
	}
	call("create_provider", `{"name":"claude","format":"anthropic","key_secret":"ANT_KEY"}`)
	if got := call("set_config", `{"key":"provider","value":"claude"}`); !strings.Contains(got, "claude's key, the secret ANT_KEY, is not set: the user sets it (toolroute env set ANT_KEY)") {
		t.Errorf("a provider without its key: %q", got)
	}
	if got := call("set_config", `{"key":"provider","value":"nobody"}`); !strings.Contains(got, `use one of claude, or empty for the program's own`) {
		t.Errorf("an unknown provider among stored ones: %q", got)
	}
}

// TEST-040-09, Group Tool Schemas Sent After Load, in the program as chat
// runs it (exec and browser on): the first call sends the core tools, and
// after load_tool_group("config") every call sends them and the group's
// 17, in that order: 12 core tools + 17 = 29, since load_skill is sent
// only when there are skills. Without Chromium the browser tool is left out,
// and the count is 11 + 17.
func TestGroupSchemasSentAfterLoad(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.Text("Loaded."),
		fakemodel.Text("Still loaded."),
	)
	defer model.Close()
	cfg := testConfig(t)
	cfg.Provider, cfg.Model = "openai", "fake-1"
	cfg.Getenv = env(map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "sk-test"})
	cfg.Exec, cfg.Browser = true, true
	a := open(t, cfg)
	core := []string{"load_tool_group", "exec", "browser", "create_agent", "get_current_time", "http_request", "js_eval", "read_file",
		"save_memory", "search_history", "webfetch", "write_file"}
	if slices.ContainsFunc(a.Problems(), func(p string) bool { return strings.HasPrefix(p, "browser is left out") }) {
		core = slices.DeleteFunc(core, func(n string) bool { return n == "browser" })
	}
	send(t, a, "s", "Load the config tools")
	send(t, a, "s", "And now?")
	reqs := model.Requests()
	if got := reqs[0].ToolNames(); !slices.Equal(got, core) {
		t.Errorf("the first call sends %v, want the %d core tools %v", got, len(core), core)
	}
	want := slices.Concat(core, configTools)
	for i, r := range reqs[1:] {
		if got := r.ToolNames(); !slices.Equal(got, want) {
			t.Errorf("call %d after the load sends %d tools %v, want %d", i+2, len(got), got, len(want))
		}
	}
	if len(core) == 12 && len(want) != 29 {
		t.Errorf("%d tools after the load, want 12 + 17 = 29", len(want))
	}
}
