package module

import (
	"context"
	"path/filepath"
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

// TestExportGlobals: the module's binary gains an export for each of its
// globals and nothing else changes; a binary that does not read as wasm,
// whole or cut anywhere, is left as it is, without a panic.
func TestExportGlobals(t *testing.T) {
	out, ok := exportGlobals(wasm.Binary)
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
	for _, bad := range [][]byte{nil, []byte("not wasm"), []byte("\x00asm\x01\x00\x00\x00")} {
		if got, ok := exportGlobals(bad); ok || string(got) != string(bad) {
			t.Errorf("%q: changed (%v)", bad, ok)
		}
	}
	for cut := 8; cut < 20000; cut += 7 {
		exportGlobals(wasm.Binary[:cut])
	}
}

// FuzzExportGlobals: no input makes exportGlobals panic.
func FuzzExportGlobals(f *testing.F) {
	f.Add(wasm.Binary[:4096])
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x05\x01\x00\x00\x03\x7f"))
	f.Fuzz(func(t *testing.T, b []byte) { exportGlobals(b) })
}
