package jsrun

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	_ "unsafe" // for go:linkname

	_ "github.com/fastschema/qjs" // the QuickJS module comes from there
)

// qjsWasm is the QuickJS module github.com/fastschema/qjs v0.0.6 embeds. It
// is taken from the package rather than copied into this repository; the
// hash check in patchQuickJS refuses any other build.
//
//go:linkname qjsWasm github.com/fastschema/qjs.wasmBytes
var qjsWasm []byte

// qjsSHA256 is the SHA-256 of qjs v0.0.6's qjs.wasm, the only build the
// patch below is written for.
const qjsSHA256 = "88fcbeead33cca3ec8394feb0fb3eec8047ec9ac5062aba7a63799cee11989b7"

// The patch (see the package doc):
//
//   - The C stack was 64 KiB, from __data_end (99872) up to 165408, with the
//     heap after it; QuickJS's own stack check is compiled out for WASI, so
//     500-deep JS recursion overran it into static data. The stack top, the
//     heap base and the constants dlmalloc folded from them move up, and the
//     initial memory grows from 3 to 32 pages: the stack becomes 1.9 MiB.
//   - The stack check. Every write of the stack pointer (global 0; 1,021 of
//     them) is followed by a check that calls overflow, which stores
//     reasonStack at reasonAddr and traps, when the pointer is below
//     stackLimit: a recursion of any depth, JS or native (JSON.parse of
//     200,000 nested arrays), stops before it writes below the stack. The
//     functions that never move the pointer use at most 32 bytes under it
//     (the patch checks), well inside the guard of guardSize bytes above
//     __data_end.
//   - The hard stop. A counter (global 1) is decremented at each of the
//     1,726 loop headers and at the entry of every function in the table
//     (which call_indirect reaches), on a cycle of direct calls or
//     exported (which the host calls), and of every one that could run
//     more than longestRun instructions before it meets another tick:
//     1,039 functions of 1,138. Code jumps back only to a loop header and
//     no function is entered twice between ticks, so no code runs long
//     without ticking, native code included (memory.copy and memory.fill
//     aside, bounded by the memory's size); every tickEvery
//     ticks it calls check, which traps (reasonStopped) when the stop word
//     at stopAddr is set, and asks WASI's clock (import 5, clock_time_get)
//     for the time and traps (reasonTimeout) when it is past the deadline at
//     deadlineAddr (nanoseconds since 1970, 64 bits; 0 for none). A call
//     sets the deadline before it runs; its canceller sets the stop word
//     from another goroutine (an aligned 32-bit store the check loads). The
//     clock call is also what lets the Go runtime stop the goroutine for a
//     garbage collection: wazero's compiled code has no other such point,
//     and a collection waiting on a goroutine that never reached one held
//     every other goroutine, signal handling included. QuickJS's interrupt
//     handler, polled by the interpreter alone, is not used: native code
//     (a regular expression, a sort, JSON) never polled it.
//   - The modules qjs:std, qjs:os and qjs:bjson are registered in every
//     context and imported by an init script that puts them, and os's
//     timers, on globalThis; a tool's import("qjs:std") would find them. The
//     init script is replaced by one that imports nothing, and the module
//     names by 40 random characters chosen per process, never shown to
//     JavaScript: nothing can name the modules any more.
//   - QuickJS's memory limit is not enforced in this build: a call kept 60 MB
//     under a 16 MB limit. The memory gets a maximum instead: past it
//     memory.grow fails, malloc returns NULL and QuickJS throws "out of
//     memory".
//
// A trap leaves QuickJS's state half changed: the runtime is never called
// again (runtime.close closes its module without freeing QuickJS).
const (
	oldStackTop = 165408
	newStackTop = 2031616 // 31 pages: a 1.9 MiB stack
	oldHeapEnd  = 196608
	newHeapEnd  = 2097152 // 32 pages
	memoryPages = newHeapEnd / 65536

	// stackLow is __data_end: the bottom of the stack, where an overflow
	// would write first. The stack pointer may not go below stackLimit.
	stackLow   = 99872
	guardSize  = 16 << 10
	stackLimit = stackLow + guardSize

	// The init script: its address, file offset and length (strlen'd).
	initAddr   = 20375
	initOffset = 954817
	initLen    = 334
	// rodata starts at address 1024, file offset 935466.
	rodataBase = 1024 - 935466

	importCount = 24
	funcCount   = 1138
	clockImport = 5

	// The hard stop's two functions, check and overflow, of type voidType
	// (() -> nil), come after the module's own; its counter is the global
	// after the stack pointer. Its words lie below the data, which starts at
	// 1024, where nothing else writes: the clock's answer at scratchAddr,
	// the deadline, the stop word and the reason of a trap.
	voidType      = 30
	checkFunc     = importCount + funcCount
	overflowFunc  = checkFunc + 1
	counterGlobal = 1
	scratchAddr   = 1000
	deadlineAddr  = 1008
	stopAddr      = 1016
	reasonAddr    = 1020

	// tickEvery is how many ticks pass between two checks. A tick costs a
	// few instructions, a check a host call.
	tickEvery = 1000
	// longestRun is how many instructions a function may run before its
	// first tick without one at its entry (probes.longestRun), and
	// maxRunBetweenTicks what the whole build may run between two ticks
	// (instrumentStats.maxRun): tickEvery ticks are then at most 10^8
	// instructions, a tenth of a second, and in practice microseconds.
	longestRun         = 100
	maxRunBetweenTicks = 1 << 16
)

