// Command exportglobals exports the globals of the wasm module in the file
// it is given, in place, as internal/module's hosts export them to copy
// instances (module.ExportGlobals). `make wasm` runs it on the module it
// builds, so that a host finds them exported and compiles the embedded
// binary as it is, without a copy of it. A file that exports them already
// is left as it is.
//
//	go run ./internal/module/exportglobals wasm/toolroute.wasm
package main

import (
	"fmt"
	"os"

	"github.com/toolroute/toolroute/internal/module"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: exportglobals FILE.wasm")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "exportglobals:", err)
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
	if len(out) == len(bin) {
		return nil // exported already
	}
	return os.WriteFile(path, out, 0o644)
}
