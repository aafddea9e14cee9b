package main

// SIGTERM and Ctrl-C (SIGINT) end the program within two seconds, in the
// middle of a JS call and of a model call, whatever the JS runs (issue 33:
// a JSON.parse 200,000 levels deep escaped its timeout for good, and the
// program ignored SIGTERM until SIGKILL, 16 minutes later). Two seconds of
// the program's CPU time: on a busy machine a program that stops at once
// still takes seconds by the clock, waiting for a core.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/mcptest"
	"github.com/toolroute/toolroute/internal/proccpu"
	"github.com/toolroute/toolroute/internal/testwait"
)

// stopWithin is the CPU time a signalled program may use before it ends:
// it takes well under a second, but on a loaded machine the spinning tool
// keeps its core while the goroutine that handles the signal waits for
// one (2.2 s was seen in a full make test), so the bound is one a program
// that waits for its call (spinning until the failsafe) cannot meet and
// a busy machine cannot break. stopFailsafe is how long it may take by
// the clock: far past what a busy machine needs, and well short of the
// spin tool's 120 s timeout and of a held model reply, which a program
// that waits for its call would wait for.
const (
	stopWithin   = 10 * time.Second
	stopFailsafe = time.Minute
)

// spinTool is a user tool that says it started (the file started.txt in
// the sandbox folder), then runs until its 120 s timeout: JS and native
// code in turn.
const spinTool = `function execute() {
	fs.writeFile("started.txt", "yes\n");
	const a = [];
	for (let i = 0; i < 20000; i++) a.push({i, s: "x" + i});
	for (;;) JSON.stringify(a);
}`

// signalUser is a user with the spin tool and a model that calls it, or
// that holds its answer until the test ends.
func signalUser(t *testing.T, replies ...fakemodel.Reply) (*user, *fakemodel.Server) {
	model := fakemodel.New(fakemodel.OpenAI, replies...)
	t.Cleanup(model.Close)
	u := newUser(t, model, fakemodel.OpenAI)
	writeTool(t, u.toolsDir(), "spin", `{"name":"spin","description":"Spin until stopped","timeoutSeconds":120,"parameters":{"type":"object","properties":{}}}`, spinTool)
	return u, model
}

// started waits until the spin tool runs.
func (u *user) started(t *testing.T, out fmt.Stringer) {
	t.Helper()
	path := filepath.Join(u.home, ".local", "share", "toolroute", "files", "started.txt")
	for deadline := time.Now().Add(testwait.Failsafe); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(path); string(b) == "yes\n" {
			// A moment more: the tool is in its loop.
			time.Sleep(200 * time.Millisecond)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tool never started:\n%s", out)
		}
	}
}

// requested waits until the model has n requests.
func requested(t *testing.T, model *fakemodel.Server, n int, out fmt.Stringer) {
	t.Helper()
	for deadline := time.Now().Add(testwait.Failsafe); len(model.Requests()) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the model got %d requests, want %d:\n%s", len(model.Requests()), n, out)
		}
	}
	time.Sleep(200 * time.Millisecond)
}

// start starts the program with its output in out.
func (u *user) start(t *testing.T, stdin io.Reader, out *lockedBuffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env, cmd.Dir = u.env, u.home
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// endsAfter sends sig and checks the program ends having used at most
// stopWithin of CPU time since, and within stopFailsafe.
func endsAfter(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, out fmt.Stringer) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	before, measured := proccpu.Of(cmd.Process.Pid)
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(stopFailsafe):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after %v:\n%s", stopFailsafe, sig, out)
	}
	used := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - before
	t.Logf("ended %v after %v, using %v of CPU time", sig, time.Since(start).Round(time.Millisecond), used.Round(time.Millisecond))
	if measured && used > stopWithin {
		t.Fatalf("used %v of CPU time after %v, more than %v:\n%s", used, sig, stopWithin, out)
	}
}

var signals = []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}

func TestSignalsEndCall(t *testing.T) {
	for _, sig := range signals {
		t.Run(sig.String(), func(t *testing.T) {
			u, _ := signalUser(t)
			out := &lockedBuffer{}
			cmd := u.start(t, nil, out, "call", "spin")
			u.started(t, out)
			endsAfter(t, cmd, sig, out)
		})
	}
}

// The issue's own attack, through js_eval, ran until SIGKILL: it now ends
// by itself, with the stack overflow it is. Its timeout is a failsafe,
// which a loaded machine does not reach while the code is right.
func TestSignalsEndCallAttack(t *testing.T) {
	u, _ := signalUser(t)
	out := &lockedBuffer{}
	cmd := u.start(t, nil, out, "call", "--timeout", "60", "js_eval", "--params",
		`{"code":"try { JSON.parse(\"[\".repeat(200000)+\"]\".repeat(200000)) } catch(e) { String(e) }"}`)
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(testwait.Failsafe):
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			t.Fatalf("the call ran past its timeout for a minute, until SIGTERM:\n%s", out)
		case <-time.After(stopFailsafe):
			cmd.Process.Kill()
			<-done
			t.Fatalf("the call ran past its timeout for a minute, and SIGTERM did not end it:\n%s", out)
		}
	}
	mustContain(t, "the output", out.String(), "stack overflow")
}

