package jsrun

// Issue 33's escapes: JS that ran past its timeout for good (a JSON.parse
// 200,000 levels deep overran the stack into QuickJS's data), native code
// that ignored the deadline and held the Go runtime's garbage collection,
// and so every other goroutine, for as long as it ran. Every call ends
// at its timeout whatever it runs, using at most a second of CPU time past
// it, and the runner stays healthy.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/proccpu"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

// endsWithin runs a call that must stop at a moment, its timeout or a
// cancel of ctx at stop after it starts, and checks it ended with the
// error type and a message holding want, having used at most a second of
// CPU time past that moment. CPU time, not the clock's: on a machine with a
// load of 30 on 2 cores, a call that stops at once still ends seconds late
// by the clock, waiting for a core, while one that runs on burns CPU time
// however busy the machine. A call that has not ended a failsafe past the
// moment fails the test without waiting for it.
func endsWithin(t *testing.T, r *Runner, ctx context.Context, c host.JSCall, stop time.Duration, errType, want string) {
	t.Helper()
	waitWarm(t, r)
	done := make(chan Result, 1)
	past := cpuPast(stop)
	go func() { done <- r.Call(ctx, c) }()
	var res Result
	select {
	case res = <-done:
	case <-time.After(stop + failsafe):
		t.Fatalf("the call still runs %v after it was to stop", failsafe)
	}
	if used := past(); used > time.Second {
		t.Errorf("the call used %v of CPU time after it was to stop, more than a second", used)
	}
	if res.Status != registry.StatusError || res.ErrorType != errType || !strings.Contains(res.Message, want) {
		t.Errorf("%+v: want %s containing %q", res.Result, errType, want)
	}
}

// cpuPast measures the CPU time the process uses from d on: the function it
// returns gives what was used from d to its call, 0 if d had not come.
// Where the CPU time is not measured (proccpu), it gives the clock's time.
func cpuPast(d time.Duration) func() time.Duration {
	var at atomic.Int64
	at.Store(-1)
	start := time.Now()
	timer := time.AfterFunc(d, func() { at.Store(int64(proccpu.Used())) })
	return func() time.Duration {
		timer.Stop()
		switch mark := at.Load(); {
		case mark < 0:
			return 0
		case mark == 0:
			return time.Since(start) - d
		default:
			return proccpu.Used() - time.Duration(mark)
		}
	}
}

// waitWarm waits until r holds its warm runtimes, so that a call starts at
// once: its timeout counts from then.
func waitWarm(t testing.TB, r *Runner) {
	t.Helper()
	r.startWarm()
	for deadline := time.Now().Add(failsafe); len(r.warm) < cap(r.warm); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the runner made no warm runtime in %v", failsafe)
		}
	}
}

// jsEval is a call of the built-in js_eval with code.
func jsEval(t *testing.T, code string, timeout time.Duration) host.JSCall {
	t.Helper()
	src, err := manifests.FS.ReadFile("js_eval.js")
	if err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(map[string]string{"code": code})
	return host.JSCall{Tool: "js_eval", SourceRef: "js_eval.js", Source: src, Function: "execute", Params: params, Timeout: timeout}
}

func TestHardStop(t *testing.T) {
	r := newRunner(t, Options{})
	tool := func(src string, timeout time.Duration) host.JSCall {
		return host.JSCall{Tool: "t", SourceRef: "t.js", Source: []byte(src), Function: "execute", Timeout: timeout}
	}
	for _, tt := range []struct {
		name          string
		call          host.JSCall
		errType, want string
	}{
		// The issue's own: it ran 16 minutes until SIGKILL.
		{"JSON.parse 200,000 levels deep, caught, in js_eval",
			jsEval(t, `try { JSON.parse("[".repeat(200000)+"]".repeat(200000)) } catch(e) { String(e) }`, failsafe),
			"execution_error", "stack overflow"},
		{"JS recursion ten million deep, caught, in js_eval",
			jsEval(t, `function down(n) { return n === 0 ? 0 : 1 + down(n - 1); } try { down(1e7) } catch (e) { String(e) }`, failsafe),
			"execution_error", "stack overflow"},
		{"code nested 100,000 levels deep",
			tool(`function execute() { try { return eval("(".repeat(100000)); } catch (e) { return String(e); } }`, failsafe),
			"execution_error", "stack overflow"},
		// QuickJS checks each level against all those above it for cycles:
		// 5 billion comparisons.
		{"JSON.stringify of a value nested 100,000 levels deep",
			tool(`function execute() { let v = []; for (let i = 0; i < 100000; i++) v = [v]; try { return JSON.stringify(v).length; } catch (e) { return String(e); } }`, time.Second),
			"timeout", "timed out after 1s"},
		{"a regular expression backtracking exponentially",
			tool(`function execute() { return /(a+)+b/.test("a".repeat(40)); }`, time.Second),
			"timeout", "timed out after 1s"},
		{"a sort with a slow comparator",
			tool(`function execute() { const a = []; for (let i = 0; i < 100000; i++) a.push(i);
				return a.sort((x, y) => { for (let j = 0; j < 1000; j++); return y - x; }).length; }`, time.Second),
			"timeout", "timed out after 1s"},
		{"JSON.stringify of 500,000 strings in a loop",
			tool(`function execute() { const a = new Array(5e5).fill("abcdef"); for (;;) JSON.stringify(a); }`, time.Second),
			"timeout", "timed out after 1s"},
		{"String.prototype.repeat past the memory limit",
			tool(`function execute() { return "x".repeat(1 << 29).length; }`, failsafe),
			"out_of_memory", "ran out of memory"},
		{"a promise that never settles",
			tool(`async function execute() { await new Promise(() => {}); }`, time.Second),
			"timeout", "never settles"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			endsWithin(t, r, checktest.Context(t), tt.call, tt.call.Timeout, tt.errType, tt.want)
		})
	}
	// The runner is healthy after all of them.
	if res := call(r, `function execute() { return JSON.stringify([1, [2, [3]]]); }`, failsafe); res.Output != "[1,[2,[3]]]" {
		t.Errorf("after the attacks: %+v", res.Result)
	}
}

