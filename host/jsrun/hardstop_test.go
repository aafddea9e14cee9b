package jsrun

// Issue 33's escapes: JS that ran past its timeout for good (a JSON.parse
// 200,000 levels deep overran the stack into QuickJS's data), native code
// that ignored the deadline and held the Go runtime's garbage collection,
// and so every other goroutine, for as long as it ran. Every call ends
// within its timeout and a second whatever it runs, and the runner stays
// healthy.

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

// endsWithin runs a call and checks it ended within a second of its
// timeout with the error type and a message holding want. A call that has
// not ended 20 s past that fails the test without waiting for it.
func endsWithin(t *testing.T, r *Runner, c host.JSCall, errType, want string) {
	t.Helper()
	done := make(chan Result, 1)
	start := time.Now()
	go func() { done <- r.Call(context.Background(), c) }()
	var res Result
	select {
	case res = <-done:
	case <-time.After(c.Timeout + 20*time.Second):
		t.Fatalf("the call still runs %v after it started, with a %v timeout", time.Since(start), c.Timeout)
	}
	if took := time.Since(start); took > c.Timeout+time.Second {
		t.Errorf("the call took %v, over its %v limit by more than a second", took, c.Timeout)
	}
	if res.Status != registry.StatusError || res.ErrorType != errType || !strings.Contains(res.Message, want) {
		t.Errorf("%+v: want %s containing %q", res.Result, errType, want)
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
			jsEval(t, `try { JSON.parse("[".repeat(200000)+"]".repeat(200000)) } catch(e) { String(e) }`, 2*time.Second),
			"execution_error", "stack overflow"},
		{"JS recursion ten million deep, caught, in js_eval",
			jsEval(t, `function down(n) { return n === 0 ? 0 : 1 + down(n - 1); } try { down(1e7) } catch (e) { String(e) }`, 2*time.Second),
			"execution_error", "stack overflow"},
		{"code nested 100,000 levels deep",
			tool(`function execute() { try { return eval("(".repeat(100000)); } catch (e) { return String(e); } }`, 2*time.Second),
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
			tool(`function execute() { return "x".repeat(1 << 29).length; }`, 2*time.Second),
			"out_of_memory", "ran out of memory"},
		{"a promise that never settles",
			tool(`async function execute() { await new Promise(() => {}); }`, time.Second),
			"timeout", "never settles"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			endsWithin(t, r, tt.call, tt.errType, tt.want)
		})
	}
	// The runner is healthy after all of them.
	if res := call(r, `function execute() { return JSON.stringify([1, [2, [3]]]); }`, 5*time.Second); res.Output != "[1,[2,[3]]]" {
		t.Errorf("after the attacks: %+v", res.Result)
	}
}

// One native call that runs for seconds (a join of 20 million numbers, in a
// loop) is stopped at the deadline, and while it runs the Go runtime can
// still collect garbage: a collection once waited for the whole native
// call, holding every goroutine, the signal handlers among them.
func TestHardStopInNativeCode(t *testing.T) {
	r := newRunner(t, Options{MemoryLimit: 1 << 30})
	c := host.JSCall{Tool: "t", SourceRef: "t.js", Function: "execute", Timeout: 3 * time.Second,
		Source: []byte(`function execute() { const a = new Array(2e7).fill(1.5); for (;;) a.join(); }`)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		endsWithin(t, r, c, "timeout", "timed out after 3s")
	}()
	time.Sleep(1500 * time.Millisecond) // into the joins
	start := time.Now()
	goruntime.GC()
	if took := time.Since(start); took > time.Second {
		t.Errorf("a garbage collection took %v while the call ran", took)
	}
	<-done
}

// Cancelling a call stops it inside native code too.
func TestCancelStopsNativeCode(t *testing.T) {
	r := newRunner(t, Options{MemoryLimit: 1 << 30})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	start := time.Now()
	res := r.Call(ctx, host.JSCall{Tool: "t", SourceRef: "t.js", Function: "execute", Timeout: 60 * time.Second,
		Source: []byte(`function execute() { const a = new Array(2e7).fill(1.5); for (;;) a.join(); }`)})
	if took := time.Since(start); took > 2500*time.Millisecond || res.ErrorType != "canceled" {
		t.Errorf("after %v: %+v, want canceled within a second of the cancel", took, res.Result)
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
		res := call(r, `function execute() { const a = []; for (;;) a.push({a: 1, b: [1, 2, 3], s: "x" + a.length}); }`, 20*time.Second)
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
