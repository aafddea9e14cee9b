package jsrun

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/checktest"
)

// The instrumentation of qjs v0.0.6's build: every function decodes to its
// end, every loop header and stack-pointer write gets its probe, and the
// bounds the hard stop relies on hold.
func TestInstrumentQuickJS(t *testing.T) {
	secs, err := sections(qjsWasm)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := readModuleFuncs(secs)
	if err != nil {
		t.Fatal(err)
	}
	var code section
	for _, s := range secs {
		if s.id == 10 {
			code = s
		}
	}
	out, st, err := instrumentCode(code.content, mf, hardStopProbes())
	if err != nil {
		t.Fatal(err)
	}
	// Counted in the build's text form (wasm2wat): 1,726 loops, 1,021
	// global.set 0.
	if st.functions != funcCount || st.loops != 1726 || st.stackSets != 1021 {
		t.Errorf("%+v: want %d functions, 1726 loops, 1021 stack-pointer writes", st, funcCount)
	}
	if st.leafFrame > guardSize/2 || st.maxRun > maxRunBetweenTicks {
		t.Errorf("%+v: a frame under the stack pointer past half the guard, or a run between ticks past %d", st, maxRunBetweenTicks)
	}
	// The output decodes too, and holds the ticks.
	count, pos, _ := readUleb(out, 0)
	for range count {
		size, n, err := readUleb(out, pos)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := decodeBody(out[pos+n : pos+n+int(size)]); err != nil {
			t.Fatalf("an instrumented function does not decode: %v", err)
		}
		pos += n + int(size)
	}
	if n := bytes.Count(out, hardStopProbes().tick); n != st.loops+st.entries {
		t.Errorf("%d ticks in the output, want %d loops and %d entries", n, st.loops, st.entries)
	}
}

// A small function, instrumented by hand: a tick at its entry (it calls
// itself), one after its loop header, and the stack check after its write
// of the stack pointer.
func TestInstrumentCode(t *testing.T) {
	pr := probes{tick: []byte{0xee}, afterStackSet: []byte{0xdd}, stackGlobal: 0, longestRun: 100}
	body := []byte{
		0x00,              // no locals
		opGlobalGet, 0x00, // global.get 0
		opI32Const, 0x10, // i32.const 16
		opI32Sub,          // i32.sub
		opGlobalSet, 0x00, // global.set 0
		opLoop, 0x40, // loop
		opCall, 0x01, // call 1 (itself: one import comes first)
		0x0d, 0x00, // br_if 0
		opEnd, // end
		opEnd, // end
	}
	content := append([]byte{1, byte(len(body))}, body...)
	out, st, err := instrumentCode(content, moduleFuncs{imports: 1, types: []uint32{0}, exports: nil}, pr)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x00,
		0xee, // the entry's tick
		opGlobalGet, 0x00, opI32Const, 0x10, opI32Sub, opGlobalSet, 0x00,
		0xdd, // the stack check
		opLoop, 0x40,
		0xee, // the loop's tick
		opCall, 0x01, 0x0d, 0x00, opEnd, opEnd,
	}
	if diff := cmp.Diff(append([]byte{1, byte(len(want))}, want...), out); diff != "" {
		t.Errorf("instrumented (-want +got):\n%s", diff)
	}
	if st.entries != 1 || st.loops != 1 || st.stackSets != 1 || st.leafFrame != 0 {
		t.Errorf("%+v", st)
	}
}

// The decoder refuses what the build does not use rather than skipping it.
func TestDecoderRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		body []byte
	}{
		{"a SIMD instruction", []byte{0x00, 0xfd, 0x0c, opEnd}},
		{"table.init", []byte{0x00, opPrefixFC, 12, 0, 0, opEnd}},
		{"a function with no end", []byte{0x00, opBlock, 0x40, opEnd}},
		{"code after the end", []byte{0x00, opEnd, 0x01}},
		{"a truncated immediate", []byte{0x00, opI32Const, 0x80}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := decodeBody(tt.body); !errors.Is(err, errWrongQuickJS) {
				t.Errorf("decodeBody = %v, want errWrongQuickJS", err)
			}
		})
	}
}