// nativeLoop is a tool that says it started (the file started in its
// folder), then runs one native call of seconds after another: a join of
// 20 million numbers.
const nativeLoop = `function execute() { fs.writeFile("started", "yes"); const a = new Array(2e7).fill(1.5); for (;;) a.join(); }`

// startNative starts nativeLoop on r, whose folder is dir, and returns once
// it runs; done has its result.
func startNative(t *testing.T, r *Runner, dir string, ctx context.Context, timeout time.Duration) (done chan Result) {
	t.Helper()
	done = make(chan Result, 1)
	go func() {
		done <- r.Call(ctx, host.JSCall{Tool: "t", SourceRef: "t.js", Function: "execute", Timeout: timeout, Source: []byte(nativeLoop)})
	}()
	for deadline := time.Now().Add(failsafe); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			return done
		}
		select {
		case res := <-done:
			t.Fatalf("the loop ended before it started: %+v", res.Result)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the loop did not start in %v", failsafe)
		}
	}
}

// One native call that runs for seconds (a join of 20 million numbers, in a
// loop) is stopped at the deadline, and while it runs the Go runtime can
// still collect garbage: a collection once waited for the whole native
// call, holding every goroutine, the signal handlers among them. The
// collection must end while the call still runs: the call's timeout is the
// failsafe, and it is then cancelled.
func TestHardStopInNativeCode(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Options{MemoryLimit: 1 << 30, SandboxRoot: dir})
	ctx, cancel := context.WithCancel(checktest.Context(t))
	defer cancel()
	done := startNative(t, r, dir, ctx, failsafe)
	goruntime.GC()
	select {
	case res := <-done:
		t.Fatalf("a garbage collection waited for the call to end: %+v", res.Result)
	default:
	}
	cancel()
	<-done
	endsWithin(t, r, checktest.Context(t), host.JSCall{Tool: "t", SourceRef: "t.js", Function: "execute", Timeout: 3 * time.Second,
		Source: []byte(`function execute() { const a = new Array(2e7).fill(1.5); for (;;) a.join(); }`)}, 3*time.Second, "timeout", "timed out after 3s")
}

// Cancelling a call stops it inside native code too.
func TestCancelStopsNativeCode(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Options{MemoryLimit: 1 << 30, SandboxRoot: dir})
	ctx, cancel := context.WithCancel(checktest.Context(t))
	done := startNative(t, r, dir, ctx, failsafe)
	past := cpuPast(0)
	cancel()
	var res Result
	select {
	case res = <-done:
	case <-time.After(failsafe):
		t.Fatalf("the call still runs %v after it was cancelled", failsafe)
	}
	if used := past(); used > time.Second || res.ErrorType != "canceled" {
		t.Errorf("%+v after %v of CPU time, want canceled within a second of it", res.Result, used)
	}
}

// A runtime's memory is given back when it closes, a call that hit its
// memory limit included: closing the module alone, without qjs's own
// Close, kept every runtime's 64 MB (the wazero runtime qjs made for it,
// never closed, held the bridges and through them the memory).
func TestClosedRuntimesFreeTheirMemory(t *testing.T) {
	r := newRunner(t, Options{})
	var ms goruntime.MemStats
	for range 8 {
		res := call(r, `function execute() { const a = []; for (;;) a.push({a: 1, b: [1, 2, 3], s: "x" + a.length}); }`, failsafe)
		if res.ErrorType != "out_of_memory" {
			t.Fatalf("%+v", res.Result)
		}
	}
	goruntime.GC()
	goruntime.ReadMemStats(&ms)
	if ms.HeapAlloc > 256<<20 {
		t.Errorf("after 8 calls of 64 MB, the heap holds %d MB", ms.HeapAlloc>>20)
	}
}
