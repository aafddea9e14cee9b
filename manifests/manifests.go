// Package manifests holds toolroute's built-in JS tools: one NAME.json
// manifest and one NAME.js source per tool or tool group, embedded in the
// binary, and the built-in JS libraries tools load with lib(name). The
// registry loads the tools before any user tools; the libraries come before
// the user's.
package manifests

import (
	"embed"
	"io/fs"
)

// FS holds the built-in manifests and sources at its root.
//
//go:embed *.json *.js
var FS embed.FS

//go:embed lib/*.js
var libFS embed.FS

// Lib holds the built-in libraries, NAME.js at its root.
var Lib fs.FS

func init() {
	sub, err := fs.Sub(libFS, "lib")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	Lib = sub
}
