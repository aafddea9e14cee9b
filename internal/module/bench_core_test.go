package module

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// The benchmarks here set the core through the module against the same core
// run natively, so the cost of the wasm boundary (copies, the envelope, the
// interpreter's or compiler's overhead) can be read off. The native side does
// what abi.Guest does for an export: decode the event's JSON, feed the turn,
// encode the actions.

// benchCatalogue is memCatalogue as a value: one group, pdf, with pdf_info.
func benchCatalogue(tb testing.TB) registry.Catalogue {
	tb.Helper()
	var c registry.Catalogue
	if err := json.Unmarshal([]byte(memCatalogue), &c); err != nil {
		tb.Fatal(err)
	}
	return c
}

// benchHistory is a log of n messages as a session keeps it: it opens by
// loading the pdf group, so a new turn has a group to restore, then repeats
// user, assistant, pdf_info call, its result, the assistant's answer.
func benchHistory(n int) []session.Message {
	h := []session.Message{
		{Type: session.User, Content: "Open the reports."},
		{Type: session.Assistant},
		{Type: session.ToolCall, ToolCallID: "load_1", ToolName: registry.LoadToolGroupName,
			ToolInput: `{"group_name":"pdf"}`, Status: registry.StatusSuccess},
		{Type: session.ToolResult, ToolCallID: "load_1", ToolName: registry.LoadToolGroupName,
			Content: "Loaded 1 tools from group 'pdf':\n- pdf_info: PDF info", Status: registry.StatusSuccess},
	}
	for i := 0; len(h) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		h = append(h,
			session.Message{Type: session.User, Content: fmt.Sprintf("How many pages has report-%d.pdf?", i)},
			session.Message{Type: session.Assistant, Content: "Let me look."},
			session.Message{Type: session.ToolCall, ToolCallID: id, ToolName: "pdf_info",
				ToolInput: fmt.Sprintf(`{"path":"report-%d.pdf"}`, i), Status: registry.StatusSuccess},
			session.Message{Type: session.ToolResult, ToolCallID: id, ToolName: "pdf_info",
				Content: fmt.Sprintf(`{"pages":%d,"title":"Quarterly report %d","author":"Finance"}`, i%40+1, i), Status: registry.StatusSuccess},
			session.Message{Type: session.Assistant, Content: fmt.Sprintf("report-%d.pdf has %d pages.", i, i%40+1)},
		)
	}
	return h[:n]
}

// resultHistory is benchHistory with tool results of about 2.4 KB: a
// session that read documents. 10,000 messages are 5.5 MB of JSON.
func resultHistory(n int) []session.Message {
	h := benchHistory(n)
	for i := range h {
		if h[i].Type == session.ToolResult {
			h[i].Content += strings.Repeat("lorem ipsum ", 200)
		}
	}
	return h
}

// startEvent is the start event of a turn with the given history, as JSON.
func startEvent(tb testing.TB, history []session.Message) []byte {
	tb.Helper()
	ev, err := Marshal(session.Event{Type: session.EventStart, User: "And the last one?",
		Settings: session.Settings{Format: "openai", Model: "m"}, History: history})
	if err != nil {
		tb.Fatal(err)
	}
	return ev
}

// nativeGuest is the module's side of the exports run natively: what the
// wasm figures are set against.
func nativeGuest(tb testing.TB) *abi.Guest {
	tb.Helper()
	g := &abi.Guest{}
	if out := g.Load([]byte(memCatalogue)); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
		tb.Fatalf("load: %s", out)
	}
	return g
}

// nativeTurn opens a turn of g.
func nativeTurn(tb testing.TB, g *abi.Guest) uint32 {
	tb.Helper()
	var env struct {
		OK abi.TurnHandle `json:"ok"`
	}
	if err := json.Unmarshal(g.TurnNew(), &env); err != nil || env.OK.Turn == 0 {
		tb.Fatalf("turn_new: %v", err)
	}
	return env.OK.Turn
}

// nativeEvent feeds a turn one event and takes the body of the model call
// it answers with, as a host does through the exports.
func nativeEvent(tb testing.TB, g *abi.Guest, h uint32, event []byte) {
	if out := g.TurnEvent(h, event); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
		tb.Fatalf("event: %s", out)
	}
	g.TurnBody(h)
}