// Why the hard stop trapped, in the word at reasonAddr: 0 for not.
const (
	reasonStack   = 1
	reasonStopped = 2
	reasonTimeout = 3
)

// checkBody is the hard stop's check:
//
//	(func
//	  (global.set $counter (i32.const tickEvery))
//	  (if (i32.load (i32.const stopAddr))
//	    (then (i32.store (i32.const reasonAddr) (i32.const reasonStopped)) unreachable))
//	  (drop (call $clock_time_get (i32.const 0) (i64.const 0) (i32.const scratchAddr)))
//	  (if (i32.and (i64.gt_u (i64.load (i32.const scratchAddr)) (i64.load (i32.const deadlineAddr)))
//	               (i32.eqz (i64.eqz (i64.load (i32.const deadlineAddr)))))
//	    (then (i32.store (i32.const reasonAddr) (i32.const reasonTimeout)) unreachable)))
func checkBody() []byte {
	c := func(v int32) []byte { return append([]byte{opI32Const}, sleb(v)...) }
	b := []byte{0x00} // no locals
	b = append(append(b, c(tickEvery)...), opGlobalSet, counterGlobal)
	b = append(append(b, c(stopAddr)...), 0x28, 0x02, 0x00, opIf, 0x40)
	b = append(append(append(b, c(reasonAddr)...), c(reasonStopped)...), 0x36, 0x02, 0x00, opUnreachable, opEnd)
	b = append(append(b, c(0)...), opI64Const, 0x00)
	b = append(append(b, c(scratchAddr)...), opCall, clockImport, 0x1a)
	b = append(append(b, c(scratchAddr)...), 0x29, 0x03, 0x00)
	b = append(append(b, c(deadlineAddr)...), 0x29, 0x03, 0x00, 0x56)
	b = append(append(b, c(deadlineAddr)...), 0x29, 0x03, 0x00, 0x50, 0x45, 0x71, opIf, 0x40)
	b = append(append(append(b, c(reasonAddr)...), c(reasonTimeout)...), 0x36, 0x02, 0x00, opUnreachable, opEnd)
	return append(b, opEnd)
}

// overflowBody stops a call whose stack went past its limit:
//
//	(func (i32.store (i32.const reasonAddr) (i32.const reasonStack)) unreachable)
func overflowBody() []byte {
	b := append([]byte{0x00, opI32Const}, sleb(reasonAddr)...)
	b = append(append(b, opI32Const), sleb(reasonStack)...)
	return append(b, 0x36, 0x02, 0x00, opUnreachable, opEnd)
}

// hardStopProbes: the tick counts down and calls check at zero,
//
//	(global.set $counter (i32.add (global.get $counter) (i32.const -1)))
//	(if (i32.eqz (global.get $counter)) (then (call $check)))
//
// and after a write of the stack pointer
//
//	(if (i32.lt_u (global.get $sp) (i32.const stackLimit)) (then (call $overflow)))
func hardStopProbes() probes {
	tick := []byte{opGlobalGet, counterGlobal, opI32Const, 0x7f, 0x6a, opGlobalSet, counterGlobal,
		opGlobalGet, counterGlobal, 0x45, opIf, 0x40, opCall}
	tick = append(append(tick, uleb(checkFunc)...), opEnd)
	stack := append([]byte{opGlobalGet, 0, opI32Const}, sleb(stackLimit)...)
	stack = append(append(append(stack, 0x49, opIf, 0x40, opCall), uleb(overflowFunc)...), opEnd)
	return probes{tick: tick, afterStackSet: stack, stackGlobal: 0, longestRun: longestRun}
}

