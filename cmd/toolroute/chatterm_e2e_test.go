package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
)

// /usage lists every model call of the session, those of an earlier
// process too, by turn: its tokens and what it did; the calls of this
// process also say what the module counted of their tool schemas.
func TestChatUsageListsEveryCall(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.ToolCall("get_config", `{}`),
		fakemodel.Text("The model is fake-1."),
		fakemodel.ToolCall("list_providers", `{}`),
		fakemodel.Text("No providers are stored."),
		fakemodel.Text("Hello."),
		fakemodel.Text("Bye."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	args := []string{"chat", "--session", "work", "--model", "fake-1"}
	if first := u.run("Which model is set?\nAny providers?\n", args...); first.code != 0 {
		t.Fatalf("first process: exit %d\n%s\n%s", first.code, first.stdout, first.stderr)
	}
	res := u.run("Hi\nBye\n/usage\n", args...)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	_, usage, _ := strings.Cut(res.stdout, "Session work:")
	usage = "Session work:" + usage
	// The fake model reports 10 in and 5 out for each call.
	schemas := regexp.MustCompile(`; schemas [0-9,]+ core tools \+ [0-9,]+ listing \+ [0-9,]+ config = [0-9,]+ o200k tokens\n`)
	got := schemas.ReplaceAllString(usage, "; schemas …\n")
	want := "Session work: 7 model calls, 70 tokens in, 35 out.\n" +
		"Routing: classic.\n" +
		"  turn 1: Which model is set?\n" +
		"    call 1: 10 in, 5 out; called load_tool_group\n" +
		"    call 2: 10 in, 5 out; called get_config\n" +
		"    call 3: 10 in, 5 out; replied (20 characters)\n" +
		"  turn 2: Any providers?\n" +
		"    call 1: 10 in, 5 out; called list_providers\n" +
		"    call 2: 10 in, 5 out; replied (24 characters)\n" +
		"  turn 3: Hi\n" +
		"    call 1: 10 in, 5 out; replied (6 characters); schemas …\n" +
		"  turn 4: Bye\n" +
		"    call 1: 10 in, 5 out; replied (4 characters); schemas …\n"
	if got != want {
		t.Errorf("/usage:\n%s\nwant:\n%s", got, want)
	}
}

// Piped, chat writes the reply as the model wrote it, markdown and all,
// with no escape sequence, and its lines unwrapped: what it always wrote.
func TestChatPipedOutputIsPlain(t *testing.T) {
	reply := "# Plan\nSome **bold** and `code`, in a line long enough to pass any terminal's width of eighty columns by far.\n\n| a | b |\n|---|---|\n| 1 | 2 |"
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("get_current_time", `{"format":"human_readable","note":"`+strings.Repeat("x", 120)+`"}`),
		fakemodel.Text(reply),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	u.setenv("TERM=xterm-256color")
	res := u.run("What time is it?\n/usage\n", "chat", "--session", "p", "--model", "fake-1")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	head, _, _ := strings.Cut(res.stdout, "[tokens: ")
	want := "you> What time is it?\n" +
		`→ get_current_time {"format":"human_readable","note":"` + strings.Repeat("x", 120) + `"}` + "\n"
	if !strings.HasPrefix(head, want) {
		t.Errorf("the output does not start with the call on one line:\n%s", head)
	}
	if !strings.HasSuffix(head, "\n"+reply+"\n") {
		t.Errorf("the reply is not as the model wrote it:\n%s", head)
	}
	if strings.Contains(res.stdout, "\x1b") {
		t.Errorf("the output holds escape sequences:\n%q", res.stdout)
	}
	mustContain(t, "the output", res.stdout, "\n    call 2: 10 in, 5 out; replied (")
}
