// Package toolsearch ranks a tool list for a query by meaning as well as by
// words: registry's BM25F score, divided by the query's best, plus the
// cosines of the query's sentence embedding (internal/sentenc) with two
// vectors of each tool: its name and description's, and the mean of its
// description for the model's sentences'. It embeds the tools on all processors and keeps their vectors
// in a cache file, so that a command that ranks one tool list again starts
// at once. `toolroute search` uses it, and the Go host ranks search_tools
// with it (host.Options.NoEncoderSearch); the module's own search_tools,
// which the page and the worker use, keeps registry's ranking, BM25F and
// word vectors.
package toolsearch

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/toolroute/toolroute/internal/sentenc"
	"github.com/toolroute/toolroute/registry"
)

// Weights are how much each part of the score counts.
type Weights struct {
	// BM25 multiplies the BM25F score divided by the best tool's for the
	// query (1 for the best, 0 when no tool shares a word with it).
	BM25 float64
	// Name multiplies the cosine of the query with the tool's name and
	// description; Detail the mean of its cosines with the sentences of
	// the tool's description for the model (its description when it has
	// none).
	Name, Detail float64
}

// DefaultWeights are the weights chosen on half A of MetaTool's development
// queries (go run ./internal/searcheval/tune -fusion), among the best
// there the one with equal cosine weights.
func DefaultWeights() Weights { return Weights{BM25: 1, Name: 3, Detail: 3} }

// Options configure New.
type Options struct {
	Weights Weights
	// CacheDir, when set, holds a file of the tools' vectors, named by a
	// hash of the model and the tools' texts; it is read when present and
	// written when not. Errors reading or writing it only cost the time
	// of embedding the tools again.
	CacheDir string
	// Encoder embeds the texts; nil is sentenc.Default().
	Encoder *sentenc.Encoder
}

// Ranker ranks one tool list. It is safe for concurrent use.
type Ranker struct {
	w     Weights
	names []string
	at    map[string]int // each name's place in names
	index *registry.Index
	enc   *sentenc.Encoder
	// name[i] is tool i's name and description's vector, detail[i] the
	// mean of its detail sentences' vectors (so that its dot product with
	// the query is the mean of their cosines).
	name, detail [][]float32
}

// New embeds the tools' texts (or reads them from the cache) and indexes
// them.
func New(docs []registry.SearchDoc, opt Options) (*Ranker, error) {
	enc := opt.Encoder
	if enc == nil {
		var err error
		if enc, err = sentenc.Default(); err != nil {
			return nil, err
		}
	}
	texts, counts := textsOf(docs)
	var vecs [][]float32
	var path string
	if opt.CacheDir != "" {
		path = filepath.Join(opt.CacheDir, cacheName(texts))
		if vecs = readCache(path, len(texts)); vecs != nil {
			now := time.Now()
			_ = os.Chtimes(path, now, now) // used: pruneCache keeps it
		}
	}
	if vecs == nil {
		vecs = EmbedAll(enc, texts)
		if path != "" {
			writeCache(path, vecs) // a failure only costs the next run this time
			pruneCache(opt.CacheDir, filepath.Base(path))
		}
	}
	r := &Ranker{w: opt.Weights, at: make(map[string]int, len(docs)), index: registry.NewIndex(docs, nil), enc: enc}
	at := 0
	for i, d := range docs {
		r.at[d.Name] = i
		r.names = append(r.names, d.Name)
		r.name = append(r.name, vecs[at])
		r.detail = append(r.detail, mean(vecs[at+1:at+counts[i]]))
		at += counts[i]
	}
	return r, nil
}

// mean is the mean of vectors (not scaled back to length 1).
func mean(vecs [][]float32) []float32 {
	m := make([]float32, len(vecs[0]))
	for _, v := range vecs {
		for j, x := range v {
			m[j] += x
		}
	}
	for j := range m {
		m[j] /= float32(len(vecs))
	}
	return m
}

// Texts returns the two texts of a tool that are embedded: its name (words
// of snake_case, kebab-case and camelCase apart) and description, and its
// description for the model, or its description when it has none.
func Texts(d registry.SearchDoc) (name, detail string) {
	name = splitName(d.Name) + ". " + d.Description
	detail = d.Detail
	if strings.TrimSpace(detail) == "" {
		detail = d.Description
	}
	return name, detail
}

// textsOf lists the texts embedded for each tool in turn: its name text,
// then the sentences of its detail; counts[i] is how many are tool i's.
func textsOf(docs []registry.SearchDoc) (texts []string, counts []int) {
	texts = make([]string, 0, 4*len(docs))
	for _, d := range docs {
		n, dt := Texts(d)
		ss := Sentences(dt)
		texts = append(append(texts, n), ss...)
		counts = append(counts, 1+len(ss))
	}
	return texts, counts
}

// Sentences splits a text after each '.', '!' or '?' that whitespace
// follows, dropping pieces of three characters or fewer; a text with no
// longer piece is one sentence, itself. A long description embedded
// whole blurs into the mean of its words, where each sentence keeps its
// own meaning: the mean of a query's cosines with the sentences found
// 0.6 point more of MetaTool's queries in the top 5 than the cosine with
// the whole text, on either half (docs/design/tool-search.md).
func Sentences(text string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if p := strings.TrimSpace(text[start:end]); len(p) > 3 {
			out = append(out, p)
		}
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '!', '?':
			if i+1 < len(text) && strings.IndexByte(" \t\n\r\f\v", text[i+1]) >= 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	flush(len(text))
	if len(out) == 0 {
		return []string{text}
	}
	return out
}

