package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/testwait"
)

// busyError is what a process says when another runs a turn of its session.
const busyError = `host: session "work" has a turn running in another process (toolroute serve or chat); try again when it ends`

// While a chat process runs a turn of a session, a second chat process and
// a serve process on the same session are refused at once with a clear
// error and write nothing; once the turn ends, both can take theirs. The
// log holds each turn whole, one after the other.
func TestTurnLockAcrossProcesses(t *testing.T) {
	hold := make(chan struct{})
	released := false
	defer func() {
		if !released {
			close(hold)
		}
	}()
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.Reply{Text: "A done.", Hold: hold},
		fakemodel.Text("Served."),
		fakemodel.Text("B done."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)

	serveAddr, serveToken, stopServe := startServe(t, u)
	defer stopServe()
	post := func(text string) string {
		req, _ := http.NewRequest("POST", serveAddr+"/api/sessions/work/messages", strings.NewReader(`{"text":"`+text+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+serveToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		events, _ := io.ReadAll(resp.Body)
		return string(events)
	}

	a := exec.Command(binary(t), "chat", "--session", "work")
	a.Env = u.env
	stdin, err := a.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var aOut bytes.Buffer
	a.Stdout, a.Stderr = &aOut, &aOut
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Process.Kill()
	io.WriteString(stdin, "Hello from A\n")
	for deadline := time.Now().Add(testwait.Failsafe); len(model.Requests()) < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("A's model call never came:\n%s", aOut.String())
		}
	}

	start := time.Now()
	b := u.run("Hello from B\n", "chat", "--session", "work")
	if b.code != 1 {
		t.Errorf("B, refused: exit %d, want 1\n%s\n%s", b.code, b.stdout, b.stderr)
	}
	mustContain(t, "B's errors", b.stderr, "toolroute: "+busyError)
	// A's turn is held until the test ends it: a B that waited for it would
	// wait past a minute, more than a busy machine takes to refuse it.
	if waited := time.Since(start); waited > stopFailsafe {
		t.Errorf("B took %v to be refused; it should not wait for the turn", waited)
	}
	mustContain(t, "serve's events", post("Hello from serve"), "event: failed\n", `"code":"turn_running"`, `"message":"`+strings.ReplaceAll(strings.TrimPrefix(busyError, "host: "), `"`, `\"`)+`"`)
	if got := logOf(t, u, "work"); !slices.Equal(got, []string{"user Hello from A"}) {
		t.Errorf("while A's turn runs, the log holds %q", got)
	}

	close(hold)
	released = true
	stdin.Close()
	if err := a.Wait(); err != nil {
		t.Fatalf("A: %v\n%s", err, aOut.String())
	}
	mustContain(t, "A's output", aOut.String(), "A done.\n")

	mustContain(t, "serve's events", post("Hello from serve"), "event: done\n", `"text":"Served."`)
	b = u.run("Hello from B\n", "chat", "--session", "work")
	if b.code != 0 {
		t.Fatalf("B, after A: exit %d\n%s\n%s", b.code, b.stdout, b.stderr)
	}
	mustContain(t, "B's output", b.stdout, "B done.\n")

	want := []string{
		"user Hello from A", "assistant A done.",
		"user Hello from serve", "assistant Served.",
		"user Hello from B", "assistant B done.",
	}
	if got := logOf(t, u, "work"); !slices.Equal(got, want) {
		t.Errorf("the log holds %q, want %q", got, want)
	}
	if n := len(model.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3: refused turns call no model", n)
	}
}

// startServe starts `toolroute serve` for u, with more flags if given, and
// returns its address, its token and a function that stops it.
func startServe(t *testing.T, u *user, flags ...string) (addr, token string, stop func()) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "--port", "0"}, flags...)...)
	cmd.Env = u.env
	stdout, _ := cmd.StdoutPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		t.Fatalf("%v: %s", err, errOut.String())
	}
	addr, _, ok := servedAt(line)
	if !ok {
		stop()
		t.Fatalf("serve's first line %q", line)
	}
	return addr, keptToken(t, u), stop
}

// logOf returns a session's log as "type content" lines.
func logOf(t *testing.T, u *user, id string) []string {
	t.Helper()
	var lines []string
	for _, m := range u.messages(id) {
		lines = append(lines, string(m.Type)+" "+m.Content)
	}
	return lines
}
