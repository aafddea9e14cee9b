package module

import (
	"bytes"
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/toolroute/toolroute/wasm"
)

// TestMergeDataSegments: the committed module's data is merged (`make
// wasm`); split again as Go's linker writes it, at every run of more than
// 8 zeros, it merges back into the committed binary byte for byte, and an
// instance of either starts with the same memory.
func TestMergeDataSegments(t *testing.T) {
	if _, ok := MergeDataSegments(wasm.Binary); ok {
		t.Fatal("the committed module's data segments are not merged: run make wasm")
	}
	segs, ok := readDataSegments(wasm.Binary)
	if !ok {
		t.Fatal("the committed module's data section cannot be read")
	}
	var split []dataSegment
	for _, s := range segs {
		split = append(split, splitAtZeros(s, 8)...)
	}
	if len(split) < 1000 {
		t.Fatalf("the module's data split into %d segments only", len(split))
	}
	linked := withDataSegments(wasm.Binary, split)
	merged, ok := MergeDataSegments(linked)
	if !ok || !bytes.Equal(merged, wasm.Binary) {
		t.Fatalf("merging %d segments gave a binary of %d bytes (%v), not the committed %d", len(split), len(merged), ok, len(wasm.Binary))
	}
	if !bytes.Equal(startMemory(t, linked), startMemory(t, wasm.Binary)) {
		t.Error("an instance of the merged binary starts with other memory than one of the binary as linked")
	}
}

// TestMergeDataSegmentsKeepsLongGaps: segments further apart than mergeGap
// stay apart, segments out of order are sorted, a data count section
// follows the count, and data that cannot be merged safely is left as it
// is.
func TestMergeDataSegmentsKeepsLongGaps(t *testing.T) {
	segs := []dataSegment{
		{offset: 3 * 65536, init: []byte("far")},
		{offset: 16, init: []byte("ab")},
		{offset: 16 + 2 + mergeGap - 1, init: []byte("c")},
	}
	for _, count := range []bool{false, true} {
		bin := dataModule(segs, count)
		merged, ok := MergeDataSegments(bin)
		if !ok {
			t.Fatalf("data count section %v: not merged", count)
		}
		got, _ := readDataSegments(merged)
		if len(got) != 2 || got[0].offset != 16 || len(got[0].init) != 2+mergeGap-1+1 || got[1].offset != 3*65536 {
			t.Errorf("data count section %v: merged into %+v", count, got)
		}
		if !bytes.Equal(startMemory(t, merged), startMemory(t, bin)) {
			t.Errorf("data count section %v: the merged module starts with other memory", count)
		}
		if again, ok := MergeDataSegments(merged); ok || !bytes.Equal(again, merged) {
			t.Errorf("data count section %v: merged twice", count)
		}
	}
	overlapping := dataModule([]dataSegment{{offset: 10, init: []byte("abcd")}, {offset: 12, init: []byte("x")}}, false)
	if got, ok := MergeDataSegments(overlapping); ok || !bytes.Equal(got, overlapping) {
		t.Error("overlapping segments were merged")
	}
	for _, bad := range [][]byte{nil, []byte("not wasm"), []byte("\x00asm\x01\x00\x00\x00")} {
		if got, ok := MergeDataSegments(bad); ok || !bytes.Equal(got, bad) {
			t.Errorf("%q: changed (%v)", bad, ok)
		}
	}
	for cut := 8; cut < len(wasm.Binary); cut += 4099 {
		MergeDataSegments(wasm.Binary[:cut])
	}
}

// FuzzMergeDataSegments: no input makes MergeDataSegments panic, and what
// it merges reads back as data.
func FuzzMergeDataSegments(f *testing.F) {
	f.Add(dataModule([]dataSegment{{offset: 1, init: []byte("a")}, {offset: 4, init: []byte("b")}}, true))
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if out, ok := MergeDataSegments(b); ok {
			if _, ok := readDataSegments(out); !ok {
				t.Fatal("a merged binary does not read back")
			}
		}
	})
}

// splitAtZeros splits s wherever more than gap zeros run, leaving them out,
// as Go's linker does.
func splitAtZeros(s dataSegment, gap int) []dataSegment {
	var out []dataSegment
	start, zeros := -1, 0
	for i, b := range s.init {
		if b != 0 {
			if start < 0 {
				start = i
			} else if zeros > gap {
				out = append(out, dataSegment{offset: s.offset + uint32(start), init: s.init[start : i-zeros]})
				start = i
			}
			zeros = 0
			continue
		}
		zeros++
	}
	if start >= 0 {
		out = append(out, dataSegment{offset: s.offset + uint32(start), init: s.init[start : len(s.init)-zeros]})
	}
	return out
}

// dataModule is a module with a memory of 4 pages and segs as its data,
// with a data count section when count is set.
func dataModule(segs []dataSegment, count bool) []byte {
	bin := []byte("\x00asm\x01\x00\x00\x00")
	bin = append(bin, 5, 3, 1, 0, 4) // memory: one, no maximum, 4 pages
	if count {
		bin = append(bin, 12, 1, 0) // a count of 0: withDataSegments writes it
	}
	bin = append(bin, 11, 1, 0) // no segments yet
	return withDataSegments(bin, segs)
}

// startMemory is the memory a new instance of bin starts with, before any
// start function.
func startMemory(t *testing.T, bin []byte) []byte {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	mod, err := rt.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	mem, ok := mod.Memory().Read(0, mod.Memory().Size())
	if !ok {
		t.Fatal("memory cannot be read")
	}
	return bytes.Clone(mem)
}