func splitName(s string) string {
	var b strings.Builder
	var prev rune
	for i, r := range s {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
		case i > 0 && unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// EmbedAll embeds texts on GOMAXPROCS goroutines; the result is in the
// texts' order.
func EmbedAll(enc *sentenc.Encoder, texts []string) [][]float32 {
	vecs := make([][]float32, len(texts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(texts), 1)) {
		wg.Go(func() {
			for i := range next {
				vecs[i] = enc.Embed(texts[i])
			}
		})
	}
	// Longest first, so that no goroutine is left with a long text at the
	// end while the others wait.
	order := make([]int, len(texts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(texts[b]), len(texts[a])) })
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	return vecs
}

// Parts are the parts of each tool's score for one query, before the
// weights: BM25 divided by its largest, and the two cosines.
type Parts struct {
	BM25, Name, Detail []float64
}

// Parts embeds the query and returns every tool's parts of the score.
func (r *Ranker) Parts(query string) Parts {
	n := len(r.names)
	p := Parts{make([]float64, n), make([]float64, n), make([]float64, n)}
	hits := r.index.Search(query, n)
	if len(hits) > 0 && hits[0].Score > 0 {
		for _, h := range hits {
			p.BM25[r.at[h.Name]] = h.Score / hits[0].Score
		}
	}
	q := r.enc.Embed(query)
	for i := range n {
		p.Name[i] = float64(sentenc.Dot(q, r.name[i]))
		p.Detail[i] = float64(sentenc.Dot(q, r.detail[i]))
	}
	return p
}

// Scores returns each tool's score under weights w.
func (p Parts) Scores(w Weights) []float64 {
	s := make([]float64, len(p.BM25))
	for i := range s {
		s[i] = w.BM25*p.BM25[i] + w.Name*p.Name[i] + w.Detail*p.Detail[i]
	}
	return s
}

// Search returns the k best tools for query, best first, ties by name. A
// query of no tokens (blank) gets none; any other gets k (or every tool).
func (r *Ranker) Search(query string, k int) []registry.SearchHit {
	if strings.TrimSpace(query) == "" || k <= 0 {
		return nil
	}
	return Top(r.names, r.Parts(query).Scores(r.w), k)
}

// SearchAmong is Search keeping only the tools named in candidates: the
// ranking of the whole list, without the others. Candidates the list does
// not hold are never found.
func (r *Ranker) SearchAmong(query string, k int, candidates []string) []registry.SearchHit {
	if strings.TrimSpace(query) == "" || k <= 0 || len(candidates) == 0 {
		return nil
	}
	keep := make(map[string]bool, len(candidates))
	for _, c := range candidates {
		keep[c] = true
	}
	scores := r.Parts(query).Scores(r.w)
	var names []string
	var kept []float64
	for i, name := range r.names {
		if keep[name] {
			names = append(names, name)
			kept = append(kept, scores[i])
		}
	}
	return Top(names, kept, k)
}

// Top returns the k best-scored names, best first, ties by name.
func Top(names []string, scores []float64, k int) []registry.SearchHit {
	hits := make([]registry.SearchHit, len(names))
	for i, name := range names {
		hits[i] = registry.SearchHit{Name: name, Score: scores[i]}
	}
	slices.SortFunc(hits, func(a, b registry.SearchHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return hits[:min(k, len(hits))]
}

var (
	modelHashOnce sync.Once
	modelHash     [32]byte
)

// cacheName names the cache file of a list of texts: a hash of the model
// and of the texts, each with its length.
func cacheName(texts []string) string {
	modelHashOnce.Do(func() { modelHash = sha256.Sum256(sentenc.Model) })
	h := sha256.New()
	h.Write(modelHash[:])
	var n [8]byte
	for _, t := range texts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(t)))
		h.Write(n[:])
		h.Write([]byte(t))
	}
	return fmt.Sprintf("use-%x.vec", h.Sum(nil)[:16])
}

// readCache returns the n vectors of a cache file, or nil if it is missing
// or not of that size.
func readCache(path string, n int) [][]float32 {
	b, err := os.ReadFile(path)
	if err != nil || len(b) != n*sentenc.Dim*4 {
		return nil
	}
	vecs := make([][]float32, n)
	for i := range vecs {
		v := make([]float32, sentenc.Dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*(i*sentenc.Dim+j):]))
		}
		vecs[i] = v
	}
	return vecs
}

// cacheTTL is how long a tool list's vectors no ranker has used stay in
// the cache folder.
const cacheTTL = 7 * 24 * time.Hour

// pruneCache removes the vector files of dir, other than keep, that no
// ranker has read or written for cacheTTL: each change of a tool list
// (a manifest edited, an MCP server's tools) writes a new file of about
// 2 KB a text, which would otherwise stay for good.
func pruneCache(dir, keep string) {
	old, _ := filepath.Glob(filepath.Join(dir, "use-*.vec"))
	for _, path := range old {
		if filepath.Base(path) == keep {
			continue
		}
		if info, err := os.Stat(path); err == nil && time.Since(info.ModTime()) > cacheTTL {
			_ = os.Remove(path) // a failure leaves it for the next prune
		}
	}
}

// writeCache writes the vectors to a temporary file it then renames, so
// that a reader never sees half of one.
func writeCache(path string, vecs [][]float32) error {
	b := make([]byte, 0, len(vecs)*sentenc.Dim*4)
	for _, v := range vecs {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".use-*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
