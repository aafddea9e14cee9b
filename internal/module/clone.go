package module

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// An instance's whole state is its linear memory and its mutable globals:
// Go's wasm keeps its stack pointer and scheduler registers in globals, its
// heap and goroutines in memory, and the module has no tables it changes.
// So an idle instance can be copied into a new instance that ran no start
// function by writing its memory and setting its globals, which costs a
// copy of the memory instead of a catalogue's decoding and checking. The
// globals must be exported for that: `make wasm` exports them in the
// committed module (ExportGlobals, run by ./internal/module/exportglobals),
// and the host exports them in its copy of any other binary before
// compiling it, which changes nothing the module does. They are not part
// of the ABI: other hosts ignore them.

// globalExport names the export for the module's global i, which `make
// wasm` or the host adds.
func globalExport(i int) string { return globalExportPrefix + strconv.Itoa(i) }

const globalExportPrefix = "toolroute.host.global."

// snapshot is an idle instance's state.
type snapshot struct {
	memory  []byte
	globals []uint64
}

// snapshot copies the instance's state. Call it between calls only.
func (i *Instance) snapshot() (*snapshot, error) {
	if i.broken != nil {
		return nil, i.broken
	}
	mem := i.mod.Memory()
	view, ok := mem.Read(0, mem.Size())
	if !ok {
		return nil, errors.New("module: the instance's memory cannot be read")
	}
	s := &snapshot{memory: append([]byte(nil), view...)}
	for n := 0; ; n++ {
		g := i.mod.ExportedGlobal(globalExport(n))
		if g == nil {
			break
		}
		s.globals = append(s.globals, g.Get())
	}
	return s, nil
}

// restore makes a new instance whose state is s: the module's start
// function does not run, since the state is that of an instance that ran
// it already.
func (r *Runtime) restore(ctx context.Context, s *snapshot) (*Instance, error) {
	if !r.clonable {
		return nil, errors.New("module: this binary's globals could not be exported, so its instances cannot be copied")
	}
	inst, err := r.instantiate(ctx) // no start function
	if err != nil {
		return nil, err
	}
	mod := inst.mod
	fail := func(err error) (*Instance, error) {
		inst.Close(ctx)
		return nil, err
	}
	mem := mod.Memory()
	if want := uint32(len(s.memory) / 65536); mem.Size()/65536 < want {
		if _, ok := mem.Grow(want - mem.Size()/65536); !ok {
			return fail(fmt.Errorf("module: a copy of an instance needs %d bytes of memory, over the limit", len(s.memory)))
		}
	}
	if !mem.Write(0, s.memory) {
		return fail(errors.New("module: the copy's memory cannot be written"))
	}
	for n, v := range s.globals {
		g, ok := mod.ExportedGlobal(globalExport(n)).(api.MutableGlobal)
		if !ok {
			return fail(fmt.Errorf("module: the copy's global %d cannot be set", n))
		}
		g.Set(v)
	}
	return inst, nil
}