func nativeRegistry(tb testing.TB, c registry.Catalogue) *registry.Registry {
	tb.Helper()
	reg, rep := registry.Build(c)
	if !rep.OK() {
		tb.Fatalf("catalogue has problems: %+v", rep)
	}
	return reg
}

func loadedInstance(tb testing.TB, catalogue []byte) *Instance {
	tb.Helper()
	inst := instance(tb)
	rep, err := inst.Load(context.Background(), catalogue)
	if err != nil {
		tb.Fatal(err)
	}
	if !rep.OK() {
		tb.Fatalf("catalogue has problems: %+v", rep)
	}
	return inst
}

// startTurn opens a turn and feeds it a start event, taking the body of
// the model call it answers with, as a host does.
func startTurn(tb testing.TB, inst *Instance, start []byte) uint32 {
	ctx := context.Background()
	h, err := inst.TurnNew(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	acts, err := inst.TurnEvent(ctx, h, start)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Contains(acts, []byte(`"type":"call_model"`)) {
		tb.Fatalf("the start event answered %s, not a model call", acts)
	}
	if body, err := inst.TurnBody(ctx, h); err != nil || len(body) == 0 {
		tb.Fatalf("toolroute_turn_body: %d bytes, %v", len(body), err)
	}
	return h
}

// endTurn ends a turn with a text answer, frees it and returns the cache
// action's fingerprint.
func endTurn(tb testing.TB, inst *Instance, h uint32) string {
	ctx := context.Background()
	acts, err := inst.TurnActions(ctx, h, []byte(`{"type":"response","body":{"choices":[{"message":{"content":"It has 3 pages."},"finish_reason":"stop"}]}}`))
	if err != nil {
		tb.Fatal(err)
	}
	if err := inst.TurnFree(ctx, h); err != nil {
		tb.Fatal(err)
	}
	for _, a := range acts {
		if a.Type == session.ActionCache {
			return a.Cache.Fingerprint
		}
	}
	return ""
}

// keptStart is the start event of a session's next turn on the instance
// that keeps the session: its fingerprint and no history.
func keptStart(sessionID, fingerprint string) []byte {
	return []byte(`{"type":"start","user":"And the last one?","settings":{"format":"openai","model":"m"},"session":"` +
		sessionID + `","fingerprint":"` + fingerprint + `"}`)
}

// BenchmarkStartTurn is a turn's start event, which restores the groups the
// history loaded and answers with the first model request (its body taken
// with toolroute_turn_body): "wasm" with the whole history, as a host
// sends it to an instance that does not keep the session, "wasm-kept" to
// the instance that kept the session from its last turn, with the
// fingerprint and no history. Each kept turn then ends (untimed), adding
// two messages to the session: every max(10, history/100) iterations the
// session starts again from the history (untimed), so it grows by 2 %
// at most.
func BenchmarkStartTurn(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 1000, 10000} {
		history := benchHistory(n)
		start := startEvent(b, history)
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			b.Run("wasm-kept", func(b *testing.B) {
				inst := loadedInstance(b, []byte(memCatalogue))
				clock := newCPUClock(b)
				defer clock.report()
				const sessionID = "s"
				var fp string
				// prime starts the session again from the history: the
				// instance drops what it kept of it.
				prime := func() {
					first, err := Marshal(session.Event{Type: session.EventStart, User: "And the last one?",
						Settings: session.Settings{Format: "openai", Model: "m"}, History: history, Session: sessionID})
					if err != nil {
						b.Fatal(err)
					}
					fp = endTurn(b, inst, startTurn(b, inst, first))
				}
				every := max(10, n/100)
				prime()
				for i := 1; b.Loop(); i++ {
					h := startTurn(b, inst, keptStart(sessionID, fp))
					clock.stop()
					if fp = endTurn(b, inst, h); fp == "" {
						b.Fatal("no fingerprint")
					}
					if i%every == 0 {
						prime()
					}
					clock.start()
				}
			})
			b.Run("wasm", func(b *testing.B) {
				inst := loadedInstance(b, []byte(memCatalogue))
				b.SetBytes(int64(len(start)))
				clock := newCPUClock(b)
				defer clock.report()
				for b.Loop() {
					h := startTurn(b, inst, start)
					if err := inst.TurnFree(ctx, h); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("native", func(b *testing.B) {
				g := nativeGuest(b)
				b.SetBytes(int64(len(start)))
				clock := newCPUClock(b)
				defer clock.report()
				for b.Loop() {
					h := nativeTurn(b, g)
					nativeEvent(b, g, h, start)
					g.TurnFree(h)
				}
			})
		})
	}
}

// BenchmarkFirstCall is the first call of its kind on a new instance, with
// the catalogue loaded (the instance is made untimed): the cost the
// steady-state figures leave out, the Go runtime and encoding/json
// building their caches and memory growing.
func BenchmarkFirstCall(b *testing.B) {
	ctx := context.Background()
	rt := runtime(b)
	fresh := func(b *testing.B, clock *cpuClock) *Instance {
		clock.stop()
		defer clock.start()
		inst, err := rt.Instantiate(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := inst.Load(ctx, []byte(memCatalogue)); err != nil {
			b.Fatal(err)
		}
		return inst
	}
	start10k := startEvent(b, benchHistory(10000))
	b.Run("start-turn-history=10000", func(b *testing.B) {
		clock := newCPUClock(b)
		defer clock.report()
		for range b.N {
			inst := fresh(b, clock)
			startTurn(b, inst, start10k)
			clock.stop()
			inst.Close(ctx)
			clock.start()
		}
	})
	b.Run("load-step", func(b *testing.B) {
		clock := newCPUClock(b)
		defer clock.report()
		for range b.N {
			inst := fresh(b, clock)
			clock.stop()
			h := startTurn(b, inst, startEvent(b, nil))
			clock.start()
			loadStep(b, inst, h)
			clock.stop()
			inst.Close(ctx)
			clock.start()
		}
	})
	b.Run("turn", func(b *testing.B) {
		clock := newCPUClock(b)
		defer clock.report()
		for range b.N {
			inst := fresh(b, clock)
			wholeTurn(b, inst)
			clock.stop()
			inst.Close(ctx)
			clock.start()
		}
	})
}

// loadStep feeds a turn the model's response calling load_tool_group and
// takes the next request's body.
func loadStep(tb testing.TB, inst *Instance, h uint32) {
	ctx := context.Background()
	if _, err := inst.TurnEvent(ctx, h, []byte(turnEvents[0])); err != nil {
		tb.Fatal(err)
	}
	if body, err := inst.TurnBody(ctx, h); err != nil || len(body) == 0 {
		tb.Fatalf("toolroute_turn_body: %d bytes, %v", len(body), err)
	}
}

// BenchmarkLoadGroupStep is one load_tool_group step: the model's response
// calling load_tool_group in, the next model request out. Starting the turn
// is not timed.
func BenchmarkLoadGroupStep(b *testing.B) {
	ctx := context.Background()
	start := startEvent(b, nil)
	load := []byte(turnEvents[0])
	b.Run("wasm", func(b *testing.B) {
		inst := loadedInstance(b, []byte(memCatalogue))
		clock := newCPUClock(b)
		defer clock.report()
		b.ResetTimer() // the instance's making is not the step
		for range b.N {
			clock.stop()
			h := startTurn(b, inst, start)
			clock.start()
			loadStep(b, inst, h)
			clock.stop()
			if err := inst.TurnFree(ctx, h); err != nil {
				b.Fatal(err)
			}
			clock.start()
		}
	})
	b.Run("native", func(b *testing.B) {
		g := nativeGuest(b)
		clock := newCPUClock(b)
		defer clock.report()
		b.ResetTimer() // the instance's making is not the step
		for range b.N {
			clock.stop()
			h := nativeTurn(b, g)
			nativeEvent(b, g, h, start)
			clock.start()
			nativeEvent(b, g, h, load)
			clock.stop()
			g.TurnFree(h)
			clock.start()
		}
	})
}

// bigCatalogue has n tools in groups of 50, each with a small schema.
func bigCatalogue(n int) registry.Catalogue {
	var c registry.Catalogue
	for i := range n {
		g := fmt.Sprintf("group_%d", i/50)
		if i%50 == 0 {
			c.Groups = append(c.Groups, registry.Group{Name: g, DisplayName: fmt.Sprintf("Group %d", i/50),
				Description: fmt.Sprintf("Tools of group %d: reading, searching and writing its records", i/50)})
		}
		c.Tools = append(c.Tools, registry.Tool{
			Name:        fmt.Sprintf("%s_tool_%d", g, i%50),
			Description: fmt.Sprintf("Tool %d of %s: looks a record up by id and returns it as JSON", i%50, g),
			Group:       g,
			Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"The record's id"},` +
				`"fields":{"type":"array","items":{"type":"string"}},"limit":{"type":"integer","minimum":1}},"required":["id"]}`),
		})
	}
	return c
}

// BenchmarkCatalogue registers a catalogue of N tools: through the module
// that includes decoding the catalogue's JSON; natively it is registry.Build
// of the value alone. wasm-copy makes a new instance with the catalogue
// loaded as a Pool does after its first: a copy of the first's memory.
func BenchmarkCatalogue(b *testing.B) {
	ctx := context.Background()
	type named struct {
		name string
		c    registry.Catalogue
	}
	var catalogues []named
	for _, n := range []int{100, 1000, 10000} {
		catalogues = append(catalogues, named{fmt.Sprintf("tools=%d", n), bigCatalogue(n)})
	}
	// builtin is the catalogue the browser and the worker load as their
	// first request's main work: the built-in JS tools' manifests, as text.
	catalogues = append(catalogues, named{"builtin", builtinCatalogue(b)})
	for _, cn := range catalogues {
		c := cn.c
		js, err := Marshal(c)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(cn.name, func(b *testing.B) {
			b.Run("wasm", func(b *testing.B) {
				inst := loadedInstance(b, js)
				b.SetBytes(int64(len(js)))
				for b.Loop() {
					if _, err := inst.Load(ctx, js); err != nil {
						b.Fatal(err)
					}
				}
			})
			// wasm-copy is what each further instance of a Pool costs:
			// a copy of an instance that loaded the catalogue, made and
			// closed.
			b.Run("wasm-copy", func(b *testing.B) {
				snap, err := loadedInstance(b, js).snapshot()
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(js)))
				for b.Loop() {
					cp, err := runtime(b).restore(ctx, snap)
					if err != nil {
						b.Fatal(err)
					}
					cp.Close(ctx)
				}
			})
			b.Run("native", func(b *testing.B) {
				nativeRegistry(b, c)
				for b.Loop() {
					registry.Build(c)
				}
			})
		})
	}
}

// builtinCatalogue is the built-in JS tools as `toolroute export
// --builtin` gives them: their manifests' text, each with its source's
// reference.
func builtinCatalogue(tb testing.TB) registry.Catalogue {
	tb.Helper()
	folder, err := catalog.ReadFolder(manifests.FS, "builtin", false)
	if err != nil {
		tb.Fatal(err)
	}
	return folder.Catalogue()
}

// BenchmarkCompile is New on the embedded module, which instantiates it
// once to check its ABI version: with no cache, ready on the interpreter
// (the compile New starts in the background stopped by Close) and with
// the compiled code awaited; and from a warm compilation cache on disk.
func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	compile := func(b *testing.B, cfg Config, wait bool) {
		b.Helper()
		rt, err := New(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if wait {
			if err := rt.WaitCompiled(ctx); err != nil {
				b.Fatal(err)
			}
		}
		if err := rt.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cache=none", func(b *testing.B) {
		for b.Loop() {
			compile(b, Config{}, false)
		}
	})
	b.Run("cache=none-compiled", func(b *testing.B) {
		for b.Loop() {
			compile(b, Config{}, true)
		}
	})
	b.Run("cache=warm", func(b *testing.B) {
		cfg := Config{CacheDir: b.TempDir()}
		compile(b, cfg, true)
		for b.Loop() {
			compile(b, cfg, false)
		}
	})
}

// BenchmarkInstantiate is one instance of the compiled module, _initialize
// and the version check included.
func BenchmarkInstantiate(b *testing.B) {
	ctx := context.Background()
	rt := runtime(b)
	for b.Loop() {
		inst, err := rt.Instantiate(ctx)
		if err != nil {
			b.Fatal(err)
		}
		inst.Close(ctx)
	}
}

// BenchmarkStartMemory is an instance's memory after a start event with a
// history of 10,000 and of 100,000 messages (BenchmarkStartTurn's), on a
// new instance that loaded a small catalogue: wasm-bytes, beside
// event-bytes, the event's size; and after 50 turns of a session of
// 10,000 messages with 2.4 KB tool results (resultHistory: 5.5 MB), the
// instance keeping its state between them (wasm/ABI.md, Sessions).
func BenchmarkStartMemory(b *testing.B) {
	ctx := context.Background()
	runtime(b) // compiled before the first figure
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			ev, err := Marshal(session.Event{Type: session.EventStart, User: "And the last one?", Session: "s",
				Settings: session.Settings{Format: "openai", Model: "m"}, History: benchHistory(n)})
			if err != nil {
				b.Fatal(err)
			}
			var size uint32
			for b.Loop() {
				inst := loadedInstance(b, []byte(memCatalogue))
				endTurn(b, inst, startTurn(b, inst, ev))
				size = inst.MemorySize()
				inst.Close(ctx)
			}
			b.ReportMetric(float64(size), "wasm-bytes")
			b.ReportMetric(float64(len(ev)), "event-bytes")
		})
	}
	b.Run("session=10000/turns=50", func(b *testing.B) {
		history := resultHistory(10000)
		first, err := Marshal(session.Event{Type: session.EventStart, User: "turn 0", Session: "s",
			Settings: session.Settings{Format: "openai", Model: "m"}, History: history})
		if err != nil {
			b.Fatal(err)
		}
		var size uint32
		for b.Loop() {
			inst := loadedInstance(b, []byte(memCatalogue))
			fp := endTurn(b, inst, startTurn(b, inst, first))
			for turn := 1; turn < 50; turn++ {
				if fp == "" {
					b.Fatal("no fingerprint")
				}
				fp = endTurn(b, inst, startTurn(b, inst, keptStart("s", fp)))
			}
			size = inst.MemorySize()
			inst.Close(ctx)
		}
		b.ReportMetric(float64(size), "wasm-bytes")
		b.ReportMetric(float64(len(first)), "event-bytes")
	})
}

