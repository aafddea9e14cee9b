package registry

import (
	"math"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry/wordvec"
)

// SearchField names one field of a SearchDoc.
type SearchField int

// The fields of a SearchDoc, in SearchParams.Fields order.
const (
	FieldName SearchField = iota
	FieldTitle
	FieldDescription
	FieldDetail
	FieldParams
	FieldGroup
	NumSearchFields
)

// SearchDoc is one tool as search sees it: its name, which Search returns,
// and the texts it is found by.
type SearchDoc struct {
	Name string
	// Title is a display name ("Space Photo Explorer").
	Title       string
	Description string
	// Detail is a longer description written for the model, when the tool
	// has one beside its short description.
	Detail string
	// Params is the parameters' names and descriptions.
	Params string
	// Group is the tool's group: its name, display name and description.
	Group string
}

func (d SearchDoc) field(f SearchField) string {
	switch f {
	case FieldName:
		return d.Name
	case FieldTitle:
		return d.Title
	case FieldDescription:
		return d.Description
	case FieldDetail:
		return d.Detail
	case FieldParams:
		return d.Params
	case FieldGroup:
		return d.Group
	}
	return ""
}

// FieldWeight is how much one field counts: Weight multiplies its term
// frequencies, B is BM25's length normalisation for it (0 none, 1 full).
type FieldWeight struct {
	Weight, B float64
}

// SearchParams are the ranking's constants. DefaultSearchParams gives the
// ones toolroute uses; they are exported for measuring (see
// internal/searcheval).
type SearchParams struct {
	// K1 is BM25's term frequency saturation.
	K1     float64
	Fields [NumSearchFields]FieldWeight
	// IDFPower is the power idf is raised to: 2 weighs a query's terms by
	// their idf as well as the documents', as the vector space model's
	// tf-idf on both sides does, so that the rare words of a long request
	// outweigh its common ones.
	IDFPower float64
	// RequestWords keeps the words of asking (requestWords), which are left
	// out by default.
	RequestWords bool
	// Dense is the weight of the word-vector score (see Index) beside the
	// BM25F score scaled to a best of 1; 0 leaves word vectors out.
	Dense float64
	// DenseFields weighs each field's words in a tool's word vector.
	DenseFields [NumSearchFields]float64
	// DenseAlone is the cosine a tool that shares no term with the query
	// needs to be found by its word vector alone, and DenseAloneOfBest the
	// share of the best tool's cosine it needs as well: a vector near the
	// query's is a weaker sign than a shared word, and a tool near only
	// in the way most texts on a subject are ("send an email", "extract the
	// text of a PDF file") should not be loaded.
	DenseAlone, DenseAloneOfBest float64
}

// DefaultSearchParams returns the ranking's constants: measured on half of
// MetaTool's development queries, as internal/searcheval/tune does (the
// figures are in BENCHMARKS.md). A tool's name counts most: it is short and
// says what the tool is for. A long description written for the model
// counts a fifth of the short one: it is mostly instructions. The
// parameters and the group count half as much as the description; the
// benchmark has neither, so those weights are a judgement, not a
// measurement. The word-vector score counts 1.25 times the best BM25F
// score, a tool's word vector leaves the long description out, and a tool
// sharing no word with the query needs a cosine of 0.3 to be found by its
// vector alone (measured the same way); it also needs 0.6 of the best
// tool's cosine, a judgement (search_tools loads what it finds): the
// largest share that costs nothing on half A.
func DefaultSearchParams() SearchParams {
	return SearchParams{
		K1: 1.6,
		Fields: [NumSearchFields]FieldWeight{
			FieldName:        {Weight: 6, B: 0.75},
			FieldTitle:       {Weight: 0.25, B: 0.75},
			FieldDescription: {Weight: 1, B: 0.75},
			FieldDetail:      {Weight: 0.2, B: 0.75},
			FieldParams:      {Weight: 0.5, B: 0.75},
			FieldGroup:       {Weight: 0.5, B: 0.75},
		},
		IDFPower:         2,
		Dense:            1.25,
		DenseAlone:       0.3,
		DenseAloneOfBest: 0.6,
		DenseFields: [NumSearchFields]float64{
			FieldName: 1, FieldTitle: 1, FieldDescription: 1, FieldDetail: 0, FieldParams: 0.5, FieldGroup: 0.5,
		},
	}
}