// ExportGlobals returns a copy of a wasm binary that also exports each of
// the globals it defines as globalExport(n), n counting from 0; the
// binary itself when it exports them already (the committed module, which
// spares the host a copy of it); or the binary unchanged and false when it
// cannot be read so.
func ExportGlobals(bin []byte) ([]byte, bool) {
	const header = 8
	if len(bin) < header || string(bin[:4]) != "\x00asm" {
		return bin, false
	}
	type section struct {
		id         byte
		start, end int // the section's body
		head       int // where the section's id is
	}
	var sections []section
	for at := header; at < len(bin); {
		id := bin[at]
		size, n := uleb(bin[at+1:])
		if n == 0 || at+1+n+int(size) > len(bin) {
			return bin, false
		}
		start := at + 1 + n
		sections = append(sections, section{id: id, start: start, end: start + int(size), head: at})
		at = start + int(size)
	}
	imported, defined := 0, 0
	exportAt := -1
	for i, s := range sections {
		body := bin[s.start:s.end]
		switch s.id {
		case 2: // imports: count the imported globals, which come first
			var ok bool
			if imported, ok = importedGlobals(body); !ok {
				return bin, false
			}
		case 6: // globals
			count, n := uleb(body)
			if n == 0 {
				return bin, false
			}
			defined = int(count)
		case 7:
			exportAt = i
		}
	}
	if defined == 0 || exportAt < 0 {
		return bin, false
	}
	s := sections[exportAt]
	count, n := uleb(bin[s.start:s.end])
	if n == 0 {
		return bin, false
	}
	switch exportedGlobals(bin[s.start:s.end], imported, defined) {
	case allExported:
		return bin, true
	case unreadable:
		return bin, false
	}
	body := appendUleb(nil, count+uint64(defined))
	body = append(body, bin[s.start+n:s.end]...)
	for g := 0; g < defined; g++ {
		name := globalExport(g)
		body = appendUleb(body, uint64(len(name)))
		body = append(body, name...)
		body = append(body, 3) // a global
		body = appendUleb(body, uint64(imported+g))
	}
	out := make([]byte, 0, len(bin)+len(body)-(s.end-s.start)+8)
	out = append(out, bin[:s.head]...)
	out = append(out, 7)
	out = appendUleb(out, uint64(len(body)))
	out = append(out, body...)
	out = append(out, bin[s.end:]...)
	return out, true
}

// What an export section exports of globalExport's names.
const (
	noneExported = iota
	allExported
	unreadable // or only some of them
)

// exportedGlobals reads an export section for the names ExportGlobals
// gives: all of them, each naming its global, or none.
func exportedGlobals(body []byte, imported, defined int) int {
	count, at := uleb(body)
	if at == 0 {
		return unreadable
	}
	found := 0
	for range count {
		l, n := uleb(body[at:])
		if n == 0 || at+n+int(l) >= len(body) {
			return unreadable
		}
		name := string(body[at+n : at+n+int(l)])
		at += n + int(l)
		kind := body[at]
		at++
		index, n := uleb(body[at:])
		if n == 0 {
			return unreadable
		}
		at += n
		digits, ok := strings.CutPrefix(name, globalExportPrefix)
		if !ok {
			continue
		}
		g, err := strconv.Atoi(digits)
		if err != nil || g < 0 || g >= defined || kind != 3 || index != uint64(imported+g) {
			return unreadable
		}
		found++
	}
	switch found {
	case 0:
		return noneExported
	case defined:
		return allExported
	}
	return unreadable
}

// importedGlobals counts the globals an import section imports.
func importedGlobals(body []byte) (int, bool) {
	count, at := uleb(body)
	if at == 0 {
		return 0, false
	}
	globals := 0
	skipName := func() bool {
		if at > len(body) {
			return false
		}
		l, n := uleb(body[at:])
		if n == 0 || at+n+int(l) > len(body) {
			return false
		}
		at += n + int(l)
		return true
	}
	for range count {
		if !skipName() || !skipName() || at >= len(body) {
			return 0, false
		}
		kind := body[at]
		at++
		switch kind {
		case 0: // a function: its type index
			if at > len(body) {
				return 0, false
			}
			_, n := uleb(body[at:])
			if n == 0 {
				return 0, false
			}
			at += n
		case 1: // a table: its element type and limits
			if at >= len(body) {
				return 0, false
			}
			at++
			if !skipLimits(body, &at) {
				return 0, false
			}
		case 2: // a memory: its limits
			if !skipLimits(body, &at) {
				return 0, false
			}
		case 3: // a global: its type and mutability
			at += 2
			globals++
		default:
			return 0, false
		}
	}
	return globals, at <= len(body)
}

func skipLimits(body []byte, at *int) bool {
	if *at >= len(body) {
		return false
	}
	flags := body[*at]
	*at++
	for range 1 + int(flags&1) {
		if *at > len(body) {
			return false
		}
		_, n := uleb(body[*at:])
		if n == 0 {
			return false
		}
		*at += n
	}
	return true
}

// uleb reads an unsigned LEB128 number of at most 32 bits (every count,
// size and index of a wasm binary is one) and how many bytes it took; 0
// bytes when it is not one. Within 5 bytes it stays far from overflowing
// an int.
func uleb(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 5; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

func appendUleb(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