// A recursion of any depth stops before the stack reaches the data below
// it: the bytes from __data_end to the limit are never written.
func TestStackStopsAboveData(t *testing.T) {
	r := newRunner(t, Options{})
	for _, src := range []string{
		`function execute() { function down(n) { return n === 0 ? 0 : 1 + down(n - 1); } return down(1e7); }`,
		`function execute() { return JSON.parse("[".repeat(200000) + "]".repeat(200000)).length; }`,
	} {
		rt, err := newRuntime(r.build())
		if err != nil {
			t.Fatal(err)
		}
		// What leaf functions may use under the stack pointer at its limit
		// is left out: 32 bytes in this build.
		pattern := bytes.Repeat([]byte{0xa5}, stackLimit-stackLow-64)
		if err := rt.q.Mem().Write(stackLow, pattern); err != nil {
			t.Fatal(err)
		}
		res := r.callOn(checktest.Context(t), rt, host.JSCall{Tool: "t", SourceRef: "t.js", Source: []byte(src), Function: "execute", Timeout: failsafe}, "{}")
		if got, err := rt.q.Mem().Read(stackLow, uint64(len(pattern))); err != nil || !bytes.Equal(got, pattern) {
			t.Errorf("%.40s: the stack wrote below its limit (%v)", src, err)
		}
		if rt.reason() != reasonStack || res.ErrorType != "execution_error" {
			t.Errorf("%.40s: reason %d, %+v", src, rt.reason(), res.Result)
		}
		rt.close()
	}
}

// The decoder reads the immediates the instrumentation uses.
func TestNextInstr(t *testing.T) {
	for _, tt := range []struct {
		name string
		code []byte
		want instr
	}{
		{"call", []byte{opCall, 0x8e, 0x09}, instr{op: opCall, end: 3, index: 1166}},
		{"call_indirect names its type", []byte{opCallIndirect, 0x05, 0x00}, instr{op: opCallIndirect, end: 3, index: 5}},
		{"global.set", []byte{opGlobalSet, 0x01}, instr{op: opGlobalSet, end: 2, index: 1}},
		{"i32.const -16", []byte{opI32Const, 0x70}, instr{op: opI32Const, end: 2, value: -16}},
		{"i32.const 2031616", []byte{opI32Const, 0x80, 0x80, 0xfc, 0x00}, instr{op: opI32Const, end: 5, value: 2031616}},
		{"memory.copy", []byte{opPrefixFC, 10, 0, 0}, instr{op: opPrefixFC, sub: 10, end: 4}},
		{"br_table", []byte{opBrTable, 2, 0, 1, 2}, instr{op: opBrTable, end: 5}},
		{"a block of a type index", []byte{opBlock, 0x05}, instr{op: opBlock, end: 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nextInstr(tt.code, 0)
			if err != nil || got != tt.want {
				t.Errorf("nextInstr = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// The functions in the table tick at their entry, whatever calls them:
// a cycle through call_indirect passes one.
func TestTableFunctionsTick(t *testing.T) {
	pr := probes{tick: []byte{0xee}, afterStackSet: []byte{0xdd}, longestRun: 100}
	// Function 0 calls through the table; function 1, in it, calls 0.
	f0 := []byte{0x00, opI32Const, 0x01, opCallIndirect, 0x00, 0x00, opEnd}
	f1 := []byte{0x00, opCall, 0x00, opEnd}
	content := append(append([]byte{2, byte(len(f0))}, f0...), append([]byte{byte(len(f1))}, f1...)...)
	out, st, err := instrumentCode(content, moduleFuncs{types: []uint32{0, 0}, table: []uint32{1}}, pr)
	if err != nil {
		t.Fatal(err)
	}
	if st.entries != 1 || !bytes.Contains(out, []byte{0x00, 0xee, opCall, 0x00, opEnd}) {
		t.Errorf("%+v, % x: want a tick at the entry of function 1 alone", st, out)
	}
}