// BenchmarkMemoryAfter1000Turns runs TestMemoryAfter1000Turns's 1,000 turns
// on a new instance per iteration and reports the instance's memory at the
// end as wasm-bytes.
func BenchmarkMemoryAfter1000Turns(b *testing.B) {
	ctx := context.Background()
	rt := runtime(b)
	var size uint32
	for range b.N {
		inst, err := rt.Instantiate(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := inst.Load(ctx, []byte(memCatalogue)); err != nil {
			b.Fatal(err)
		}
		history := json.RawMessage(`[]`)
		for n := range 1000 {
			h, err := inst.TurnNew(ctx)
			if err != nil {
				b.Fatal(err)
			}
			start := fmt.Sprintf(`{"type":"start","user":"turn %d","settings":{"format":"openai","model":"m"},"history":%s}`, n, history)
			var log []json.RawMessage
			for _, ev := range append([]string{start}, turnEvents...) {
				out, err := inst.TurnEvent(ctx, h, []byte(ev))
				if err != nil {
					b.Fatalf("turn %d: %v", n, err)
				}
				var acts []struct {
					Messages []json.RawMessage `json:"messages"`
				}
				if err := json.Unmarshal(out, &acts); err != nil {
					b.Fatal(err)
				}
				for _, a := range acts {
					log = append(log, a.Messages...)
				}
			}
			if err := inst.TurnFree(ctx, h); err != nil {
				b.Fatal(err)
			}
			if history, err = json.Marshal(log); err != nil {
				b.Fatal(err)
			}
		}
		size = inst.MemorySize()
		inst.Close(ctx)
	}
	b.ReportMetric(float64(size), "wasm-bytes")
}
