package main

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
)

// exec as a user runs it: `toolroute call exec` runs a command in the
// sandbox folder and prints its exit code and output; a failing command is
// a failure.
func TestExecCall(t *testing.T) {
	u := newUser(t, nil, "")
	res := u.run("", "call", "exec", "--params", `{"command":"echo made > made.txt; cat made.txt; pwd"}`)
	sandbox := filepath.Join(u.home, ".local", "share", "toolroute", "files")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "exit code 0 after ") || !strings.HasSuffix(res.stdout, "; output:\nmade\n"+sandbox+"\n\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(sandbox, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the file in the sandbox: %q, %v", b, err)
	}
	res = u.run("", "call", "exec", "--params", `{"command":"echo no; exit 4"}`)
	if res.code != 1 || !strings.Contains(res.stderr, "exec failed (exit_status): exit code 4 after ") || !strings.Contains(res.stderr, "no") {
		t.Errorf("a failing command: exit %d, stderr %q", res.code, res.stderr)
	}
}

// exec in chat asks before every run: "a" (always in this session) counts
// once for it, so the next run asks again, and "n" leaves it unrun. A
// policy allowing it is not followed, and a piped chat's refusal does not
// suggest one (it once told the model to have the user set the rule that
// exec then ignored).
func TestExecInChat(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("exec", `{"command":"echo one >> runs.txt"}`), fakemodel.Text("Ran once."),
		fakemodel.ToolCall("exec", `{"command":"echo two >> runs.txt"}`), fakemodel.Text("Ran twice."),
		fakemodel.ToolCall("exec", `{"command":"echo three >> runs.txt"}`), fakemodel.Text("Not run."),
		fakemodel.ToolCall("exec", `{"command":"echo four >> runs.txt"}`), fakemodel.Text("Refused."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	runs := filepath.Join(u.home, ".local", "share", "toolroute", "files", "runs.txt")
	if res := u.run("", "policy", "set", "tool", "exec", "allow"); res.code != 0 {
		t.Fatalf("policy set: %d %s", res.code, res.stderr)
	}
	res := u.run("Run one\na\nRun two\ny\nRun three\nn\n", "chat", "--ask-stdin", "--session", "x")
	if res.code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if n := strings.Count(res.stdout, "? exec {"); n != 3 {
		t.Errorf("asked %d times, want 3:\n%s", n, res.stdout)
	}
	mustContain(t, "the chat", res.stdout, `? exec {"command":"echo one >> runs.txt"} (write, run_code, unsandboxed)`, "← exec: exit code 0 after ", "← exec failed (denied)", "Not run.")
	if b, _ := os.ReadFile(runs); string(b) != "one\ntwo\n" {
		t.Errorf("runs.txt = %q", b)
	}
	var answers []string
	for _, m := range u.messages("x") {
		if m.Type == session.ApprovalAnswer {
			answers = append(answers, m.Content)
		}
	}
	if !slices.Equal(answers, []string{"once", "once", "deny"}) {
		t.Errorf("the log's answers: %q", answers)
	}
	if reqs := model.Requests(); !slices.Contains(reqs[0].ToolNames(), "exec") {
		t.Errorf("chat does not offer exec: %v", reqs[0].ToolNames())
	}

	piped := u.run("Run four\n", "chat", "--session", "y")
	mustContain(t, "a piped chat", piped.stdout, "'exec' asks the user before every run, whatever their rules say, and no one is here to answer (the chat is not interactive). It did not run. Tell the user: it runs only in a chat where they are asked.")
	if strings.Contains(piped.stdout, "policy set") {
		t.Errorf("the refusal suggests a rule exec ignores:\n%s", piped.stdout)
	}
	if b, _ := os.ReadFile(runs); string(b) != "one\ntwo\n" {
		t.Errorf("runs.txt = %q after the piped chat", b)
	}
}

// serve offers exec only with --exec.
func TestServeExecFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"--exec"}, true}} {
		u := newUser(t, fakemodel.New(fakemodel.OpenAI), fakemodel.OpenAI)
		cmd := exec.Command(binary(t), append([]string{"serve", "--port", "0", "--token", "tok-exec-test-0123456789"}, c.args...)...)
		cmd.Env = u.env
		stdout, _ := cmd.StdoutPipe()
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("%v: %s", err, errOut.String())
		}
		addr, _, _ := servedAt(line)
		req, _ := http.NewRequest("GET", addr+"/api/catalogue", nil)
		req.Header.Set("Authorization", "Bearer tok-exec-test-0123456789")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cmd.Process.Kill()
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if got := strings.Contains(body.String(), `"exec"`); got != c.want || resp.StatusCode != 200 {
			t.Errorf("serve %v: HTTP %d, exec offered %v, want %v", c.args, resp.StatusCode, got, c.want)
		}
	}
}

// The browser tool as a user's model uses it in chat: it opens a page of a
// local site (TOOLROUTE_ALLOW_PRIVATE lets the browser reach loopback, as
// it lets fetch), reads its text and sees a screenshot, each call asked
// about first.
func TestBrowserInChat(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Local news</title><body><h1>Herons are back on the river</h1></body>`))
	}))
	defer site.Close()
	model := fakemodel.New(fakemodel.Anthropic,
		fakemodel.ToolCall("browser", `{"action":"navigate","url":"`+site.URL+`/"}`),
		fakemodel.ToolCall("browser", `{"action":"text"}`),
		fakemodel.ToolCall("browser", `{"action":"screenshot"}`),
		fakemodel.Text("Herons are back."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.Anthropic)
	u.setenv("TOOLROUTE_ALLOW_PRIVATE=1")
	res := u.run("What's the news?\na\n", "chat", "--ask-stdin", "--session", "b")
	if strings.Contains(res.stderr, "browser is left out") {
		t.Skip(res.stderr)
	}
	if res.code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	mustContain(t, "the chat", res.stdout, "? browser {\"action\":\"navigate\"", "← browser: Opened "+site.URL+"/ (HTTP 200): “Local news”",
		"Herons are back on the river", "← browser: Screenshot of “Local news”", "Herons are back.\n")
	// The screenshot reached the model as an image.
	reqs := model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, `"type":"image"`) || !strings.Contains(last, `"media_type":"image/png"`) {
		t.Errorf("the last request carries no image")
	}
}