// constPatch replaces the operand of an i32.const at a file offset of the
// original module.
type constPatch struct {
	offset   int
	old, new int32
}

// stackPatches move the stack top and heap base and the values dlmalloc
// derived from them: base, base+8 (the first chunk), end-base (the initial
// heap), end-base-64 (the top chunk) with its in-use bit, end-52 (its foot).
var stackPatches = []constPatch{
	{15737, oldStackTop, newStackTop},
	{15748, oldStackTop, newStackTop},
	{15909, oldStackTop + 8, newStackTop + 8},
	{15954, oldStackTop + 8, newStackTop + 8},
	{15777, oldHeapEnd - oldStackTop, newHeapEnd - newStackTop},
	{15918, oldHeapEnd - oldStackTop - 63, newHeapEnd - newStackTop - 63},
	{15943, oldHeapEnd - oldStackTop - 64, newHeapEnd - newStackTop - 64},
	{15961, oldHeapEnd - 52, newHeapEnd - 52},
}

// moduleRefs are the two references to each module name's literal.
var moduleRefs = []struct {
	name    string
	addr    int32
	offsets [2]int
}{
	{"qjs:std", 14368, [2]int{892471, 892475}},
	{"qjs:os", 5423, [2]int{895001, 895004}},
	{"qjs:bjson", 8860, [2]int{900127, 900131}},
}

// newInit is the replacement init script: a module that does nothing.
const newInit = "void 0;"

var errWrongQuickJS = errors.New("jsrun: the QuickJS module is not qjs v0.0.6's; the sandbox patch is written for that build only")

// patchQuickJS returns the patched module, whose memory may not grow past
// maxBytes beyond the stack (rounded up to 64 KiB pages). Without hardStop
// the module has no stack check and no way to stop (BenchmarkHardStop
// measures what they cost).
func patchQuickJS(orig []byte, maxBytes int, names [3]string, hardStop bool) ([]byte, error) {
	sum := sha256.Sum256(orig)
	if hex.EncodeToString(sum[:]) != qjsSHA256 {
		return nil, errWrongQuickJS
	}
	secs, err := sections(orig)
	if err != nil {
		return nil, err
	}

	// Module names and the init script, in the init script's bytes.
	region := make([]byte, initLen)
	copy(region, newInit)
	patches := append([]constPatch(nil), stackPatches...)
	at := len(newInit) + 1
	for i, m := range moduleRefs {
		name := names[i]
		if !validName(name) {
			return nil, fmt.Errorf("jsrun: module name %q is not %d letters and digits", name, nameLen)
		}
		copy(region[at:], name)
		for _, off := range m.offsets {
			patches = append(patches, constPatch{off, m.addr, int32(initAddr + at)})
		}
		at += len(name) + 1
	}

	var out bytes.Buffer
	out.Write(orig[:8])
	for _, s := range secs {
		content := s.content
		switch s.id {
		case 0: // custom: DWARF whose code offsets the patch invalidates
			continue
		case 5: // memory: one memory, no maximum, 3 pages
			if !bytes.Equal(content, []byte{1, 0, 3}) {
				return nil, fmt.Errorf("%w: memory section", errWrongQuickJS)
			}
			maxPages := uint32(memoryPages + (maxBytes+65535)/65536)
			content = append([]byte{1, 1, memoryPages}, uleb(min(maxPages, 65536))...)
		case 1: // types: check and overflow take and give nothing
			if !hasVoidType(content) {
				return nil, fmt.Errorf("%w: type section", errWrongQuickJS)
			}
		case 2: // imports: clock_time_get is the check's clock
			if !bytes.Contains(content, []byte("\x16wasi_snapshot_preview1\x0eclock_time_get\x00\x14")) {
				return nil, fmt.Errorf("%w: import section", errWrongQuickJS)
			}
		case 3: // functions: check and overflow
			n, w, err := readUleb(content, 0)
			if err != nil || n != funcCount {
				return nil, fmt.Errorf("%w: function section", errWrongQuickJS)
			}
			if hardStop {
				content = append(append(uleb(n+2), content[w:]...), voidType, voidType)
			}
		case 6: // globals: the first is __stack_pointer; the counter follows
			want := append([]byte{1, 0x7f, 1, 0x41}, append(sleb(oldStackTop), 0x0b)...)
			if !bytes.Equal(content, want) {
				return nil, fmt.Errorf("%w: global section", errWrongQuickJS)
			}
			content = append([]byte{1, 0x7f, 1, 0x41}, append(sleb(newStackTop), 0x0b)...)
			if hardStop {
				content[0] = 2
				content = append(append(append(content, 0x7f, 1, 0x41), sleb(tickEvery)...), 0x0b)
			}
		case 10:
			if content, err = patchCode(orig, s, patches); err != nil {
				return nil, err
			}
			if !hardStop {
				break
			}
			mf, err := readModuleFuncs(secs)
			if err != nil {
				return nil, err
			}
			code, st, err := instrumentCode(content, mf, hardStopProbes())
			if err != nil {
				return nil, err
			}
			if st.functions != funcCount || st.leafFrame > guardSize/2 || st.maxRun > maxRunBetweenTicks {
				return nil, fmt.Errorf("%w: code section (%d functions, %d bytes under the stack pointer, %d instructions between ticks)",
					errWrongQuickJS, st.functions, st.leafFrame, st.maxRun)
			}
			content = append(uleb(funcCount+2), code[len(uleb(funcCount)):]...)
			for _, body := range [][]byte{checkBody(), overflowBody()} {
				content = append(append(content, uleb(uint32(len(body)))...), body...)
			}
		case 11:
			content = append([]byte(nil), content...)
			rel := initOffset - s.start
			if orig[initOffset+initLen] != 0 || !bytes.HasPrefix(orig[initOffset:], []byte("import * as bjson from 'qjs:bjson';")) {
				return nil, fmt.Errorf("%w: init script", errWrongQuickJS)
			}
			copy(content[rel:rel+initLen], region)
		}
		out.WriteByte(s.id)
		out.Write(uleb(uint32(len(content))))
		out.Write(content)
	}
	return out.Bytes(), nil
}

