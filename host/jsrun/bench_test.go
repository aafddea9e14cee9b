package jsrun

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/fastschema/qjs"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/registry/check"
)

// source15KB is a tool source of about 15 KB: helpers and one tool function.
var source15KB = func() string {
	var b strings.Builder
	for i := 0; b.Len() < 15000; i++ {
		fmt.Fprintf(&b, "function _helper%d(items) {\n  return items.map(x => ({id: x.id, score: x.score * %d})).filter(x => x.score > 1);\n}\n", i, i+1)
	}
	b.WriteString("async function execute(params) {\n  return {count: _helper1([{id: 1, score: params.n}]).length, query: params.q};\n}\n")
	return b.String()
}()

var benchCall = host.JSCall{Tool: "bench", SourceRef: "bench.js", Source: []byte(source15KB), Function: "execute",
	Params: []byte(`{"q":"hello","n":3}`), Timeout: 10 * time.Second}

func benchRunner(b *testing.B, opts Options) *Runner {
	r, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.Close)
	r.Precompile(map[string][]byte{benchCall.SourceRef: benchCall.Source})
	return r
}

// BenchmarkColdCall: one call on a fresh runtime, the way every call runs: a
// 15 KB source loaded from its bytecode, the function called, the result
// read. Making the runtime (BenchmarkNewRuntime) is done ahead, off the
// call's path, by the warm pool, and is left out.
func BenchmarkColdCall(b *testing.B) {
	r := benchRunner(b, Options{})
	params, _ := withEnv(benchCall.Params, nil)
	// The module that checks the bridge's calls is compiled once per
	// process, as a host compiles it at start: made here, with one call,
	// so that the first timed run is a new runtime's call like the rest.
	ctx := checktest.Context(b)
	if rt, err := newRuntime(r.build()); err != nil {
		b.Fatal(err)
	} else {
		r.callOn(ctx, rt, benchCall, params)
		rt.close()
	}
	for b.Loop() {
		b.StopTimer()
		rt, err := newRuntime(r.build())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res := r.callOn(ctx, rt, benchCall, params)
		b.StopTimer()
		if res.Output != `{"count":1,"query":"hello"}` {
			b.Fatalf("%+v", res)
		}
		rt.close()
		b.StartTimer()
	}
}

// BenchmarkCallItself: only the call of a tool function whose source is
// loaded: what a call costs once its runtime is ready.
func BenchmarkCallItself(b *testing.B) {
	rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.close()
	rt.call = &callState{ctx: checktest.Context(b)}
	bc, err := rt.compile("bench.js", source15KB)
	if err != nil {
		b.Fatal(err)
	}
	if err := rt.load("bench.js", bc); err != nil {
		b.Fatal(err)
	}
	start := `__tr_start("execute", "{\"q\":\"hello\",\"n\":3,\"_env\":{}}")`
	for b.Loop() {
		if _, err := rt.eval("<call>", start); err != nil {
			b.Fatal(err)
		}
		if out := rt.global("__tr_outcome"); out != `{"ok":true,"value":"{\"count\":1,\"query\":\"hello\"}"}` {
			b.Fatal(out)
		}
	}
}

// BenchmarkNewRuntime: making one fresh runtime with the bridges, which the
// warm pool does in the background.
func BenchmarkNewRuntime(b *testing.B) {
	for b.Loop() {
		rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		rt.close()
		b.StartTimer()
	}
}

