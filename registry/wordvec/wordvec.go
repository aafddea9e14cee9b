// Package wordvec reads and uses tables of word vectors for tool search:
// words whose vectors are close are used alike in English text ("rain" and
// "weather", "apartment" and "rent"), which is what lets search find a tool
// described in other words than the user's. Package english holds the table
// the hosts hand the module; the module itself carries none, so that it
// stays small (wasm/ABI.md's toolroute_word_vectors).
//
// A table is "wordvec1", the number of words n and of dimensions d
// (uint32 little-endian each), the n words each ended by a newline, commonest
// first, n float32 scales (little-endian), then n·d/2 bytes: each vector's
// numbers two to a byte, the first in the low 4 bits, each stored as q+8 for
// the value q·scale, q from -7 to 7.
//
// The package uses the standard library only, as registry does.
package wordvec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// Vectors is a table of word vectors, read once and only read afterwards, so
// one Vectors may serve many goroutines.
type Vectors struct {
	dim    int
	words  []string // by rank, commonest first
	scales []float32
	codes  []byte

	// sorted is the ranks in the words' order, for Rank's binary search,
	// sorted at the first Rank: most of Parse's time otherwise, spent by
	// every module instance given a table whether it searches or not.
	sortOnce sync.Once
	sorted   []int32
}

// ErrData is wrapped by Parse's errors.
var ErrData = errors.New("wordvec: bad vector data")

// Parse reads a table in vectors.bin's layout (see the package comment).
func Parse(b []byte) (*Vectors, error) {
	if len(b) < 16 || string(b[:8]) != "wordvec1" {
		return nil, fmt.Errorf("%w: want the header \"wordvec1\", as internal/wordvecgen writes it", ErrData)
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	dim := int(binary.LittleEndian.Uint32(b[12:]))
	if dim == 0 || dim%2 != 0 || n > len(b) || dim > len(b) {
		return nil, fmt.Errorf("%w: %d words of %d dimensions (want an even number of dimensions)", ErrData, n, dim)
	}
	// The words are copied in one string: the rest of b is kept as it is.
	end := 16
	for range n {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			break
		}
		end += i + 1
	}
	rest := string(b[16:end])
	v := &Vectors{dim: dim, words: make([]string, 0, n)}
	for range n {
		i := strings.IndexByte(rest, '\n')
		if i <= 0 {
			return nil, fmt.Errorf("%w: word %d is empty or missing", ErrData, len(v.words)+1)
		}
		v.words = append(v.words, rest[:i])
		rest = rest[i+1:]
	}
	tail := b[end:]
	if len(tail) != n*4+n*dim/2 {
		return nil, fmt.Errorf("%w: %d bytes after the words, want %d for %d vectors of %d", ErrData, len(tail), n*4+n*dim/2, n, dim)
	}
	v.scales = make([]float32, n)
	for i := range v.scales {
		v.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(tail[4*i:]))
	}
	v.codes = tail[4*n:]
	return v, nil
}

// sort orders the ranks by word, for Rank. Of a word given twice, Rank
// finds one.
func (v *Vectors) sort() {
	v.sorted = make([]int32, len(v.words))
	for i := range v.sorted {
		v.sorted[i] = int32(i)
	}
	slices.SortFunc(v.sorted, func(a, b int32) int { return strings.Compare(v.words[a], v.words[b]) })
}

// Dim is the vectors' length.
func (v *Vectors) Dim() int { return v.dim }

// Len is the number of words.
func (v *Vectors) Len() int { return len(v.words) }

// Rank returns word's place in the table, 0 for the commonest word, and
// whether the table has it.
func (v *Vectors) Rank(word string) (int, bool) {
	v.sortOnce.Do(v.sort)
	i, ok := slices.BinarySearchFunc(v.sorted, word, func(r int32, w string) int { return strings.Compare(v.words[r], w) })
	if !ok {
		return 0, false
	}
	return int(v.sorted[i]), true
}

// Word is the word of the given rank.
func (v *Vectors) Word(rank int) string { return v.words[rank] }

// AddTo adds weight times the vector of the word of the given rank to acc,
// which has Dim numbers.
func (v *Vectors) AddTo(acc []float64, rank int, weight float64) {
	w := weight * float64(v.scales[rank])
	codes := v.codes[rank*v.dim/2 : (rank+1)*v.dim/2]
	for i, c := range codes {
		acc[2*i] += w * float64(int(c&15)-8)
		acc[2*i+1] += w * float64(int(c>>4)-8)
	}
}
