package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// `toolroute chat --routing native`, for each provider with native
// deferral, against a scripted server that refuses what the APIs refuse (a
// tool_reference to a tool the request does not defer, a tool search
// output with no call, a namespace the request lacks): a group loaded in one
// process, its tool called, then a second process that calls its other
// tool without loading it again. Every request sends the same tools; the
// loads are in the conversation. A third process goes back to classic
// routing in the same session. The turns print their usage.
func TestChatNativeRouting(t *testing.T) {
	for _, format := range []fakemodel.Format{fakemodel.Anthropic, fakemodel.Responses} {
		t.Run(string(format), func(t *testing.T) {
			model := fakemodel.New(format,
				fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
				fakemodel.ToolCall("get_config", `{}`),
				fakemodel.Text("The model is fake-1."),
				fakemodel.ToolCall("list_providers", `{}`),
				fakemodel.Text("No providers are stored."),
				fakemodel.Text("Classic again."),
			)
			defer model.Close()
			u := newUser(t, model, format)
			args := append([]string{"chat", "--session", "work", "--model", "fake-1", "--routing", "native"}, providerFlags(format)...)
			first := u.run("Which model is set?\n", args...)
			if first.code != 0 {
				t.Fatalf("first process: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
			}
			mustContain(t, "the first process's output", first.stdout,
				"→ load_tool_group {\"group_name\":\"config\"}\n",
				"[loaded group config:",
				"→ get_config {}\n",
				"The model is fake-1.\n",
				"[tokens: ", "3 model calls; schemas of the last call: ")
			second := u.run("Any providers?\n/usage\n", args...)
			if second.code != 0 {
				t.Fatalf("second process: exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
			}
			mustContain(t, "the second process's output", second.stdout, "→ list_providers {}\n", "No providers are stored.\n",
				"Session work: 5 model calls", "Routing: native.", "  turn 1: Which model is set?\n    call 1: 10 in, 5 out; called load_tool_group\n",
				"  turn 2: Any providers?\n    call 1: 10 in, 5 out; called list_providers; native routing; schemas ")
			if strings.Contains(second.stdout, "→ load_tool_group") {
				t.Errorf("the second process loaded the group again:\n%s", second.stdout)
			}
			classic := append([]string{"chat", "--session", "work", "--model", "fake-1", "--routing", "classic"}, providerFlags(format)...)
			if third := u.run("And now?\n", classic...); third.code != 0 {
				t.Fatalf("third process: exit %d\n%s\n%s", third.code, third.stdout, third.stderr)
			}

			reqs := model.Requests()
			if len(reqs) != 6 {
				t.Fatalf("%d model calls, want 6", len(reqs))
			}
			first0 := reqs[0].ToolNames()
			for i, r := range reqs[:5] {
				if got := r.ToolNames(); !slices.Equal(got, first0) {
					t.Errorf("native call %d sent other tools:\n got %v\nwant %v", i+1, got, first0)
				}
			}
			loadedBy := `"type":"tool_reference","tool_name":"list_providers"`
			if format == fakemodel.Responses {
				loadedBy = `"type":"tool_search_output"`
				mustContain(t, "a native request", string(reqs[1].Body), `"type":"tool_search","execution":"client"`, `"type":"namespace","name":"config"`)
			} else {
				mustContain(t, "a native request", string(reqs[1].Body), `"defer_loading":true`, `"cache_control":{"type":"ephemeral"}`)
			}
			for _, i := range []int{1, 3} {
				mustContain(t, "a native request after the load", string(reqs[i].Body), loadedBy)
			}
			if !slices.Contains(reqs[5].ToolNames(), "list_providers") {
				t.Errorf("the classic call does not send the loaded group's tools: %v", reqs[5].ToolNames())
			}
			if strings.Contains(string(reqs[5].Body), loadedBy) || strings.Contains(string(reqs[5].Body), "defer_loading") {
				t.Errorf("the classic call sends native loads:\n%s", reqs[5].Body)
			}
		})
	}
}

// Native routing asked of a provider without native deferral: classic, and
// chat says so.
func TestChatNativeFallsBack(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hi."))
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	res := u.run("hi\n", "chat", "--routing", "native")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the error output", res.stderr, "native routing asked for, but the openai format has no native deferral of tools: classic load_tool_group is used")
	if strings.Contains(string(model.Requests()[0].Body), "defer_loading") {
		t.Errorf("the request defers tools")
	}
}