// readModuleFuncs reads the function, export and element sections.
func readModuleFuncs(secs []section) (moduleFuncs, error) {
	mf := moduleFuncs{imports: importCount}
	bad := func(what string) (moduleFuncs, error) {
		return moduleFuncs{}, fmt.Errorf("%w: %s section", errWrongQuickJS, what)
	}
	indices := func(b []byte, p int) ([]uint32, error) {
		n, w, err := readUleb(b, p)
		if err != nil {
			return nil, err
		}
		p += w
		out := make([]uint32, n)
		for i := range out {
			if out[i], w, err = readUleb(b, p); err != nil {
				return nil, err
			}
			p += w
		}
		return out, nil
	}
	for _, s := range secs {
		var err error
		switch s.id {
		case 3:
			mf.types, err = indices(s.content, 0)
		case 7: // exports: a name, a kind (0 for a function), an index
			n, p, err := readUleb(s.content, 0)
			if err != nil {
				return bad("export")
			}
			for range n {
				k, w, err := readUleb(s.content, p)
				if err != nil || p+w+int(k)+1 >= len(s.content) {
					return bad("export")
				}
				p += w + int(k)
				kind := s.content[p]
				idx, w, err := readUleb(s.content, p+1)
				if err != nil {
					return bad("export")
				}
				p += 1 + w
				if kind == 0 {
					mf.exports = append(mf.exports, idx)
				}
			}
		case 9: // elements: one active segment of functions at offset 1
			head := []byte{1, 0, 0x41, 1, 0x0b}
			if !bytes.HasPrefix(s.content, head) {
				return bad("element")
			}
			mf.table, err = indices(s.content, len(head))
		}
		if err != nil {
			return bad(fmt.Sprintf("section %d", s.id))
		}
	}
	if len(mf.types) != funcCount || len(mf.table) == 0 || len(mf.exports) == 0 {
		return bad("function")
	}
	return mf, nil
}

// hasVoidType reports whether the type section's type voidType is () -> nil.
func hasVoidType(content []byte) bool {
	n, p, err := readUleb(content, 0)
	if err != nil || n <= voidType {
		return false
	}
	for i := 0; ; i++ {
		// 0x60, the parameters, the results: one byte a value type.
		if p >= len(content) || content[p] != 0x60 {
			return false
		}
		if i == voidType {
			return bytes.HasPrefix(content[p:], []byte{0x60, 0, 0})
		}
		p++
		for range 2 {
			k, w, err := readUleb(content, p)
			if err != nil {
				return false
			}
			p += w + int(k)
		}
	}
}

type section struct {
	id      byte
	start   int // file offset of the content
	content []byte
}

