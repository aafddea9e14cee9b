package sentenc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf16"
)

// The tokenizer is SentencePiece's unigram model as the JS package runs
// it, quirks included, so that a text gets the very ids the TF.js model was
// fed: NFKC, "▁" before the text and for every space (only U+0020; tabs and
// newlines stay as they are and become unknown pieces), then the Viterbi
// path where a piece's score adds to the best score of the position before
// it, a position whose best is still 0 counts as unset, and ties go to the
// later piece. Pieces are code points long on the way forward but the way
// back steps by each piece's length in UTF-16 units, which only differs
// for pieces outside the BMP (none in this vocabulary but the unknown
// piece, U+FFFD, which is one unit). A run of unknown ids becomes one.
// The first six pieces (unknown, <s>, </s>, three extras) are never
// matched; a position no piece starts at becomes the unknown id 0.

const (
	space    = '▁'
	reserved = 6
	unknown  = 0
)

type trieNode struct {
	end   bool
	score float64
	id    int32
}

type trieKey struct {
	node int32
	r    rune
}

type tokenizer struct {
	nodes    []trieNode
	children map[trieKey]int32
	units    []int32 // each piece's length in UTF-16 units
	nfkc     *nfkc
}

func newTokenizer(vocab, decomp, ccc, compose []byte) (*tokenizer, error) {
	if len(vocab) < 4 {
		return nil, fmt.Errorf("%w: the vocabulary is empty", ErrModel)
	}
	n := int(binary.LittleEndian.Uint32(vocab))
	p := vocab[4:]
	t := &tokenizer{nodes: []trieNode{{}}, children: map[trieKey]int32{}, units: make([]int32, n)}
	for i := range n {
		if len(p) < 2 {
			return nil, fmt.Errorf("%w: the vocabulary ends early", ErrModel)
		}
		l := int(binary.LittleEndian.Uint16(p))
		if len(p) < 2+l+8 {
			return nil, fmt.Errorf("%w: the vocabulary ends early", ErrModel)
		}
		piece := string(p[2 : 2+l])
		score := math.Float64frombits(binary.LittleEndian.Uint64(p[2+l:]))
		p = p[2+l+8:]
		t.units[i] = int32(len(utf16.Encode([]rune(piece))))
		if i >= reserved {
			t.insert(piece, score, int32(i))
		}
	}
	var err error
	t.nfkc, err = newNFKC(decomp, ccc, compose)
	return t, err
}

func (t *tokenizer) size() int { return len(t.units) }

// insert adds a piece; a piece listed twice keeps its last score and id.
func (t *tokenizer) insert(piece string, score float64, id int32) {
	node := int32(0)
	for _, r := range piece {
		k := trieKey{node, r}
		child, ok := t.children[k]
		if !ok {
			child = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{})
			t.children[k] = child
		}
		node = child
	}
	if node != 0 {
		t.nodes[node] = trieNode{end: true, score: score, id: id}
	}
}

// edge is a piece from start to the end whose list it is on; next is the
// following edge of that end's list (-1 for none).
type edge struct {
	start, next int32
	id          int32
	score       float64
}

// encode returns the ids of a text's pieces.
func (t *tokenizer) encode(text string) []int32 {
	s := t.nfkc.normalize(text)
	if s == "" {
		return nil
	}
	s = string(space) + strings.ReplaceAll(s, " ", string(space))
	syms := []rune(s)
	n := len(syms)
	// Each end's edges, in one slice, linked in order of their start.
	edges := make([]edge, 0, 4*n)
	head := make([]int32, 2*(n+1))
	tail := head[n+1:]
	head = head[:n+1]
	for i := range head {
		head[i], tail[i] = -1, -1
	}
	add := func(end int, e edge) {
		e.next = -1
		k := int32(len(edges))
		edges = append(edges, e)
		if tail[end] < 0 {
			head[end] = k
		} else {
			edges[tail[end]].next = k
		}
		tail[end] = k
	}
	for i := range syms {
		matched := false
		node := int32(0)
		for j := i; j < n; j++ {
			child, ok := t.children[trieKey{node, syms[j]}]
			if !ok {
				break
			}
			node = child
			if nd := t.nodes[node]; nd.end {
				add(j+1, edge{start: int32(i), id: nd.id, score: nd.score})
				matched = true
			}
		}
		if !matched {
			add(i+1, edge{start: int32(i), id: unknown})
		}
	}
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for end := 0; end <= n; end++ {
		// Within an end, the edges are in order of their start, as the
		// JS walks its object's integer keys.
		for k := head[end]; k >= 0; k = edges[k].next {
			e := &edges[k]
			sc := e.score + best[e.start]
			if best[end] == 0 || sc >= best[end] {
				best[end] = sc
				words[end] = e.id
			}
		}
	}
	var rev []int32
	for i := n; i > 0; i -= int(t.units[words[i]]) {
		rev = append(rev, words[i])
	}
	ids := make([]int32, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		if rev[i] == unknown && len(ids) > 0 && ids[len(ids)-1] == unknown {
			continue
		}
		ids = append(ids, rev[i])
	}
	return ids
}

// Tokens returns the vocabulary ids of a text as the model reads them
// (before it keeps the first [MaxTokens]).
func (e *Encoder) Tokens(text string) []int {
	ids := e.tok.encode(text)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}
