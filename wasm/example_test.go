package wasm_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toolroute/toolroute/wasm"
)

// Binary is the module every host runs; a Go host may hand another build
// of the same ABI version to host.New (Options.Module.Binary).
func Example() {
	fmt.Println(bytes.HasPrefix(wasm.Binary, []byte("\x00asm")), strings.HasPrefix(wasm.GoVersion, "go1."))
	// Output:
	// true true
}
