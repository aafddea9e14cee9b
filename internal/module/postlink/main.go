// Command postlink finishes the wasm module `make wasm` builds, in place:
//
//   - it exports the module's globals, as internal/module's hosts export
//     them to copy instances (module.ExportGlobals), so that a host finds
//     them exported and compiles the embedded binary as it is, without a
//     copy of it;
//   - it merges the data segments Go's linker writes, some 56,000, into a
//     few (module.MergeDataSegments), which every runtime would otherwise
//     decode and keep one by one.
//
// Neither changes what the module does, nor its ABI. A file finished
// already is left as it is.
//
//	go run ./internal/module/postlink wasm/toolroute.wasm
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/toolroute/toolroute/internal/module"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: postlink FILE.wasm")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "postlink:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	bin, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, ok := module.ExportGlobals(bin)
	if !ok {
		return fmt.Errorf("%s: its globals cannot be exported (not a wasm module with globals and exports?)", path)
	}
	out, _ = module.MergeDataSegments(out) // false: merged already, or nothing to merge
	if bytes.Equal(out, bin) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}