// SearchHit is one tool Search found, with its score.
type SearchHit struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// Index ranks tools for a query with BM25F, plus, when it has word vectors
// and SearchParams.Dense is not 0, the cosine of the query's and each tool's word vectors: the sums
// of their words' general English vectors (package wordvec; hosts pass
// package english's), each word
// weighed by how rare it is in English, so that a tool described in other
// words than the query's ("current conditions" for "will it rain") still
// scores. It is built once from the tool list and only read afterwards, so
// one Index may serve many goroutines.
type Index struct {
	p     SearchParams
	names []string
	// lens[d][f] is document d's length in field f, in terms; avg[f] the
	// average over the documents that have the field.
	lens [][NumSearchFields]float64
	avg  [NumSearchFields]float64
	// terms maps a term to its postings and idf.
	terms    map[string]int
	postings [][]posting
	idf      []float64
	// vecs is the word vectors, nil when there are none or p.Dense is 0;
	// dense[d] is document d's vector, of length 1 (or 0 when none of its
	// words has a vector).
	vecs  *wordvec.Vectors
	dense [][]float32
}

// posting is one document's term frequencies, per field, for one term.
type posting struct {
	doc int
	tf  [NumSearchFields]float32
}

// NewIndex builds an index of docs with DefaultSearchParams.
// vecs, the word vectors, may be nil: the ranking is then BM25F alone.
func NewIndex(docs []SearchDoc, vecs *wordvec.Vectors) *Index {
	return NewIndexWith(docs, DefaultSearchParams(), vecs)
}

// NewIndexWith builds an index of docs with the given constants.
func NewIndexWith(docs []SearchDoc, p SearchParams, vecs *wordvec.Vectors) *Index {
	x := &Index{p: p, terms: map[string]int{}, lens: make([][NumSearchFields]float64, len(docs))}
	var have [NumSearchFields]int
	stems := map[string]string{} // a word's stem, as words repeat
	for d, doc := range docs {
		x.names = append(x.names, doc.Name)
		for f := SearchField(0); f < NumSearchFields; f++ {
			text := doc.field(f)
			if f == FieldDetail && strings.TrimSpace(text) == strings.TrimSpace(doc.Description) {
				continue // said once already
			}
			terms := analyse(text, p.RequestWords, stems)
			if len(terms) == 0 {
				continue
			}
			have[f]++
			x.lens[d][f] = float64(len(terms))
			x.avg[f] += float64(len(terms))
			for _, t := range terms {
				x.add(t, d, f)
			}
		}
	}
	for f := range x.avg {
		if have[f] > 0 {
			x.avg[f] /= float64(have[f])
		}
	}
	n := float64(len(docs))
	x.idf = make([]float64, len(x.postings))
	for i, ps := range x.postings {
		df := float64(len(ps))
		// BM25's idf, as Lucene has it: never negative.
		x.idf[i] = math.Pow(math.Log(1+(n-df+0.5)/(df+0.5)), p.IDFPower)
	}
	if p.Dense != 0 && vecs != nil {
		x.vecs = vecs
		for _, doc := range docs {
			acc := make([]float64, x.vecs.Dim())
			for f := SearchField(0); f < NumSearchFields; f++ {
				if w := p.DenseFields[f]; w != 0 {
					x.addVector(acc, doc.field(f), w)
				}
			}
			x.dense = append(x.dense, unitVector(acc))
		}
	}
	return x
}

// addVector adds the word vectors of text's words to acc, each times
// weight and its word's rarity: a/(a+p) for a word whose probability in
// English text is p, estimated by Zipf's law from its rank (commonest
// first) as 1/(13.5·(rank+1)), with a = 0.001 (Arora, Liang and Ma, "A
// simple but tough-to-beat baseline for sentence embeddings", 2017). Stop
// and request words are left out as the BM25F part leaves them out.
func (x *Index) addVector(acc []float64, text string, weight float64) {
	const a = 1e-3
	for _, w := range words(text) {
		if isStopWord(w) || !x.p.RequestWords && isRequestWord(w) {
			continue
		}
		rank, ok := x.vecs.Rank(w)
		if !ok {
			continue
		}
		p := 1 / (13.5 * float64(rank+1))
		x.vecs.AddTo(acc, rank, weight*a/(a+p))
	}
}

// unitVector is acc scaled to length 1, or zeros for zeros.
func unitVector(acc []float64) []float32 {
	n := 0.0
	for _, v := range acc {
		n += v * v
	}
	out := make([]float32, len(acc))
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, v := range acc {
		out[i] = float32(v / n)
	}
	return out
}

