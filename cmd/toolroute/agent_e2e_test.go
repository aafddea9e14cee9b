package main

import (
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// `toolroute chat`: the model hands a task to a new agent with
// create_agent, which answers from a session of its own; a later
// `toolroute chat --agent reader` talks to that agent: its system prompt
// and its one group. An agent that is not stored is refused. create_agent
// stores an agent, so it asks: a piped chat runs it only where the user's
// rule allows it.
func TestChatAgent(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("create_agent", `{"name":"reader","task":"Say what you do.","system_prompt":"You are reader: you read PDF files.","groups":["pdf"]}`),
		fakemodel.Text("I read PDF files."),
		fakemodel.Text("reader reads PDF files."),
		fakemodel.Text("Hello, I am reader."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	flags := append([]string{"--model", "fake-1"}, providerFlags(fakemodel.OpenAI)...)
	if r := u.run("", "policy", "set", "tool", "create_agent", "allow"); r.code != 0 {
		t.Fatalf("policy set: exit %d\n%s", r.code, r.stderr)
	}
	first := u.run("Make me a PDF reading agent.\n", append([]string{"chat"}, flags...)...)
	if first.code != 0 {
		t.Fatalf("first process: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
	}
	mustContain(t, "the first process's output", first.stdout, "→ create_agent ", "reader reads PDF files.\n")

	second := u.run("Who are you?\n", append([]string{"chat", "--agent", "reader"}, flags...)...)
	if second.code != 0 {
		t.Fatalf("second process: exit %d\n%s\n%s", second.code, second.stdout, second.stderr)
	}
	mustContain(t, "the second process's output", second.stdout, "Hello, I am reader.\n")
	reqs := model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	for _, i := range []int{1, 3} { // the sub-agent's call and the agent chat's
		msgs, _ := reqs[i].JSON()["messages"].([]any)
		system, _ := msgs[0].(map[string]any)["content"].(string)
		if !strings.HasPrefix(system, "You are reader: you read PDF files.") || strings.Contains(system, "- config: ") {
			t.Errorf("call %d's system prompt:\n%s", i+1, system)
		}
	}

	none := u.run("Hi\n", append([]string{"chat", "--agent", "nobody"}, flags...)...)
	if none.code != 1 || !strings.Contains(none.stderr, `no such agent "nobody": create it with update_agent (config group) or create_agent; stored agents: reader`) {
		t.Errorf("an unknown agent: exit %d\n%s", none.code, none.stderr)
	}
}
