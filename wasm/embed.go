// Package wasm holds toolroute's WebAssembly module, built from
// wasm/cmd/toolroute-wasm by `make wasm`, and the specification of its ABI
// (ABI.md). The module is committed, so `go get` users need no wasm
// toolchain; `make check` rebuilds it and fails if the bytes differ.
package wasm

import _ "embed"

// Binary is the module. A host may replace it before first use, with a build
// of the same ABI version.
//
//go:embed toolroute.wasm
var Binary []byte

// GoVersion is the Go release Binary was built with: a rebuild is
// byte-for-byte identical only with the same release.
//
//go:embed toolroute.wasm.goversion
var GoVersion string
