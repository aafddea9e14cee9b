package main

import (
	"slices"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// `toolroute chat --search-tools`: the model searches the built-in
// catalogue in plain words, the tools found (and not their groups) join
// the next call's tools, one runs; a second process restores them from
// the log without searching again, and a third without the flag keeps
// them but offers no search_tools.
func TestChatSearchTools(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("search_tools", `{"query":"list every tool and whether it is enabled","limit":2}`),
		fakemodel.ToolCall("list_tool_states", `{}`),
		fakemodel.Text("All are enabled."),
		fakemodel.ToolCall("list_tool_states", `{}`),
		fakemodel.Text("Still none."),
		fakemodel.Text("Bye."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	args := append([]string{"chat", "--session", "work", "--model", "fake-1", "--search-tools"}, providerFlags(fakemodel.OpenAI)...)
	first := u.run("Which tools are enabled?\n", args...)
	if first.code != 0 {
		t.Fatalf("first process: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
	}
	mustContain(t, "the first process's output", first.stdout,
		`→ search_tools {"query":"list every tool and whether it is enabled","limit":2}`,
		`[search_tools "list every tool and whether it is enabled" loaded: list_tool_states`,
		"→ list_tool_states {}\n", "All are enabled.\n")
	second := u.run("And now?\n", args...)
	if second.code != 0 {
		t.Fatalf("second process: exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
	}
	mustContain(t, "the second process's output", second.stdout, "→ list_tool_states {}\n", "Still none.\n")
	plain := append([]string{"chat", "--session", "work", "--model", "fake-1"}, providerFlags(fakemodel.OpenAI)...)
	if third := u.run("Thanks\n", plain...); third.code != 0 {
		t.Fatalf("third process: exit %d\n%s\n%s", third.code, third.stdout, third.stderr)
	}

	reqs := model.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	first0 := reqs[0].ToolNames()
	if i := slices.Index(first0, "search_tools"); i != slices.Index(first0, "load_tool_group")+1 {
		t.Errorf("the first call's tools: %v; want search_tools after load_tool_group", first0)
	}
	if slices.Contains(first0, "list_tool_states") {
		t.Errorf("the first call already sends list_tool_states: %v", first0)
	}
	after := reqs[1].ToolNames()
	if !slices.Contains(after, "list_tool_states") {
		t.Fatalf("the call after the search lacks list_tool_states: %v", after)
	}
	if len(after) != len(first0)+2 {
		t.Errorf("after a search with limit 2 the call sends %v: want the first call's tools and 2 more, not the whole group", after)
	}
	if got := reqs[3].ToolNames(); !slices.Equal(got, after) {
		t.Errorf("the second process's tools:\n got %v\nwant %v (restored from the log)", got, after)
	}
	last := reqs[5].ToolNames()
	if slices.Contains(last, "search_tools") || !slices.Contains(last, "list_tool_states") {
		t.Errorf("without --search-tools: %v; want list_tool_states kept and no search_tools", last)
	}
}

// `toolroute chat --tool-budget N`: unload_tool_group is offered, a second
// group that does not fit unloads the first, least recently used, and the
// chat says so; the next process restores the list, unloads included.
func TestChatToolBudget(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.ToolCall("load_tool_group", `{"group_name":"pdf"}`),
		fakemodel.Text("Both asked for."),
		fakemodel.ToolCall("unload_tool_group", `{"group_name":"pdf"}`),
		fakemodel.Text("Done."),
		fakemodel.Text("Bye."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	// Room for the core tools and one of the two groups (core and config
	// take about 3,100 tokens, `toolroute tokens`), not both (about 3,500).
	args := append([]string{"chat", "--session", "work", "--model", "fake-1", "--tool-budget", "3300"}, providerFlags(fakemodel.OpenAI)...)
	first := u.run("Load the config and the pdf tools\n", args...)
	if first.code != 0 {
		t.Fatalf("first process: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
	}
	mustContain(t, "the first process's output", first.stdout,
		"[loaded group config: ", "[loaded group pdf: pdf_info, pdf_extract_text, pdf_render_page; unloaded to fit the tool budget: list_providers")
	second := u.run("Unload pdf\n", args...)
	if second.code != 0 {
		t.Fatalf("second process: exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
	}
	mustContain(t, "the second process's output", second.stdout, "[unloaded group pdf: pdf_info, pdf_extract_text, pdf_render_page]")
	if third := u.run("Bye\n", args...); third.code != 0 {
		t.Fatalf("third process: exit %d\n%s\n%s", third.code, third.stdout, third.stderr)
	}

	reqs := model.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	base := reqs[0].ToolNames()
	if i := slices.Index(base, "unload_tool_group"); i != slices.Index(base, "load_tool_group")+1 {
		t.Errorf("the first call's tools: %v; want unload_tool_group after load_tool_group", base)
	}
	if got := reqs[2].ToolNames(); slices.Contains(got, "list_providers") || !slices.Contains(got, "pdf_info") {
		t.Errorf("after the second load: %v; want pdf's tools and not config's", got)
	}
	if got := reqs[3].ToolNames(); !slices.Equal(got, reqs[2].ToolNames()) {
		t.Errorf("the next process restores %v, want %v", got, reqs[2].ToolNames())
	}
	if got := reqs[5].ToolNames(); !slices.Equal(got, base) {
		t.Errorf("after the unload, a new process sends %v, want the first call's %v", got, base)
	}
}
