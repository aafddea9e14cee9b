package jsrun

import (
	"fmt"
	"slices"
)

// A small decoder of wasm function bodies, enough for qjs v0.0.6's build
// (MVP, sign extension, bulk memory: its target_features), so the patch
// can insert code at loop headers, function entries and stack-pointer
// writes. Every body must decode, block by block, to its final end: an
// instruction the decoder does not know refuses the module rather than
// being skipped.

// Opcodes the instrumentation looks at.
const (
	opUnreachable  = 0x00
	opBlock        = 0x02
	opLoop         = 0x03
	opIf           = 0x04
	opElse         = 0x05
	opEnd          = 0x0b
	opBrTable      = 0x0e
	opCall         = 0x10
	opCallIndirect = 0x11
	opSelectT      = 0x1c
	opGlobalGet    = 0x23
	opGlobalSet    = 0x24
	opI32Const     = 0x41
	opI64Const     = 0x42
	opF32Const     = 0x43
	opF64Const     = 0x44
	opI32Sub       = 0x6b
	opPrefixFC     = 0xfc
)

// instr is one decoded instruction: body[at:end] are its bytes.
type instr struct {
	op      byte
	sub     uint32 // the sub-opcode of an 0xFC instruction
	at, end int
	index   uint32 // the function, global or (call_indirect) type
	value   int32  // the immediate of i32.const
}

// nextInstr decodes the instruction at body[i].
func nextInstr(body []byte, i int) (instr, error) {
	in := instr{op: body[i], at: i}
	p := i + 1
	var err error
	uleb := func() uint32 {
		if err != nil {
			return 0
		}
		var v uint32
		var n int
		v, n, err = readUleb(body, p)
		p += n
		return v
	}
	skipSleb := func(maxBytes int) {
		for n := 0; err == nil; n++ {
			if n == maxBytes || p >= len(body) {
				err = fmt.Errorf("%w: bad signed LEB128 at %d", errWrongQuickJS, p)
				return
			}
			c := body[p]
			p++
			if c < 0x80 {
				return
			}
		}
	}
	switch op := in.op; {
	case op == opBlock || op == opLoop || op == opIf:
		// A block type: empty (0x40), one value type, or a type index.
		if p < len(body) && (body[p] == 0x40 || body[p] >= 0x7b && body[p] <= 0x7f) {
			p++
		} else {
			skipSleb(5)
		}
	case op <= 0x01, op == opElse, op == opEnd, op == 0x0f, op == 0x1a, op == 0x1b:
		// unreachable, nop, else, end, return, drop, select
	case op == 0x0c || op == 0x0d: // br, br_if
		uleb()
	case op == opBrTable:
		n := uleb()
		for k := uint32(0); k <= n && err == nil; k++ {
			uleb()
		}
	case op == opCall:
		in.index = uleb()
	case op == opCallIndirect:
		in.index = uleb() // the type
		uleb()            // the table
	case op == opSelectT:
		n := uleb()
		p += int(n)
	case op >= 0x20 && op <= 0x22: // local.get, local.set, local.tee
		uleb()
	case op == opGlobalGet || op == opGlobalSet:
		in.index = uleb()
	case op >= 0x28 && op <= 0x3e: // loads and stores: align, offset
		uleb()
		uleb()
	case op == 0x3f || op == 0x40: // memory.size, memory.grow
		uleb()
	case op == opI32Const:
		start := p
		skipSleb(5)
		if err == nil {
			in.value = readSleb32(body[start:p])
		}
	case op == opI64Const:
		skipSleb(10)
	case op == opF32Const:
		p += 4
	case op == opF64Const:
		p += 8
	case op >= 0x45 && op <= 0xc4: // numeric, sign extension included
	case op == opPrefixFC:
		in.sub = uleb()
		switch s := in.sub; {
		case s <= 7: // saturating truncations
		case s == 8: // memory.init: data, memory
			uleb()
			uleb()
		case s == 9: // data.drop
			uleb()
		case s == 10: // memory.copy: two memories
			uleb()
			uleb()
		case s == 11: // memory.fill
			uleb()
		default:
			return in, fmt.Errorf("%w: instruction 0xfc %d at %d", errWrongQuickJS, s, i)
		}
	default:
		return in, fmt.Errorf("%w: instruction 0x%02x at %d", errWrongQuickJS, op, i)
	}
	if err != nil {
		return in, err
	}
	if p > len(body) {
		return in, fmt.Errorf("%w: instruction at %d overruns its function", errWrongQuickJS, i)
	}
	in.end = p
	return in, nil
}