// BenchmarkCompile15KB: compiling the 15 KB source to bytecode, paid once per
// source (Precompile does it when the catalogue loads).
func BenchmarkCompile15KB(b *testing.B) {
	rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.close()
	for b.Loop() {
		if _, err := rt.compile("bench.js", source15KB); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetchCall: a cold call that awaits a fetch from a local server.
func BenchmarkFetchCall(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[1,2,3]}`)
	}))
	defer srv.Close()
	r := benchRunner(b, Options{Fetch: FetchOptions{AllowPrivate: true}})
	c := host.JSCall{Tool: "f", SourceRef: "f.js", Function: "execute", Timeout: 10 * time.Second,
		Source: []byte(`async function execute(p) { const r = await fetch(p.url); return (await r.json()).items.length; }`),
		Params: []byte(fmt.Sprintf(`{"url":%q}`, srv.URL+"/items"))}
	params, _ := withEnv(c.Params, nil)
	for b.Loop() {
		b.StopTimer()
		rt, err := newRuntime(r.build())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res := r.callOn(checktest.Context(b), rt, c, params)
		b.StopTimer()
		if res.Output != "3" {
			b.Fatalf("%+v", res)
		}
		rt.close()
		b.StartTimer()
	}
}

// BenchmarkRuntimeMemory reports what one idle runtime holds: its wasm
// memory and the Go heap it adds.
func BenchmarkRuntimeMemory(b *testing.B) {
	const n = 20
	for b.Loop() {
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		rts := make([]*runtime, n)
		var wasm uint64
		for i := range rts {
			rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
			if err != nil {
				b.Fatal(err)
			}
			rts[i] = rt
			wasm += uint64(rt.q.Mem().Size())
		}
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		b.ReportMetric(float64(wasm/n), "wasm-bytes/runtime")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-bytes/runtime")
		for _, rt := range rts {
			rt.close()
		}
	}
}

// hardStopWork are the workloads BenchmarkHardStop runs: JS that defines
// work() once, then a call of it per iteration.
var hardStopWork = []struct{ name, setup string }{
	// The worst case: a loop of trivial operations, each iteration a tick
	// (the interpreter's loop header) and little else.
	{"trivial-loop", `function work() { let s = 0; for (let i = 0; i < 300000; i++) { s = (s + i * 7) % 1000003 } return s }`},
	// Work done in native code: JSON, a regular expression, a sort.
	{"native-work", `const items = []; for (let i = 0; i < 5000; i++) items.push({id: i, name: "item " + ((i * 7919) % 5000), tags: ["a", "b"]});
		const text = JSON.stringify(items);
		function work() {
			const back = JSON.parse(text);
			back.sort((x, y) => x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
			return text.replace(/item (\d+)/g, "x$1").length + back.length;
		}`},
	// A tool call as BenchmarkCallItself makes it: mostly entering and
	// leaving QuickJS.
	{"tool-call", source15KB + `function work() { return execute({q: "hello", n: 3}); }`},
}

// BenchmarkHardStop measures what the stack check and the hard stop cost
// in steady state: each workload runs on three runtimes in turn, one
// iteration each, so the ratios come from one run on one machine state.
// ns/op is the runner's module (the hard stop); plain-ns the same patch
// without it (no stack check, no way to stop), close-on-context-done-ns the
// plain module with wazero's WithCloseOnContextDone, the other way to stop
// a call. hard-stop/plain and close-on-context-done/plain are the ratios.
func BenchmarkHardStop(b *testing.B) {
	hard, err := quickJS(build{memoryLimit: DefaultMemoryLimit})
	if err != nil {
		b.Fatal(err)
	}
	names, err := moduleNames("")
	if err != nil {
		b.Fatal(err)
	}
	plain, err := patchQuickJS(qjsWasm, DefaultMemoryLimit, names, false)
	if err != nil {
		b.Fatal(err)
	}
	// qjs compiles one module per process, with the setting of the runtime
	// that compiled it; DisableBuildCache recompiles with the one given.
	runtimeOf := func(bin []byte, closeOnDone bool) *qjs.Runtime {
		rt, err := qjs.New(qjs.Option{CWD: b.TempDir(), QuickJSWasmBytes: bin, CloseOnContextDone: closeOnDone,
			DisableBuildCache: true, Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		return rt
	}
	rts := []*qjs.Runtime{runtimeOf(hard, false), runtimeOf(plain, false), runtimeOf(plain, true)}
	// Leave the process's compiled module as the runner makes it.
	defer runtimeOf(hard, false).Close()
	for _, w := range hardStopWork {
		b.Run(w.name, func(b *testing.B) {
			for _, rt := range rts {
				v, err := rt.Eval("setup.js", qjs.Code(w.setup+"; work()"))
				if err != nil {
					b.Fatal(err)
				}
				v.Free()
			}
			var took [3]time.Duration
			for b.Loop() {
				for i, rt := range rts {
					if i > 0 {
						b.StopTimer()
					}
					start := time.Now()
					v, err := rt.Eval("work.js", qjs.Code("work()"))
					took[i] += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					v.Free()
					if i > 0 {
						b.StartTimer()
					}
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(took[1])/n, "plain-ns")
			b.ReportMetric(float64(took[2])/n, "close-on-context-done-ns")
			b.ReportMetric(float64(took[0])/float64(took[1]), "hard-stop/plain")
			b.ReportMetric(float64(took[2])/float64(took[1]), "close-on-context-done/plain")
		})
	}
}

// BenchmarkQJSCall is the floor of any call into QuickJS through qjs v0.0.6:
// one trivial export (JS_HasException). qjs looks the export up on every
// call, and wazero builds a call engine for each lookup.
func BenchmarkQJSCall(b *testing.B) {
	rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.close()
	c := rt.q.Context()
	for b.Loop() {
		c.HasException()
	}
}

// BenchmarkBridgeCheck is what every fetch adds by asking the module
// whether its method passes (js_bridge's fetch_method), through the pool
// a call's context carries; lib() and _time() ask once each the same way.
func BenchmarkBridgeCheck(b *testing.B) {
	ctx := checktest.Context(b)
	q := check.JSBridge{Code: "fetch_method", Method: "GET"}
	if err := ask(ctx, q); err != nil { // the pool's first instance
		b.Fatal(err)
	}
	for b.Loop() {
		if err := ask(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
