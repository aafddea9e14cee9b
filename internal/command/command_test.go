package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/command"
	"github.com/toolroute/toolroute/registry"
)

func newTool(t *testing.T) (host.NativeTool, string) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("in sub\n"), 0o644)
	tool, problem := command.Tool(command.Options{SandboxDir: dir, Getenv: func(k string) string {
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return "sk-program-secret" // what any other variable of the program holds
	}})
	if problem != "" {
		t.Skip(problem)
	}
	return tool, dir
}

func TestExec(t *testing.T) {
	tool, dir := newTool(t)
	for _, c := range []struct {
		name      string
		input     string
		want      string // the output's start, or the error type
		wantErr   string
		contains  []string
		notInside []string
	}{
		{name: "output and exit code", input: `{"command":"echo hello; echo oops >&2"}`, want: "exit code 0 after ", contains: []string{"; output:\nhello\noops\n"}},
		{name: "the sandbox folder by default", input: `{"command":"pwd"}`, contains: []string{"\n" + dir + "\n"}},
		{name: "a folder in the sandbox", input: `{"command":"cat a.txt","cwd":"sub"}`, contains: []string{"in sub"}},
		{name: "an absolute folder", input: `{"command":"pwd","cwd":"` + filepath.Join(dir, "sub") + `"}`, contains: []string{filepath.Join(dir, "sub")}},
		{name: "no output", input: `{"command":"true"}`, contains: []string{"; no output"}},
		{name: "none of the program's variables", input: `{"command":"env"}`, contains: []string{"PATH=", "HOME=" + dir}, notInside: []string{"sk-program-secret"}},
		{name: "a failing command", input: `{"command":"echo partial; exit 3"}`, wantErr: "exit_status", contains: []string{"exit code 3 after ", "partial"}},
		{name: "a missing folder", input: `{"command":"pwd","cwd":"nope"}`, wantErr: "invalid_arguments", contains: []string{`the working folder "nope" is not a folder`}},
		{name: "an empty command", input: `{"command":"  "}`, wantErr: "invalid_arguments", contains: []string{"command is empty"}},
		{name: "a timeout out of range", input: `{"command":"true","timeout_seconds":301}`, wantErr: "invalid_arguments", contains: []string{"give 1 to 300"}},
		{name: "not JSON", input: `{"command":1}`, wantErr: "invalid_arguments", contains: []string{"do not match the parameters"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := tool.Run(context.Background(), json.RawMessage(c.input))
			text := out
			if c.wantErr != "" {
				var te *host.ToolError
				if !errors.As(err, &te) || te.Type != c.wantErr {
					t.Fatalf("err = %v, want a %s tool error (output %q)", err, c.wantErr, out)
				}
				text = te.Message
			} else if err != nil || !strings.HasPrefix(out, "exit code 0 after ") {
				t.Fatalf("= %q, %v", out, err)
			}
			for _, s := range c.contains {
				if !strings.Contains(text, s) {
					t.Errorf("%q does not contain %q", text, s)
				}
			}
			for _, s := range c.notInside {
				if strings.Contains(text, s) {
					t.Errorf("%q contains %q", text, s)
				}
			}
		})
	}
}

// A command over its time is stopped with what it started (the shell's
// children hold its output open otherwise), and its output so far comes
// back. The children sleep five minutes: a call that waited for them would
// take far longer than the minute a busy machine may take.
func TestExecTimeout(t *testing.T) {
	tool, _ := newTool(t)
	start := time.Now()
	_, err := tool.Run(context.Background(), json.RawMessage(`{"command":"echo started; sleep 300 & sleep 300; echo never","timeout_seconds":1}`))
	var te *host.ToolError
	if !errors.As(err, &te) || te.Type != "timed_out" || !strings.Contains(te.Message, "the command ran over 1s and was stopped; output:\nstarted\n") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("stopping took %s", took)
	}
}

// The output is capped; what is dropped is counted.
func TestExecOutputCap(t *testing.T) {
	tool, _ := newTool(t)
	out, err := tool.Run(context.Background(), json.RawMessage(`{"command":"head -c 100000 /dev/zero | tr '\\0' x"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(out, "; output:\n")
	if n := strings.Count(body, "x"); n != command.MaxOutput || !strings.HasSuffix(body, "\n[output truncated: 67232 more bytes]") {
		t.Errorf("%d x kept; ends %q", n, body[len(body)-60:])
	}
}

// The definition asks before every run: it writes, runs code, unsandboxed.
func TestDefinition(t *testing.T) {
	d := command.Definition()
	if d.Name != "exec" || d.Group != "" || strings.Join(d.RequiredPermissions, ",") != "write,run_code,unsandboxed" || !registry.AsksEveryRun(d) {
		t.Errorf("definition = %+v", d)
	}
	if !json.Valid(d.Parameters) {
		t.Errorf("parameters: %s", d.Parameters)
	}
}
