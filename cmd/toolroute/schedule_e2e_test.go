package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
)

// A task scheduled in a chat for a few seconds ahead runs in serve at its
// time, as a session of its own that the API lists with its answer; the
// next chat's list_scheduled_tasks shows the run. chat itself runs no task.
func TestScheduledTaskRunsInServe(t *testing.T) {
	// The time is fixed when the model asks for it: 10 s ahead, for chat to
	// schedule it on a busy machine (a time past is refused); serve, if it
	// starts after it, runs the task as missed, at its start.
	ats := make(chan time.Time, 1)
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"scheduled_tasks"}`),
		fakemodel.Reply{Make: func() fakemodel.Reply {
			at := time.Now().Add(10 * time.Second).UTC().Truncate(time.Second)
			ats <- at
			return fakemodel.ToolCall("schedule_task", `{"name":"news","prompt":"Summarise the news.","at":"`+at.Format(time.RFC3339)+`"}`)
		}},
		fakemodel.Text("Scheduled."),
		// The run, in serve.
		fakemodel.Text("The news: all quiet."),
		// The next chat.
		fakemodel.ToolCall("load_tool_group", `{"group_name":"scheduled_tasks"}`),
		fakemodel.ToolCall("list_scheduled_tasks", `{}`),
		fakemodel.Text("It ran."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	res := u.run("Schedule a news summary in 10 seconds\ny\n", "chat", "--ask-stdin", "--session", "c")
	if res.code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	var at time.Time
	select {
	case at = <-ats:
	default:
		t.Fatalf("chat never asked for schedule_task:\n%s\n%s", res.stdout, res.stderr)
	}
	mustContain(t, "chat's output", res.stdout, "Scheduled.")
	for _, m := range u.messages("c") {
		if m.Type == session.ToolResult && m.ToolName == "schedule_task" && m.Status != "success" {
			t.Fatalf("schedule_task: %s", m.Content)
		}
	}
	if n := len(model.Requests()); n != 3 {
		t.Fatalf("chat made %d model calls, want 3: it runs no task", n)
	}

	cmd := exec.Command(binary(t), "serve", "--port", "0", "--token", "tok-schedule-test-0123456789")
	cmd.Env = u.env
	stdout, _ := cmd.StdoutPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	addr, _, _ := servedAt(line)
	get := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", addr+path, nil)
		req.Header.Set("Authorization", "Bearer tok-schedule-test-0123456789")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: HTTP %d %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, body)
		}
	}
	var runID string
	for deadline := time.Now().Add(testwait.Failsafe); runID == ""; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			var list any
			get("/api/sessions", &list)
			t.Fatalf("no session of the task's run (%d model calls; sessions %v):\n%s", len(model.Requests()), list, errOut.String())
		}
		var list []struct{ ID, Title string }
		get("/api/sessions", &list)
		for _, s := range list {
			if s.Title == "Scheduled task: news" {
				runID = s.ID
			}
		}
	}
	// The title is given once the turn is done: its messages are all there.
	var msgs []session.Message
	get("/api/sessions/"+runID+"/messages", &msgs)
	if len(msgs) != 2 || msgs[0].Content != "Summarise the news." || msgs[1].Content != "The news: all quiet." {
		t.Fatalf("the run's messages: %+v", msgs)
	}
	if started := msgs[0].Time; started.Before(at) {
		t.Errorf("the run started at %v, before its time %v", started, at)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve did not stop cleanly: %v\n%s", err, errOut.String())
	}

	res = u.run("Did my task run?\n", "chat", "--session", "c")
	if res.code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	var listed string
	for _, m := range u.messages("c") {
		if m.Type == session.ToolResult && m.ToolName == "list_scheduled_tasks" {
			listed = m.Content
		}
	}
	mustContain(t, "list_scheduled_tasks", listed, "- news: runs once at "+at.Format(time.RFC3339)+"; will not run again; last run ",
		" in session "+runID+", done.", "Answer: The news: all quiet.")
	mustContain(t, "chat's output", res.stdout, "It ran.")

	// The command line shows the run without a model: call runs the tool.
	res = u.run("", "call", "list_scheduled_tasks")
	if res.code != 0 {
		t.Fatalf("call list_scheduled_tasks: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "call list_scheduled_tasks", res.stdout, "- news: runs once at "+at.Format(time.RFC3339)+"; will not run again; last run ",
		" in session "+runID+", done.", "Answer: The news: all quiet.")
}