func sections(b []byte) ([]section, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, fmt.Errorf("%w: not a wasm module", errWrongQuickJS)
	}
	var out []section
	for i := 8; i < len(b); {
		id := b[i]
		size, n, err := readUleb(b, i+1)
		if err != nil {
			return nil, err
		}
		start := i + 1 + n
		end := start + int(size)
		if end > len(b) {
			return nil, fmt.Errorf("%w: section %d overruns the module", errWrongQuickJS, id)
		}
		out = append(out, section{id: id, start: start, content: b[start:end]})
		i = end
	}
	return out, nil
}

// patchCode rewrites the code section, replacing the operands of the
// i32.consts the patches name; a function body that changes length gets its
// new size (wasm instructions hold no code offsets).
func patchCode(orig []byte, s section, patches []constPatch) ([]byte, error) {
	patches = slices.Clone(patches)
	slices.SortFunc(patches, func(a, b constPatch) int { return cmp.Compare(a.offset, b.offset) })
	count, n, err := readUleb(s.content, 0)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), uleb(count)...)
	pos := n
	applied := 0
	for range count {
		size, n, err := readUleb(s.content, pos)
		if err != nil {
			return nil, err
		}
		bodyStart := s.start + pos + n // file offset
		body := s.content[pos+n : pos+n+int(size)]
		var nb []byte
		last := 0
		for _, p := range patches {
			if p.offset < bodyStart || p.offset >= bodyStart+len(body) {
				continue
			}
			rel := p.offset - bodyStart
			want := append([]byte{0x41}, sleb(p.old)...)
			if !bytes.HasPrefix(orig[p.offset:], want) {
				return nil, fmt.Errorf("%w: code at %d is not i32.const %d", errWrongQuickJS, p.offset, p.old)
			}
			if rel < last {
				return nil, fmt.Errorf("jsrun: patches out of order at %d", p.offset)
			}
			nb = append(nb, body[last:rel]...)
			nb = append(nb, 0x41)
			nb = append(nb, sleb(p.new)...)
			last = rel + len(want)
			applied++
		}
		if nb == nil {
			nb = body
		} else {
			nb = append(nb, body[last:]...)
		}
		out = append(out, uleb(uint32(len(nb)))...)
		out = append(out, nb...)
		pos += n + int(size)
	}
	if applied != len(patches) {
		return nil, fmt.Errorf("%w: applied %d of %d code patches", errWrongQuickJS, applied, len(patches))
	}
	return out, nil
}

// nameLen is the length of the private module names.
const nameLen = 40

// moduleNames returns the private names of the std, os and bjson modules:
// random for this process, or, with a cache folder, read from the folder's
// quickjs-names file, made once with random names, so every process
// builds the same module and the compiled code can be reused. The file is
// the user's alone; JS tools cannot reach the folder.
func moduleNames(cacheDir string) ([3]string, error) {
	var names [3]string
	if cacheDir != "" {
		path := filepath.Join(cacheDir, "quickjs-names")
		if data, err := os.ReadFile(path); err == nil {
			if f := strings.Fields(string(data)); len(f) == 3 && validName(f[0]) && validName(f[1]) && validName(f[2]) {
				copy(names[:], f)
				return names, nil
			}
		}
		defer func() {
			// Keep them for the next process; if that fails, this process
			// still works, without the cache's saving.
			if err := os.MkdirAll(cacheDir, 0o700); err != nil {
				return
			}
			tmp, err := os.CreateTemp(cacheDir, "quickjs-names-*")
			if err != nil {
				return
			}
			_, werr := tmp.WriteString(strings.Join(names[:], "\n") + "\n")
			if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
				os.Remove(tmp.Name())
			}
		}()
	}
	for i := range names {
		name, err := randomName(nameLen)
		if err != nil {
			return names, err
		}
		names[i] = name
	}
	return names, nil
}

func validName(s string) bool {
	if len(s) != nameLen {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// randomName returns n characters drawn uniformly from [A-Za-z0-9].
func randomName(n int) (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	out := make([]byte, 0, n)
	buf := make([]byte, 2*n)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		for _, c := range buf {
			if int(c) < 256-256%len(alphabet) && len(out) < n {
				out = append(out, alphabet[int(c)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

func readUleb(b []byte, i int) (uint32, int, error) {
	var r uint32
	for n, shift := 0, 0; n < 5; n, shift = n+1, shift+7 {
		if i+n >= len(b) {
			return 0, 0, fmt.Errorf("%w: truncated LEB128", errWrongQuickJS)
		}
		c := b[i+n]
		r |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return r, n + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: LEB128 too long", errWrongQuickJS)
}

func uleb(v uint32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

func sleb(v int32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}
