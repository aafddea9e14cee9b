package module

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/toolroute/toolroute/wasm"
)

// The module imports only the WASI functions wasm/ABI.md lists, which the
// JS hosts' small WASI (web/packages/toolroute/driver/wasi.js) gives: a
// change that links another (a json.Decoder's reads linked fd_read once)
// would fail every JS host at instantiation while wazero, which has them
// all, never noticed.
func TestImportsAreTheABIs(t *testing.T) {
	abi, err := os.ReadFile("../../wasm/ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(abi)
	start := strings.Index(text, "## Imports")
	end := strings.Index(text, "## Lifecycle")
	if start < 0 || end < start {
		t.Fatal("wasm/ABI.md has no Imports section before Lifecycle")
	}
	var listed []string
	for _, line := range strings.Split(text[start:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cell, -1) {
			listed = append(listed, m[1])
		}
	}
	rt := wazero.NewRuntime(t.Context())
	defer rt.Close(t.Context())
	compiled, err := rt.CompileModule(t.Context(), wasm.Binary)
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != "wasi_snapshot_preview1" {
			t.Errorf("the module imports %s.%s: only wasi_snapshot_preview1 is given", mod, name)
		}
		if !slices.Contains(imported, name) {
			imported = append(imported, name)
		}
	}
	slices.Sort(listed)
	slices.Sort(imported)
	for _, name := range imported {
		if !slices.Contains(listed, name) {
			t.Errorf("the module imports %s, which wasm/ABI.md does not list (and the JS hosts' WASI may not give)", name)
		}
	}
	for _, name := range listed {
		if !slices.Contains(imported, name) {
			t.Errorf("wasm/ABI.md lists %s, which the module does not import", name)
		}
	}
}