// readSleb32 decodes a signed LEB128 known to be well formed.
func readSleb32(b []byte) int32 {
	var r int32
	var shift uint
	for _, c := range b {
		r |= int32(c&0x7f) << shift
		shift += 7
	}
	if shift < 32 && b[len(b)-1]&0x40 != 0 {
		r |= -1 << shift
	}
	return r
}

// skipLocals returns where a function body's code starts, after its local
// declarations.
func skipLocals(body []byte) (int, error) {
	n, p, err := readUleb(body, 0)
	if err != nil {
		return 0, err
	}
	for range n {
		_, w, err := readUleb(body, p)
		if err != nil {
			return 0, err
		}
		p += w + 1 // the count, then one value type
	}
	if p > len(body) {
		return 0, fmt.Errorf("%w: locals overrun the function", errWrongQuickJS)
	}
	return p, nil
}

// decodeBody decodes a function body to its final end, checking that its
// blocks nest, and returns its instructions after the locals.
func decodeBody(body []byte) (code int, ins []instr, err error) {
	code, err = skipLocals(body)
	if err != nil {
		return 0, nil, err
	}
	depth := 1 // the function's own block
	for p := code; p < len(body); {
		if depth == 0 {
			return 0, nil, fmt.Errorf("%w: code after a function's end", errWrongQuickJS)
		}
		in, err := nextInstr(body, p)
		if err != nil {
			return 0, nil, err
		}
		switch in.op {
		case opBlock, opLoop, opIf:
			depth++
		case opEnd:
			depth--
		}
		ins = append(ins, in)
		p = in.end
	}
	if depth != 0 {
		return 0, nil, fmt.Errorf("%w: a function does not end", errWrongQuickJS)
	}
	return code, ins, nil
}

// probes are the code the instrumentation inserts.
type probes struct {
	// tick goes at every loop header, and at the entry of enough functions
	// that no function is entered again before a tick (every function in
	// the table, which call_indirect reaches; every one on a cycle of
	// direct calls; every export, which the host calls) and of those that
	// could run long before they meet one (longestRun).
	tick []byte
	// afterStackSet goes after every write of the stack pointer.
	afterStackSet []byte
	// stackGlobal is the stack pointer's global.
	stackGlobal uint32
	// longestRun is the most instructions a function without a tick at its
	// entry may run, its callees included, before it meets a tick: past it,
	// the function ticks at its entry too.
	longestRun int
}

// moduleFuncs is what the instrumentation needs of the module besides the
// code: how functions are numbered and which calls can reach which.
type moduleFuncs struct {
	imports int      // imported functions, numbered first
	types   []uint32 // the type of each function of the code section
	table   []uint32 // the functions in the table, which call_indirect reaches
	exports []uint32 // the exported functions, which the host calls
}

// instrumentStats says what instrumentCode found, for the patch's checks.
type instrumentStats struct {
	functions, loops, entries, stackSets int
	// leafFrame is the largest frame a function that never moves the
	// stack pointer uses below it (global.get, i32.const N, i32.sub).
	leafFrame int32
	// maxRun bounds the instructions that can run between two ticks: code
	// has no backward jump but to a loop header, and a function without a
	// tick at its entry is never on the call stack twice (a cycle of calls
	// passes a call_indirect, whose target ticks, or is a cycle of direct
	// calls, whose functions tick), so between two ticks each instruction
	// of a function, and each of its calls, runs at most once.
	maxRun int
}

// function is one decoded function of the code section.
type function struct {
	body  []byte
	code  int // where the code starts, after the locals
	ins   []instr
	calls []int // the local functions it calls directly, once per call
	tick  bool  // a tick at its entry
}

