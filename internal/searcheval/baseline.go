package searcheval

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// Baseline is plain BM25 (k1 1.2, b 0.75) over each tool's name and
// description as one text: lower-case runs of letters and digits, no
// stemming, no stop words. It is the figure the ranking is measured against.
type Baseline struct {
	names []string
	tf    []map[string]int
	lens  []float64
	avg   float64
	df    map[string]int
}

// NewBaseline indexes tools, given as name and description pairs.
func NewBaseline(names, descriptions []string) *Baseline {
	b := &Baseline{names: names, df: map[string]int{}}
	for i := range names {
		toks := plainTokens(names[i] + " " + descriptions[i])
		tf := map[string]int{}
		for _, t := range toks {
			if tf[t] == 0 {
				b.df[t]++
			}
			tf[t]++
		}
		b.tf = append(b.tf, tf)
		b.lens = append(b.lens, float64(len(toks)))
		b.avg += float64(len(toks))
	}
	b.avg /= float64(max(1, len(names)))
	return b
}

func plainTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Search returns the names of the k best tools for query, ties by name.
func (b *Baseline) Search(query string, k int) []string {
	const k1, bb = 1.2, 0.75
	n := float64(len(b.names))
	scores := make([]float64, len(b.names))
	for _, t := range plainTokens(query) {
		df := float64(b.df[t])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for d, tf := range b.tf {
			if f := float64(tf[t]); f > 0 {
				scores[d] += idf * f * (k1 + 1) / (f + k1*(1-bb+bb*b.lens[d]/b.avg))
			}
		}
	}
	order := make([]int, len(b.names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		if scores[x] != scores[y] {
			if scores[x] > scores[y] {
				return -1
			}
			return 1
		}
		return strings.Compare(b.names[x], b.names[y])
	})
	var out []string
	for _, d := range order[:min(k, len(order))] {
		if scores[d] > 0 {
			out = append(out, b.names[d])
		}
	}
	return out
}
