//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/vtscreen"
	"github.com/toolroute/toolroute/registry/session"
)

// ptyChat is toolroute chat at a pseudo-terminal of a given width.
type ptyChat struct {
	t     *testing.T
	cmd   *exec.Cmd
	tty   *os.File
	width int
	mu    sync.Mutex
	out   bytes.Buffer
	done  chan struct{}
}

func startPtyChat(t *testing.T, u *user, width int, env []string, args ...string) *ptyChat {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"chat"}, args...)...)
	cmd.Env = append(append([]string{}, u.env...), "TERM=xterm-256color")
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = u.home
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: uint16(width)})
	if err != nil {
		t.Fatal(err)
	}
	c := &ptyChat{t: t, cmd: cmd, tty: tty, width: width, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			c.mu.Lock()
			c.out.Write(buf[:n])
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		tty.Close()
	})
	return c
}

func (c *ptyChat) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// waitFor waits until the output holds want n times.
func (c *ptyChat) waitFor(want string, n int) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(c.output(), want) < n {
		if time.Now().After(deadline) {
			c.t.Fatalf("no %q (%d times) in the output:\n%q", want, n, c.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *ptyChat) send(keys string) {
	c.t.Helper()
	if _, err := io.WriteString(c.tty, keys); err != nil {
		c.t.Fatal(err)
	}
}

// quit ends the chat with Ctrl-D at the prompt and waits for its end.
func (c *ptyChat) quit() {
	c.t.Helper()
	c.send("\x04")
	if err := c.cmd.Wait(); err != nil {
		c.t.Fatalf("chat: %v\n%q", err, c.output())
	}
	<-c.done
}

// userMessages are a session's messages from the user.
func userMessages(u *user, id string) []string {
	var out []string
	for _, m := range u.messages(id) {
		if m.Type == session.User {
			out = append(out, m.Content)
		}
	}
	return out
}

// At a terminal the line is edited: the up arrow brings back the line
// sent before, in this run and in the next, whose history is kept in the
// user's state folder.
func TestChatTerminalLineEditing(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("One."), fakemodel.Text("Two."), fakemodel.Text("Three."))
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)

	c := startPtyChat(t, u, 80, nil, "--session", "first", "--model", "fake-1")
	c.waitFor("you> ", 1)
	c.send("Remember this line\r")
	c.waitFor("One.", 1)
	c.waitFor("you> ", 2)
	c.send("\x1b[A\r") // up, enter
	c.waitFor("Two.", 1)
	c.waitFor("you> ", 3)
	c.quit()
	if got, want := userMessages(u, "first"), []string{"Remember this line", "Remember this line"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the user's messages are %q, want %q", got, want)
	}

	hist := filepath.Join(u.home, ".local", "state", "toolroute", "chat_history")
	info, err := os.Stat(hist)
	if err != nil {
		t.Fatalf("no history file: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("the history file's mode is %v, want 0600", info.Mode().Perm())
	}

	// The next run: the line is still there, before the /quit-less Ctrl-D
	// end (nothing) of the first run.
	c = startPtyChat(t, u, 80, nil, "--session", "second", "--model", "fake-1")
	c.waitFor("you> ", 1)
	c.send("\x1b[A\r")
	c.waitFor("Three.", 1)
	c.waitFor("you> ", 2)
	c.quit()
	if got := userMessages(u, "second"); len(got) != 1 || got[0] != "Remember this line" {
		t.Errorf("the second run's messages are %q, want the line from the first run's history", got)
	}
}

// At a terminal every line fits its width: the tool cards, the usage
// lines and the reply, rendered from its markdown.
func TestChatTerminalWidth(t *testing.T) {
	const width = 50
	reply := "# Plan\nSome **bold** and `code`, in a line long enough to pass the terminal's width of fifty columns.\n\n" +
		"- one item\n- two\n\n```\nplain code\n```\n\n| Name | Size |\n|:--|--:|\n| a | 1 |\n| bbbb | 22 |"
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("get_current_time", `{"format":"human_readable","note":"`+strings.Repeat("x", 120)+`"}`),
		fakemodel.Text(reply),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	c := startPtyChat(t, u, width, nil, "--session", "w", "--model", "fake-1")
	c.waitFor("you> ", 1)
	c.send("What time is it?\r")
	c.waitFor("[tokens: ", 1)
	c.waitFor("you> ", 2)
	c.send("/usage\r")
	c.waitFor("o200k tokens", 3)
	c.waitFor("you> ", 3)
	c.quit()

	screen := vtscreen.Lines(width, c.output())
	for _, row := range vtscreen.Overflowed(width, c.output()) {
		t.Errorf("a line went past the width of %d: %q", width, row)
	}
	text := strings.Join(screen, "\n")
	mustContain(t, "the screen", text,
		"\n→ get_current_time\n  {\"format\":\"human_readable\",\"note\":\"xxxxxxxxxxx",
		"\nPlan\nSome bold and code, in a line long enough to pass\nthe terminal's width of fifty columns.\n",
		"\n• one item\n• two\n",
		"\n  plain code\n",
		"\nName │ Size\n─────┼─────\na    │    1\nbbbb │   22\n",
		"\n  turn 1: What time is it?\n    call 1: 10 in, 5 out; called get_current_time;\n      schemas ")
	out := c.output()
	mustContain(t, "the output", out, "\x1b[1;4;35mPlan\x1b[0m", "\x1b[1mbold\x1b[0m")
}

// NO_COLOR: the reply is written as it comes, with no escape sequence,
// and chat's own lines still fit the width.
func TestChatTerminalNoColor(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Some **bold** text."))
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	c := startPtyChat(t, u, 60, []string{"NO_COLOR=1"}, "--session", "n", "--model", "fake-1")
	c.waitFor("you> ", 1)
	c.send("Hi\r")
	c.waitFor("you> ", 2)
	c.quit()
	out := c.output()
	mustContain(t, "the output", out, "Some **bold** text.")
	if strings.Contains(out, "\x1b[1m") {
		t.Errorf("the reply is styled with NO_COLOR:\n%q", out)
	}
}

// At a terminal the approval question reads its answer through the line
// editor; Ctrl-C there stops the turn, as it does while the turn runs, and
// the answers are not kept in the history.
func TestChatTerminalApproval(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("exec", `{"command":"echo one >> runs.txt"}`),
		fakemodel.Text("Done."),
		fakemodel.ToolCall("exec", `{"command":"echo two >> runs.txt"}`),
		fakemodel.Text("Not reached."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	c := startPtyChat(t, u, 80, nil, "--session", "a", "--model", "fake-1")
	c.waitFor("you> ", 1)
	c.send("Run one\r")
	c.waitFor("Allow it?", 1)
	c.send("y\r")
	c.waitFor("Done.", 1)
	c.waitFor("you> ", 2)
	c.send("Run two\r")
	c.waitFor("Allow it?", 2)
	c.send("\x03")
	c.waitFor("[stopped: what was done is kept]", 1)
	c.waitFor("you> ", 3)
	c.send("\x1b[A\r") // the last line sent, not the answer
	c.waitFor("Not reached.", 1)
	c.waitFor("you> ", 4)
	c.quit()
	b, err := os.ReadFile(filepath.Join(u.home, ".local", "share", "toolroute", "files", "runs.txt"))
	if err != nil || string(b) != "one\n" {
		b2, _ := os.ReadFile(filepath.Join(u.home, "runs.txt"))
		if string(b2) != "one\n" {
			t.Errorf("runs.txt = %q / %q (%v), want the first command's run only", b, b2, err)
		}
	}
	if got := userMessages(u, "a"); strings.Join(got, "|") != "Run one|Run two|Run two" {
		t.Errorf("the user's messages are %q", got)
	}
}

// A reply cannot drive the terminal: the escape sequences in it (here one
// that retitles the window and one that clears the screen) are dropped,
// rendered or written as it comes (NO_COLOR).
func TestChatTerminalDropsEscapes(t *testing.T) {
	for _, env := range [][]string{nil, {"NO_COLOR=1"}} {
		t.Run(strings.Join(append([]string{"env"}, env...), " "), func(t *testing.T) {
			model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hello \x1b]0;pwned\x07world\x1b[2J, **done**."))
			defer model.Close()
			u := newUser(t, model, fakemodel.OpenAI)
			c := startPtyChat(t, u, 80, env, "--session", "e", "--model", "fake-1")
			c.waitFor("you> ", 1)
			c.send("Hi\r")
			c.waitFor("you> ", 2)
			c.quit()
			out := c.output()
			mustContain(t, "the output", out, "]0;pwned")
			if strings.Contains(out, "\x1b]0;") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") {
				t.Errorf("the reply's escape sequences reached the terminal:\n%q", out)
			}
		})
	}
}

// An MCP server that asks the user during its tool's call is asked at the
// terminal a field at a time, naming the server: a value that will not do
// is asked again with what the field takes, an empty line takes the
// default, a choice is given by its number; the server gets the answer
// typed, and the model reads the tool's result.
func TestChatTerminalElicitation(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"shop"}`),
		fakemodel.ToolCall("order", `{}`),
		fakemodel.Text("Ordered."),
	)
	defer model.Close()
	u := newUser(t, model, fakemodel.OpenAI)
	mcpServers(t, u.mcpConfig(), mcpEntry{"shop", stdio(mcptest.TestServer(t, tmpRoot), "-elicit")})
	c := startPtyChat(t, u, 100, nil, "--session", "a", "--model", "fake-1")
	c.waitFor("you> ", 1)
	c.send("Order one\r")
	c.waitFor("? MCP server 'shop' asks: Where should we send it?", 1)
	c.waitFor("Email (an email address): ", 1)
	c.send("ann@example\r")
	c.waitFor(`Email: give an email address ("ann@example" is not)`, 1)
	c.waitFor("Email (an email address): ", 2)
	c.send("ann@example.com\r")
	c.waitFor("How many (a whole number of at least 1) [1]: ", 1)
	c.send("\r")
	c.waitFor("1) Small, 2) Large", 1)
	c.waitFor("Size (one of Small, Large): ", 1)
	c.send("2\r")
	c.waitFor("Send these answers to 'shop'? [y] yes, [n] decline, [c] cancel: ", 1)
	c.send("y\r")
	c.waitFor("Ordered.", 1)
	c.waitFor("you> ", 2)
	c.quit()
	var results []string
	for _, m := range u.messages("a") {
		if m.Type == session.ToolResult && m.ToolName == "order" {
			results = append(results, m.Content)
		}
	}
	if want := `accept {"count":1,"email":"ann@example.com","size":"l"}`; len(results) != 1 || results[0] != want {
		t.Errorf("the model read %q, want %q", results, want)
	}
}
