// Package command is the Go program's exec tool: a shell command run in a
// working folder (the sandbox folder by default) with a timeout, its
// output capped. It acts on the world, so the user is asked before every
// run (its permissions; internal/app keeps a "session" answer or an allow rule
// from skipping the question). The browser and the worker cannot run a
// program, so they do not offer it; `toolroute serve` offers it only with
// --exec.
//
// The command gets a small environment of its own (PATH, HOME, LANG,
// TMPDIR), never the program's, which holds the provider's key; whatever
// it prints passes the host's redaction of secrets like any result.
package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// Name is the tool's name, a core tool (docs/reference/routing.md).
const Name = "exec"

// Limits of a run.
const (
	// DefaultTimeout is a command's time when the call gives none.
	DefaultTimeout = 30 * time.Second
	// MaxTimeout bounds what a call may ask for.
	MaxTimeout = 300 * time.Second
	// MaxOutput bounds the output kept, stdout and stderr together; the
	// rest is counted and dropped.
	MaxOutput = 32 << 10
)

// Options configure the tool.
type Options struct {
	// SandboxDir is the default working folder, and the root relative
	// folders are resolved against.
	SandboxDir string
	// Shell runs the command as Shell -c COMMAND; "" means /bin/sh.
	Shell string
	// Getenv reads the program's PATH; nil means os.Getenv.
	Getenv func(string) string
}

// Tool is the exec tool, or a problem saying why it is left out (no shell,
// on Windows).
func Tool(o Options) (host.NativeTool, string) {
	if o.Shell == "" {
		o.Shell = "/bin/sh"
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if !supported {
		return host.NativeTool{}, "exec is left out: it runs commands with a POSIX shell and process groups, which this system has not"
	}
	if _, err := os.Stat(o.Shell); err != nil {
		return host.NativeTool{}, fmt.Sprintf("exec is left out: no shell at %s", o.Shell)
	}
	t := &tool{o: o}
	return host.NativeTool{Tool: Definition(), Run: t.run}, ""
}

// Definition is the tool as the model sees it.
func Definition() registry.Tool {
	return registry.Tool{
		Name: Name,
		Description: "Execute a shell command (sh -c) in a working folder, the sandbox folder by default, and get its exit code and output " +
			"(stdout and stderr together, the first 32 KB). The user is asked before every run.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"The command line, such as: ls -la"},` +
			`"cwd":{"type":"string","description":"The working folder: relative to the sandbox folder, or absolute; default the sandbox folder"},` +
			`"timeout_seconds":{"type":"integer","description":"Stop it after this many seconds, 1 to 300; default 30"}},` +
			`"required":["command"]}`),
		RequiredPermissions: []string{registry.PermissionWrite, registry.PermissionRunCode, registry.PermissionUnsandboxed},
		// The tool's own timeout stops the command; the host's is a little
		// later, for the output to come back.
		TimeoutSeconds: int(MaxTimeout/time.Second) + 10,
	}
}

type tool struct {
	o Options
}

type args struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	Timeout *int   `json:"timeout_seconds"`
}

func fail(typ, format string, a ...any) error {
	return &host.ToolError{Type: typ, Message: fmt.Sprintf(format, a...)}
}

func (t *tool) run(ctx context.Context, in json.RawMessage) (string, error) {
	var a args
	if err := json.Unmarshal(in, &a); err != nil {
		return "", fail("invalid_arguments", "the arguments do not match the parameters: %v", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return "", fail("invalid_arguments", "command is empty: give the command line to run")
	}
	timeout := DefaultTimeout
	if a.Timeout != nil {
		if *a.Timeout < 1 || time.Duration(*a.Timeout)*time.Second > MaxTimeout {
			return "", fail("invalid_arguments", "timeout_seconds is %d: give 1 to %d", *a.Timeout, int(MaxTimeout/time.Second))
		}
		timeout = time.Duration(*a.Timeout) * time.Second
	}
	dir, err := t.dir(a.Cwd)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.o.Shell, "-c", a.Command)
	cmd.Dir = dir
	cmd.Env = t.env()
	cmd.Stdin = nil
	out := &capped{max: MaxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	// The command and what it starts are one process group, stopped
	// together: a shell's child would otherwise keep the pipes open.
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	text := out.text()
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", fail("timed_out", "the command ran over %s and was stopped%s", timeout, outputPart(text))
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.As(err, &exit):
		return "", fail("exit_status", "exit code %d after %s%s", exit.ExitCode(), took, outputPart(text))
	case err != nil:
		return "", fail("execution_error", "the command could not run: %v", err)
	}
	return "exit code 0 after " + took.String() + outputPart(text), nil
}

func outputPart(text string) string {
	if text == "" {
		return "; no output"
	}
	return "; output:\n" + text
}

// dir is the working folder of a call: the sandbox folder, a folder in
// it, or an absolute folder, which must exist.
func (t *tool) dir(cwd string) (string, error) {
	dir := t.o.SandboxDir
	if cwd != "" {
		if filepath.IsAbs(cwd) {
			dir = filepath.Clean(cwd)
		} else {
			dir = filepath.Join(t.o.SandboxDir, cwd)
		}
	}
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return "", fail("invalid_arguments", "the working folder %q is not a folder: give one that exists, relative to the sandbox folder or absolute", cwd)
	}
	return dir, nil
}

// env is the command's environment: none of the program's variables but
// PATH.
func (t *tool) env() []string {
	path := t.o.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return []string{"PATH=" + path, "HOME=" + t.o.SandboxDir, "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	mu      sync.Mutex
	max     int
	buf     bytes.Buffer
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
	} else {
		if room > 0 {
			c.buf.Write(p[:room])
		}
		c.dropped += int64(len(p) - max(room, 0))
	}
	return len(p), nil
}

func (c *capped) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.ToValidUTF8(c.buf.String(), "\uFFFD")
	if c.dropped > 0 {
		s += "\n[output truncated: " + strconv.FormatInt(c.dropped, 10) + " more bytes]"
	}
	return s
}
