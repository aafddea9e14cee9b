package jsrun

// The limits of issue 14's attacks: each attack that once ran past its
// timeout, blocked, filled the disk or cut a string is here, and must end
// at its limit with an error naming the cause.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/registry"
)

// within runs a call and checks it ended with the error type and a
// message holding want, at its timeout or sooner (endsWithin).
func within(t *testing.T, r *Runner, timeout time.Duration, src, errType, want string) {
	t.Helper()
	endsWithin(t, r, checktest.Context(t), host.JSCall{Tool: "t", SourceRef: "t.js", Source: []byte(src), Function: "execute", Timeout: timeout},
		timeout, errType, want)
}

func TestLimitsHold(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "binary.dat"), []byte("a\x00b"), 0o644)
	r := newRunner(t, Options{SandboxRoot: dir})
	for _, tt := range []struct {
		name, src, errType, want string
		timeout                  time.Duration
	}{
		{"a path 6,000 folders deep", `function execute() { fs.writeFile("d/".repeat(6000) + "f", "x"); }`,
			"execution_error", "paths are limited to 1024", failsafe},
		{"a path 33 folders deep", `function execute() { fs.writeFile("d/".repeat(32) + "f", "x"); }`,
			"execution_error", "limited to 32 levels", failsafe},
		{"reading a FIFO", `function execute() { return fs.readFile("pipe"); }`,
			"execution_error", "not a regular file", failsafe},
		{"writing a FIFO", `function execute() { fs.writeFile("pipe", "x"); }`,
			"execution_error", "not a regular file", failsafe},
		{"reading a file with NUL", `function execute() { return fs.readFile("binary.dat"); }`,
			"execution_error", "holds a NUL byte", failsafe},
		{"writing NUL", `function execute() { fs.writeFile("nul.txt", "a\0b"); }`,
			"execution_error", "NUL character", failsafe},
		// The loop had 200,000 objects; 100,000 keeps one stringify
		// (the most that runs past the deadline) well under a second on a
		// loaded machine.
		{"JSON.stringify of 100,000 objects in a loop", `function execute() {
			const a = []; for (let i = 0; i < 100000; i++) a.push({i, s: "x" + i});
			let n = 0; for (;;) n += JSON.stringify(a).length; }`,
			"timeout", "timed out after 2s", 2 * time.Second},
		{"a memory bomb of objects", `function execute() { const a = []; for (;;) a.push({a: 1, b: [1, 2, 3]}); }`,
			"out_of_memory", "ran out of memory", failsafe},
		{"a 20 MB result", `function execute() { return "x".repeat(20 << 20); }`,
			"execution_error", "results are limited to", failsafe},
		{"a bridge in an endless loop", `function execute() { for (;;) { try { fs.exists("x"); } catch (e) {} } }`,
			"timeout", "timed out after 1s", time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			within(t, r, tt.timeout, tt.src, tt.errType, tt.want)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "nul.txt")); err == nil {
		t.Error("nul.txt was written")
	}
}

// Cancelling a call (Ctrl-C, a client gone) stops its JS at once, whatever
// its timeout.
func TestCancelStopsJS(t *testing.T) {
	r := newRunner(t, Options{})
	ctx, cancel := context.WithCancel(checktest.Context(t))
	defer cancel()
	waitWarm(t, r)
	time.AfterFunc(300*time.Millisecond, cancel)
	endsWithin(t, r, ctx, host.JSCall{Tool: "t", SourceRef: "t.js", Function: "execute", Timeout: failsafe,
		Source: []byte(`function execute() { let n = 0; for (;;) n++; }`)}, 300*time.Millisecond, "canceled", "was canceled")
}

// The sandbox folder has a quota of bytes and of entries.
func TestSandboxQuota(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Options{SandboxRoot: dir, SandboxQuota: 3 << 20, SandboxMaxFiles: 20})
	res := call(r, `function execute() {
		const mb = "x".repeat(1 << 20);
		for (let i = 0; i < 5; i++) fs.writeFile("big" + i, mb);
	}`, failsafe)
	if res.Status != registry.StatusError || !strings.Contains(res.Message, "limited to 3 MB") {
		t.Errorf("%+v", res.Result)
	}
	var total int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			total += info.Size()
		}
		return nil
	})
	if total > 3<<20 {
		t.Errorf("the folder holds %d bytes, over its 3 MB quota", total)
	}
	// Rewriting a file in place fits: the old size is given back.
	if res := call(r, `function execute() { fs.writeFile("big0", "small"); fs.writeFile("big1", "x".repeat(1 << 20)); }`, failsafe); res.Status != registry.StatusSuccess {
		t.Errorf("rewriting within the quota: %+v", res.Result)
	}
	res = call(r, `function execute() { for (let i = 0; i < 30; i++) fs.writeFile("f/" + i, "x"); }`, failsafe)
	if res.Status != registry.StatusError || !strings.Contains(res.Message, "limited to 20") {
		t.Errorf("%+v", res.Result)
	}
}

// The compiled-code cache forgets the oldest code past its bound: 300
// different 100 KB snippets once grew the heap from 11 to 82 MB.
func TestBytecodeCacheBounded(t *testing.T) {
	r := newRunner(t, Options{})
	for i := range 300 {
		src := fmt.Sprintf("function execute() { return %d; }\n// %s", i, strings.Repeat("x", 100<<10))
		if res := call(r, src, failsafe); res.Output != fmt.Sprint(i) {
			t.Fatalf("call %d: %+v", i, res.Result)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.codeBytes > MaxBytecodeCache || len(r.bytecode) != len(r.order) {
		t.Errorf("the cache holds %d bytes in %d entries (%d ordered)", r.codeBytes, len(r.bytecode), len(r.order))
	}
}