// add counts one occurrence of term in document d's field f. Documents are
// added in order, so a term's postings are in document order.
func (x *Index) add(term string, d int, f SearchField) {
	i, ok := x.terms[term]
	if !ok {
		i = len(x.postings)
		x.terms[term] = i
		x.postings = append(x.postings, nil)
	}
	ps := x.postings[i]
	if len(ps) == 0 || ps[len(ps)-1].doc != d {
		ps = append(ps, posting{doc: d})
	}
	ps[len(ps)-1].tf[f]++
	x.postings[i] = ps
}

// analyse turns text into the stems of its words, in order, stop words and
// (unless requests) request words left out. stems, when not nil, keeps the
// stems found.
func analyse(text string, requests bool, stems map[string]string) []string {
	var out []string
	for _, w := range words(text) {
		s, ok := stems[w]
		if !ok {
			if isStopWord(w) || !requests && isRequestWord(w) {
				s = ""
			} else {
				s = Stem(w)
			}
			if stems != nil {
				stems[w] = s
			}
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Search returns the k tools that best match query, best first; ties go by
// name. With word vectors, a tool's score is its BM25F score over the best
// one's plus Dense times its positive cosine with the query. A tool that
// shares no term with the query is left out unless its cosine reaches
// DenseAlone and DenseAloneOfBest times the best tool's, so fewer than k
// may come back, none for a query of stop words alone.
func (x *Index) Search(query string, k int) []SearchHit {
	if k <= 0 {
		return nil
	}
	// A term said twice counts twice.
	var terms []string
	var weights []float64
	for _, s := range analyse(query, x.p.RequestWords, nil) {
		if i := slices.Index(terms, s); i >= 0 {
			weights[i]++
			continue
		}
		terms = append(terms, s)
		weights = append(weights, 1)
	}
	scores := make([]float64, len(x.names))
	for j, term := range terms {
		i, ok := x.terms[term]
		if !ok {
			continue
		}
		for _, p := range x.postings[i] {
			scores[p.doc] += weights[j] * x.idf[i] * x.saturated(p)
		}
	}
	if x.vecs != nil && len(scores) > 0 {
		x.addDense(scores, query)
	}
	return x.top(scores, k)
}

// addDense turns BM25F scores into the fused ones: each over the best, plus
// Dense times the positive cosine of the query's and the tool's vectors.
func (x *Index) addDense(scores []float64, query string) {
	acc := make([]float64, x.vecs.Dim())
	x.addVector(acc, query, 1)
	q := unitVector(acc)
	best := slices.Max(scores)
	coss := make([]float64, len(scores))
	bestCos := 0.0
	for d := range scores {
		for i, v := range x.dense[d] {
			coss[d] += float64(v) * float64(q[i])
		}
		bestCos = max(bestCos, coss[d])
	}
	floor := max(x.p.DenseAlone, x.p.DenseAloneOfBest*bestCos)
	for d, s := range scores {
		if best > 0 {
			s /= best
		}
		cos := coss[d]
		if s == 0 && cos < floor {
			continue
		}
		scores[d] = s + x.p.Dense*max(cos, 0)
	}
}

// saturated is BM25F's term weight (Robertson, Zaragoza and Taylor, "Simple
// BM25 extension to multiple weighted fields", 2004): the fields' weighted
// and length-normalised frequencies are added, then saturated once, so a
// word found in the name and the description does not count twice over.
func (x *Index) saturated(p posting) float64 {
	tf := 0.0
	for f := SearchField(0); f < NumSearchFields; f++ {
		if p.tf[f] == 0 {
			continue
		}
		fw := x.p.Fields[f]
		norm := 1 - fw.B + fw.B*x.lens[p.doc][f]/x.avg[f]
		tf += fw.Weight * float64(p.tf[f]) / norm
	}
	return tf * (x.p.K1 + 1) / (x.p.K1 + tf)
}

// top returns the k best-scored documents with a score above zero, best
// first, ties by name: each kept in order as it comes, as k is small.
func (x *Index) top(scores []float64, k int) []SearchHit {
	hits := make([]SearchHit, 0, k+1)
	for d, s := range scores {
		if s <= 0 {
			continue
		}
		h := SearchHit{x.names[d], s}
		i := len(hits)
		for i > 0 && (h.Score > hits[i-1].Score || h.Score == hits[i-1].Score && h.Name < hits[i-1].Name) {
			i--
		}
		if i == k {
			continue
		}
		hits = append(hits, SearchHit{})
		copy(hits[i+1:], hits[i:])
		hits[i] = h
		if len(hits) > k {
			hits = hits[:k]
		}
	}
	return hits
}
