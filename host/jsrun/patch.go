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

// The patch (see RATIONALE in the package doc):
//
//   - The C stack was 64 KiB, from __data_end (99872) up to 165408, with the
//     heap after it; QuickJS's own stack check is compiled out for WASI, so
//     500-deep JS recursion overran it into static data. The stack top, the
//     heap base and the constants dlmalloc folded from them move up, and the
//     initial memory grows from 3 to 15 pages: the stack becomes 800 KiB.
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
//   - Timeouts. wazero's close-on-context-done made CPU-bound JS 4.8 times
//     slower (BenchmarkTimeoutMechanism). QuickJS already polls an interrupt
//     handler, rt->interrupt_handler, at offset 152 of JSRuntime (read off
//     __js_poll_interrupts, the function that throws "interrupted"). The
//     patch adds one function, put in the table at handlerSlot: it answers
//     yes when the word at stopAddr is set (the call was canceled), else
//     asks WASI's clock (import 5, clock_time_get) for the time and answers
//     whether it is past the deadline stored at deadlineAddr, which a call
//     sets before it runs. A runtime points its handler at it once made.
//   - QuickJS polled every 10,000 function calls and backward jumps: a loop
//     whose body is one long native call (JSON.stringify of 200,000
//     objects, half a second) then ran minutes past its timeout. The patch
//     polls at every one (pollEvery), and the handler reads the clock at
//     every poll: reading it only every few polls was cheaper, but the clock
//     call is also the only point where the Go runtime can stop the
//     goroutine for a garbage collection (wazero's compiled code has no
//     other), and a collection waiting on a few such long polls held every
//     goroutine, the watcher of cancellations among them, for minutes. The
//     cost is about 3x on a loop of trivial operations, and little on code
//     that does real work per operation (BenchmarkTimeoutMechanism).
//
// stopAddr is the one word of a running module written from another
// goroutine (cancellation): an aligned 32-bit store the handler loads.
const (
	oldStackTop = 165408
	newStackTop = 2031616 // 31 pages: a 1.9 MiB stack
	oldHeapEnd  = 196608
	newHeapEnd  = 2097152 // 32 pages
	memoryPages = newHeapEnd / 65536

	// stackLow is __data_end: the bottom of the stack, where an overflow
	// writes first. guardSize bytes from there are the guard.
	stackLow  = 99872
	guardSize = 16 << 10

	// The init script: its address, file offset and length (strlen'd).
	initAddr   = 20375
	initOffset = 954817
	initLen    = 334
	// rodata starts at address 1024, file offset 935466.
	rodataBase = 1024 - 935466

	// The interrupt handler: a new function of type 3, (i32, i32) -> i32, in
	// table slot handlerSlot; JSRuntime's interrupt_handler field is at
	// rtHandlerOffset. It reads the stop word at stopAddr, then the clock
	// into scratchAddr, and compares it with the deadline (nanoseconds since
	// 1970, 64 bits) at deadlineAddr: words below the data, at 1024, that
	// nothing else uses.
	handlerType     = 3
	handlerSlot     = 542
	rtHandlerOffset = 152
	clockImport     = 5
	scratchAddr     = 1000
	deadlineAddr    = 1008
	stopAddr        = 1016
	importCount     = 24
	funcCount       = 1138

	// pollEvery is how many operations pass between two polls of the
	// handler: JS_INTERRUPT_COUNTER_INIT, reset in __js_poll_interrupts at
	// pollCounterOffset.
	pollEvery         = 1
	pollCounterOffset = 279972
)

// pollInterrupts is the body of __js_poll_interrupts from the load of
// rt->interrupt_handler to its call: offsets 152 and 156 (the opaque) and
// call_indirect of type 3.
var pollInterrupts = []byte{0x28, 0x02, 0x98, 0x01, 0x22, 0x02, 0x45, 0x0d, 0x00, 0x20, 0x01, 0x20, 0x01, 0x28, 0x02, 0x9c, 0x01, 0x20, 0x02, 0x11, 0x03, 0x00}

const pollInterruptsOffset = 279961 // its body's file offset

