// Package manifests holds toolroute's built-in JS tools: one NAME.json
// manifest and one NAME.js source per tool or tool group, embedded in the
// binary. The registry loads them before any user tools.
package manifests

import "embed"

// FS holds the built-in manifests and sources at its root.
//
//go:embed *.json *.js
var FS embed.FS