func TestSignalsEndChat(t *testing.T) {
	for _, sig := range signals {
		t.Run("tool/"+sig.String(), func(t *testing.T) {
			u, _ := signalUser(t, fakemodel.ToolCall("spin", `{}`), fakemodel.Text("Stopped."))
			out := &lockedBuffer{}
			stdin, w := osPipe(t)
			cmd := u.start(t, stdin, out, "chat")
			go io.WriteString(w, "Spin\n")
			u.started(t, out)
			if sig == syscall.SIGINT {
				// Ctrl-C stops the turn; at the prompt, a second one
				// ends the chat.
				cmd.Process.Signal(sig)
				waitFor(t, out, "[stopped", stopFailsafe)
			}
			endsAfter(t, cmd, sig, out)
		})
		t.Run("model/"+sig.String(), func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			u, model := signalUser(t, fakemodel.Reply{Text: "never sent", Hold: hold})
			out := &lockedBuffer{}
			stdin, w := osPipe(t)
			cmd := u.start(t, stdin, out, "chat")
			go io.WriteString(w, "Hello\n")
			requested(t, model, 1, out)
			if sig == syscall.SIGINT {
				cmd.Process.Signal(sig)
				waitFor(t, out, "[stopped", stopFailsafe)
			}
			endsAfter(t, cmd, sig, out)
		})
	}
}

// osPipe is a pipe for a program's standard input: an *os.File, which
// exec.Cmd.Wait does not wait to drain.
func osPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	return r, w
}

// waitFor waits until out holds want, for at most d.
func waitFor(t *testing.T, out fmt.Stringer, want string, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); !strings.Contains(out.String(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q after %v:\n%s", want, d, out)
		}
	}
}

func TestSignalsEndServe(t *testing.T) {
	for _, sig := range signals {
		for _, mid := range []string{"tool", "model"} {
			t.Run(mid+"/"+sig.String(), func(t *testing.T) {
				hold := make(chan struct{})
				defer close(hold)
				reply := fakemodel.ToolCall("spin", `{}`)
				if mid == "model" {
					reply = fakemodel.Reply{Text: "never sent", Hold: hold}
				}
				u, model := signalUser(t, reply, fakemodel.Text("Stopped."))
				out := &lockedBuffer{}
				pr, pw := osPipe(t)
				cmd := exec.Command(binary(t), "serve", "--port", "0")
				cmd.Env, cmd.Dir = u.env, u.home
				cmd.Stdout, cmd.Stderr = pw, out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				pw.Close()
				t.Cleanup(func() {
					cmd.Process.Kill()
					cmd.Wait()
				})
				stdout := bufio.NewReader(pr)
				line, err := stdout.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				go io.Copy(out, stdout)
				addr, _, ok := servedAt(line)
				if !ok {
					t.Fatalf("serve's first line %q", line)
				}
				token := keptToken(t, u)
				go func() {
					req, _ := http.NewRequest("POST", addr+"/api/sessions/s/messages", strings.NewReader(`{"text":"Spin"}`))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+token)
					if resp, err := http.DefaultClient.Do(req); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}()
				if mid == "tool" {
					u.started(t, out)
				} else {
					requested(t, model, 1, out)
				}
				endsAfter(t, cmd, sig, out)
			})
		}
	}
}

func TestSignalsEndMCP(t *testing.T) {
	for _, sig := range signals {
		t.Run(sig.String(), func(t *testing.T) {
			u, _ := signalUser(t)
			out := &lockedBuffer{}
			stdin, w := osPipe(t)
			var stdout bytes.Buffer
			cmd := exec.Command(binary(t), "mcp")
			cmd.Env, cmd.Dir = u.env, u.home
			cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			go io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spin","arguments":{}}}`+"\n")
			u.started(t, out)
			endsAfter(t, cmd, sig, out)
		})
	}
}

func TestSignalsEndMCPHTTP(t *testing.T) {
	for _, sig := range signals {
		t.Run(sig.String(), func(t *testing.T) {
			u, _ := signalUser(t)
			const token = "e2e-token-0123456789"
			port := mcptest.FreePort(t)
			out := &lockedBuffer{}
			cmd := u.start(t, nil, out, "mcp", "--http", "--port", strconv.Itoa(port), "--token", token)
			waitListening(t, port, out)
			p := &mcpPeer{t: t, changes: make(chan struct{}, 16), stderr: &bytes.Buffer{}}
			p.connect(&mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
				HTTPClient: &http.Client{Transport: header{"Authorization", "Bearer " + token}}}, nil, "")
			go p.CallTool(context.Background(), &mcp.CallToolParams{Name: "spin", Arguments: map[string]any{}})
			u.started(t, out)
			endsAfter(t, cmd, sig, out)
		})
	}
}