// handlerBody is the interrupt handler:
//
//	(func (param i32 i32) (result i32)
//	  (if (i32.load (i32.const stopAddr)) (then (return (i32.const 1))))
//	  (drop (call $clock_time_get (i32.const 0) (i64.const 0) (i32.const scratchAddr)))
//	  (i64.gt_u (i64.load (i32.const scratchAddr)) (i64.load (i32.const deadlineAddr))))
func handlerBody() []byte {
	b := []byte{0x00, 0x41}
	b = append(b, sleb(stopAddr)...)
	b = append(b, 0x28, 0x02, 0x00, 0x04, 0x40, 0x41, 0x01, 0x0f, 0x0b)
	b = append(b, 0x41, 0x00, 0x42, 0x00, 0x41)
	b = append(b, sleb(scratchAddr)...)
	b = append(b, 0x10, clockImport, 0x1a, 0x41)
	b = append(b, sleb(scratchAddr)...)
	b = append(b, 0x29, 0x03, 0x00, 0x41)
	b = append(b, sleb(deadlineAddr)...)
	return append(b, 0x29, 0x03, 0x00, 0x56, 0x0b)
}

// constPatch replaces the operand of an i32.const at a file offset of the
// original module.
type constPatch struct {
	offset   int
	old, new int32
}

// stackPatches move the stack top and heap base and the values dlmalloc
// derived from them: base, base+8 (the first chunk), end-base (the initial
// heap), end-base-64 (the top chunk) with its in-use bit, end-52 (its foot);
// the last sets how often the interrupt handler is polled.
var stackPatches = []constPatch{
	{15737, oldStackTop, newStackTop},
	{15748, oldStackTop, newStackTop},
	{15909, oldStackTop + 8, newStackTop + 8},
	{15954, oldStackTop + 8, newStackTop + 8},
	{15777, oldHeapEnd - oldStackTop, newHeapEnd - newStackTop},
	{15918, oldHeapEnd - oldStackTop - 63, newHeapEnd - newStackTop - 63},
	{15943, oldHeapEnd - oldStackTop - 64, newHeapEnd - newStackTop - 64},
	{15961, oldHeapEnd - 52, newHeapEnd - 52},
	{pollCounterOffset, 10000, pollEvery},
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
// maxBytes beyond the stack (rounded up to 64 KiB pages).
func patchQuickJS(orig []byte, maxBytes int, names [3]string) ([]byte, error) {
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
		case 2: // imports: clock_time_get is the handler's clock
			if !bytes.Contains(content, []byte("\x16wasi_snapshot_preview1\x0eclock_time_get\x00\x14")) {
				return nil, fmt.Errorf("%w: import section", errWrongQuickJS)
			}
		case 3: // functions: one more, of the handler's type
			n, w, err := readUleb(content, 0)
			if err != nil || n != funcCount {
				return nil, fmt.Errorf("%w: function section", errWrongQuickJS)
			}
			content = append(append(uleb(n+1), content[w:]...), handlerType)
		case 4: // table: one slot more, for the handler
			if !bytes.Equal(content, append([]byte{1, 0x70, 1}, append(uleb(handlerSlot), uleb(handlerSlot)...)...)) {
				return nil, fmt.Errorf("%w: table section", errWrongQuickJS)
			}
			content = append([]byte{1, 0x70, 1}, append(uleb(handlerSlot+1), uleb(handlerSlot+1)...)...)
		case 9: // elements: slots 1..541 from offset 1, and now the handler
			head := []byte{1, 0, 0x41, 1, 0x0b}
			if !bytes.HasPrefix(content, head) {
				return nil, fmt.Errorf("%w: element section", errWrongQuickJS)
			}
			n, w, err := readUleb(content, len(head))
			if err != nil || n != handlerSlot-1 {
				return nil, fmt.Errorf("%w: element section", errWrongQuickJS)
			}
			rest := content[len(head)+w:]
			content = append(append(append(append([]byte(nil), head...), uleb(n+1)...), rest...), uleb(importCount+funcCount)...)
		case 6: // globals: the first is __stack_pointer
			want := append([]byte{1, 0x7f, 1, 0x41}, append(sleb(oldStackTop), 0x0b)...)
			if !bytes.Equal(content, want) {
				return nil, fmt.Errorf("%w: global section", errWrongQuickJS)
			}
			content = append([]byte{1, 0x7f, 1, 0x41}, append(sleb(newStackTop), 0x0b)...)
		case 10:
			if !bytes.Contains(orig[pollInterruptsOffset:pollInterruptsOffset+119], pollInterrupts) {
				return nil, fmt.Errorf("%w: __js_poll_interrupts", errWrongQuickJS)
			}
			if content, err = patchCode(orig, s, patches); err != nil {
				return nil, err
			}
			n, w, err := readUleb(content, 0)
			if err != nil || n != funcCount {
				return nil, fmt.Errorf("%w: code section", errWrongQuickJS)
			}
			body := handlerBody()
			content = append(append(uleb(n+1), content[w:]...), append(uleb(uint32(len(body))), body...)...)
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
