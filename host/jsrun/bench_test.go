package jsrun

import (
	"context"
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
	for b.Loop() {
		b.StopTimer()
		rt, err := newRuntime(r.build())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res := r.callOn(context.Background(), rt, benchCall, params)
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
	rt.call = &callState{ctx: context.Background()}
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
		res := r.callOn(context.Background(), rt, c, params)
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

// cpuBound is a CPU-bound tool: no bridge calls, only compute.
const cpuBound = `(() => { let s = 0; for (let i = 0; i < 300000; i++) { s = (s + i * 7) % 1000003 } return String(s) })()`

// BenchmarkTimeoutMechanism runs CPU-bound JS with no way to stop it, with
// the interrupt handler the runner uses (armed an hour ahead), and with
// wazero's close-on-context-done: the ratios to the first are what each
// mechanism costs.
func BenchmarkTimeoutMechanism(b *testing.B) {
	bin, err := quickJS(build{memoryLimit: DefaultMemoryLimit})
	if err != nil {
		b.Fatal(err)
	}
	// qjs compiles one module per process, with the setting of the runtime
	// that compiled it; DisableBuildCache recompiles with the one given.
	plain := func(b *testing.B, closeOnDone bool) *qjs.Runtime {
		rt, err := qjs.New(qjs.Option{CWD: b.TempDir(), QuickJSWasmBytes: bin, CloseOnContextDone: closeOnDone,
			DisableBuildCache: true, Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		return rt
	}
	run := func(b *testing.B, rt *qjs.Runtime) {
		for b.Loop() {
			v, err := rt.Eval("cpu.js", qjs.Code(cpuBound))
			if err != nil {
				b.Fatal(err)
			}
			v.Free()
		}
	}
	b.Run("none", func(b *testing.B) {
		rt := plain(b, false)
		defer rt.Close()
		run(b, rt)
	})
	b.Run("interrupt-handler", func(b *testing.B) {
		rt, err := newRuntime(build{memoryLimit: DefaultMemoryLimit})
		if err != nil {
			b.Fatal(err)
		}
		defer rt.close()
		rt.setDeadline(time.Now().Add(time.Hour))
		run(b, rt.q)
	})
	b.Run("close-on-context-done", func(b *testing.B) {
		rt := plain(b, true)
		defer rt.Close()
		run(b, rt)
	})
	// Leave the process's compiled module as the runner makes it.
	plain(b, false).Close()
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
