package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
)

// Compaction in `toolroute chat`: /compact sends a summarising call (no
// tools), later calls send the summary in the system prompt and the tools
// loaded before it; a later process with a small --context-limit compacts
// by itself before a call that would pass 80% of it. The log keeps every
// message.
func TestChatCompaction(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.Text("Loaded the settings tools."),
		fakemodel.Text("Noted: the user likes tea."),
		fakemodel.Text("SUMMARY-ONE: the user loaded the config tools and likes tea."),
		fakemodel.Text("You like tea."),
		fakemodel.Text("SUMMARY-TWO: config loaded, tea."),
		fakemodel.Text("Still tea."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	args := append([]string{"chat", "--session", "work", "--model", "fake-1"}, providerFlags(fakemodel.OpenAI)...)
	first := u.run("Load the settings tools\nI like tea\n/compact\nWhat do I like?\n", args...)
	if first.code != 0 {
		t.Fatalf("first process: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
	}
	mustContain(t, "the first process's output", first.stdout,
		"[summary]\nSUMMARY-ONE: the user loaded the config tools and likes tea.\n\nTool groups loaded so far, still loaded: config (list_providers,",
		"[Compacted 5 messages into a summary; the 2 after them are sent as they are. The log keeps them all.]",
		"You like tea.")
	// A window so small that the next call passes 80% of it.
	small := append(slices.Clone(args), "--context-limit", "2000")
	second := u.run("And now?\n", small...)
	if second.code != 0 {
		t.Fatalf("second process: exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
	}
	mustContain(t, "the second process's output", second.stdout, "[the conversation neared the model's context window", "Still tea.")

	reqs := model.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model calls, want 7", len(reqs))
	}
	loaded := reqs[2].ToolNames()
	if !slices.Contains(loaded, "get_config") {
		t.Fatalf("the call after the load lacks config's tools: %v", loaded)
	}
	// /compact summarises all but the last exchange; the automatic one,
	// the first summary and the exchanges after it but the current one.
	for i, want := range map[int][]string{3: {"User: Load the settings tools"}, 5: {"Summary of what came before:\\nSUMMARY-ONE", "User: I like tea", "User: What do I like?"}} {
		if got := reqs[i].ToolNames(); len(got) != 0 {
			t.Errorf("summarising call %d sends tools: %v", i+1, got)
		}
		mustContain(t, "a summarising call", string(reqs[i].Body), append(want, "Write the summary of the conversation above now.")...)
	}
	for i, want := range map[int]string{4: "SUMMARY-ONE", 6: "SUMMARY-TWO"} {
		body := string(reqs[i].Body)
		mustContain(t, "the call after a summary", body, "## Summary of the earlier conversation\\n\\n"+want)
		if got := reqs[i].ToolNames(); !slices.Equal(got, loaded) {
			t.Errorf("call %d after the summary sends %v, want the tools before it %v", i+1, got, loaded)
		}
	}
	if strings.Contains(string(reqs[4].Body), "Load the settings tools") {
		t.Errorf("the call after /compact still sends the summarised messages:\n%s", reqs[4].Body)
	}
	// The log keeps every message: the export of the session has them.
	msgs := u.messages("work")
	if !slices.ContainsFunc(msgs, func(m session.Message) bool { return m.Content == "Load the settings tools" }) {
		t.Errorf("the log lost a summarised message: %v", msgs)
	}
}
