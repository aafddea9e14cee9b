package module

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/toolroute/toolroute/internal/transcript"
	"github.com/toolroute/toolroute/wasm"
)

// TestCloneReplaysTranscripts copies an instance that has replayed every
// transcript once and replays them all again on the copy: its actions
// must be the golden ones, and the original must go on giving them too.
func TestCloneReplaysTranscripts(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/transcripts/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	var files []*transcript.File
	for _, p := range paths {
		f, err := transcript.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	ctx := context.Background()
	orig := instance(t)
	replayAll := func(t *testing.T, inst *Instance) {
		d := &wasmDriver{inst: inst}
		for i, f := range files {
			got, err := f.Replay(d)
			if err != nil {
				t.Fatalf("%s: %v", paths[i], err)
			}
			if diff := cmp.Diff(string(f.Actions), string(got)); diff != "" {
				t.Fatalf("%s: actions differ from the golden ones (-want +got):\n%s", paths[i], diff)
			}
		}
	}
	replayAll(t, orig)
	snap, err := orig.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	cp, err := runtime(t).restore(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close(ctx)
	for range 3 {
		replayAll(t, cp)
		replayAll(t, orig)
	}
}

// TestExportGlobals: the module's binary exports each of its globals
// (`make wasm` adds them) or gains an export for each, and nothing else
// changes; a binary that does not read as wasm, whole or cut anywhere, is
// left as it is, without a panic.
func TestExportGlobals(t *testing.T) {
	out, ok := ExportGlobals(wasm.Binary)
	if !ok {
		t.Fatal("the module's globals were not exported")
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	compiled, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatalf("the binary with its globals exported does not compile: %v", err)
	}
	orig, err := rt.CompileModule(ctx, wasm.Binary)
	if err != nil {
		t.Fatal(err)
	}
	if len(compiled.ExportedFunctions()) != len(orig.ExportedFunctions()) {
		t.Errorf("%d exported functions, want %d", len(compiled.ExportedFunctions()), len(orig.ExportedFunctions()))
	}
	mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for mod.ExportedGlobal(globalExport(n)) != nil {
		n++
	}
	if n == 0 {
		t.Error("no global exported")
	}
	// The binary `make wasm` commits exports them already: it is kept as
	// it is, not copied.
	again, ok := ExportGlobals(out)
	if !ok || &again[0] != &out[0] || len(again) != len(out) {
		t.Error("a binary that exports its globals was changed or copied")
	}
	// One that exports only some of them cannot be cloned: it is refused
	// as it is.
	cut := withoutExport(t, out, globalExport(n-1))
	if got, ok := ExportGlobals(cut); ok || &got[0] != &cut[0] {
		t.Error("a binary exporting only some of its globals was accepted")
	}
	for _, bad := range [][]byte{nil, []byte("not wasm"), []byte("\x00asm\x01\x00\x00\x00")} {
		if got, ok := ExportGlobals(bad); ok || string(got) != string(bad) {
			t.Errorf("%q: changed (%v)", bad, ok)
		}
	}
	for cut := 8; cut < 20000; cut += 7 {
		ExportGlobals(wasm.Binary[:cut])
	}
}

// withoutExport renames the export name of bin to one of the same length
// that ExportGlobals does not give.
func withoutExport(t *testing.T, bin []byte, name string) []byte {
	t.Helper()
	at := bytes.Index(bin, []byte(name))
	if at < 0 || bytes.Count(bin, []byte(name)) != 1 {
		t.Fatalf("%s is not exported once", name)
	}
	out := bytes.Clone(bin)
	copy(out[at:], strings.Repeat("x", len(name)))
	return out
}

// TestExportGlobalsAdds: a binary built without them (any but the one
// `make wasm` commits) gains an export for each global, which names it.
func TestExportGlobalsAdds(t *testing.T) {
	bin := []byte("\x00asm\x01\x00\x00\x00" +
		"\x05\x03\x01\x00\x01" + // a memory of 1 page
		"\x06\x0b\x02" + "\x7f\x01\x41\x07\x0b" + "\x7e\x01\x42\x09\x0b" + // mutable globals: i32 7, i64 9
		"\x07\x0a\x01\x06memory\x02\x00") // exports: memory
	out, ok := ExportGlobals(bin)
	if !ok {
		t.Fatal("the globals were not exported")
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, out)
	if err != nil {
		t.Fatalf("the binary with its globals exported does not instantiate: %v", err)
	}
	for n, want := range []uint64{7, 9} {
		if g := mod.ExportedGlobal(globalExport(n)); g == nil || g.Get() != want {
			t.Errorf("global %d: %v, want %d", n, g, want)
		}
	}
	if mod.Memory() == nil || mod.ExportedGlobal(globalExport(2)) != nil {
		t.Error("the exports are not memory and the two globals")
	}
	if again, ok := ExportGlobals(out); !ok || &again[0] != &out[0] {
		t.Error("exporting them again changed the binary")
	}
}

// FuzzExportGlobals: no input makes ExportGlobals panic.
func FuzzExportGlobals(f *testing.F) {
	f.Add(wasm.Binary[:4096])
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x05\x01\x00\x00\x03\x7f"))
	f.Fuzz(func(t *testing.T, b []byte) { ExportGlobals(b) })
}