// instrumentCode returns a code section with the probes inserted.
func instrumentCode(content []byte, mf moduleFuncs, pr probes) ([]byte, instrumentStats, error) {
	var st instrumentStats
	count, pos, err := readUleb(content, 0)
	if err != nil {
		return nil, st, err
	}
	if int(count) != len(mf.types) {
		return nil, st, fmt.Errorf("%w: %d functions of code for %d declared", errWrongQuickJS, count, len(mf.types))
	}
	fns := make([]function, count)
	for i := range fns {
		size, n, err := readUleb(content, pos)
		if err != nil {
			return nil, st, err
		}
		if pos+n+int(size) > len(content) {
			return nil, st, fmt.Errorf("%w: a function overruns the code section", errWrongQuickJS)
		}
		f := &fns[i]
		f.body = content[pos+n : pos+n+int(size)]
		pos += n + int(size)
		if f.code, f.ins, err = decodeBody(f.body); err != nil {
			return nil, st, err
		}
		var frame int32
		sets := false
		for k, in := range f.ins {
			switch {
			case in.op == opCall && int(in.index) >= mf.imports+len(fns):
				return nil, st, fmt.Errorf("%w: a call of function %d, past the last", errWrongQuickJS, in.index)
			case in.op == opCall && int(in.index) >= mf.imports:
				f.calls = append(f.calls, int(in.index)-mf.imports)
			case in.op == opGlobalSet && in.index == pr.stackGlobal:
				sets = true
			case in.op == opGlobalGet && in.index == pr.stackGlobal &&
				k+2 < len(f.ins) && f.ins[k+1].op == opI32Const && f.ins[k+2].op == opI32Sub:
				frame = max(frame, f.ins[k+1].value)
			}
		}
		if !sets {
			st.leafFrame = max(st.leafFrame, frame)
		}
	}
	if pos != len(content) {
		return nil, st, fmt.Errorf("%w: bytes after the last function", errWrongQuickJS)
	}
	for _, f := range recursive(fns) {
		fns[f].tick = true
	}
	for _, e := range slices.Concat(mf.table, mf.exports) {
		if int(e) >= mf.imports+len(fns) {
			return nil, st, fmt.Errorf("%w: function %d in the table or exports is past the last", errWrongQuickJS, e)
		}
		if int(e) >= mf.imports { // an import runs in the host
			fns[int(e)-mf.imports].tick = true
		}
	}
	if st.maxRun, err = placeEntryTicks(fns, pr.longestRun); err != nil {
		return nil, st, err
	}

	out := append([]byte(nil), uleb(count)...)
	var nb []byte
	for _, f := range fns {
		st.functions++
		nb = append(nb[:0], f.body[:f.code]...)
		if f.tick {
			nb = append(nb, pr.tick...)
			st.entries++
		}
		last := f.code
		for _, in := range f.ins {
			switch {
			case in.op == opLoop:
				nb = append(nb, f.body[last:in.end]...)
				nb = append(nb, pr.tick...)
				last = in.end
				st.loops++
			case in.op == opGlobalSet && in.index == pr.stackGlobal:
				nb = append(nb, f.body[last:in.end]...)
				nb = append(nb, pr.afterStackSet...)
				last = in.end
				st.stackSets++
			}
		}
		nb = append(nb, f.body[last:]...)
		out = append(out, uleb(uint32(len(nb)))...)
		out = append(out, nb...)
	}
	return out, st, nil
}

// recursive returns the functions that can call themselves through direct
// calls: those on a cycle of direct calls (Tarjan's strongly connected
// components).
func recursive(fns []function) []int {
	index := make([]int, len(fns)) // 0: not visited yet; else order+1
	low := make([]int, len(fns))
	onStack := make([]bool, len(fns))
	var stack, out []int
	next := 1
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		self := false
		for _, w := range fns[v].calls {
			switch {
			case w == v:
				self = true
			case index[w] == 0:
				visit(w)
				low[v] = min(low[v], low[w])
			case onStack[w]:
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		// v is the root of a component: pop it.
		k := len(stack) - 1
		for stack[k] != v {
			k--
		}
		comp := stack[k:]
		stack = stack[:k]
		for _, w := range comp {
			onStack[w] = false
		}
		if len(comp) > 1 || self {
			out = append(out, comp...)
		}
	}
	for v := range fns {
		if index[v] == 0 {
			visit(v)
		}
	}
	slices.Sort(out)
	return out
}

// placeEntryTicks puts a tick at the entry of every function that could
// otherwise run more than longestRun instructions before its first tick,
// callees included, and returns the most instructions that can then run
// from a tick to the next: a function's own (from its entry, or its entry
// tick), plus, for each direct call, what the callee can run before its
// first tick. The functions on cycles and in the table must already tick
// at their entry, so that the rest of the call graph has no cycle.
func placeEntryTicks(fns []function, longestRun int) (int, error) {
	run := make([]int, len(fns))
	const busy = -1 // being computed
	done := make([]bool, len(fns))
	var untilTick func(f int) (int, error)
	within := func(f int) (int, error) {
		if done[f] {
			return run[f], nil
		}
		if run[f] == busy {
			return 0, fmt.Errorf("%w: function %d recurses without a tick", errWrongQuickJS, f)
		}
		run[f] = busy
		n := len(fns[f].ins) // a call_indirect's target ticks at its entry
		for _, g := range fns[f].calls {
			k, err := untilTick(g)
			if err != nil {
				return 0, err
			}
			n += k
		}
		run[f], done[f] = n, true
		return n, nil
	}
	untilTick = func(f int) (int, error) {
		if fns[f].tick {
			return 0, nil
		}
		n, err := within(f)
		if err == nil && n > longestRun {
			fns[f].tick = true
			return 0, nil
		}
		return n, err
	}
	most := 0
	for f := range fns {
		n, err := within(f)
		if err != nil {
			return 0, err
		}
		most = max(most, n)
	}
	return most, nil
}
