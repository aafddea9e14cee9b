package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/toolroute/toolroute/internal/searcheval"
	"github.com/toolroute/toolroute/internal/sentenc"
	"github.com/toolroute/toolroute/internal/toolsearch"
)

// tuneFusion searches toolsearch's weights on half A: each query's parts of
// the score are computed once, then every pair of weights ranks from them.
// modelFile, when set, is another model file (internal/usegen -f32 writes
// one in float32, to measure what the int8 weights cost).
func (e eval) tuneFusion(modelFile string, topN int) error {
	enc, err := sentenc.Default()
	if modelFile != "" {
		var data []byte
		if data, err = os.ReadFile(modelFile); err == nil {
			enc, err = sentenc.New(data)
		}
	}
	if err != nil {
		return err
	}
	start := time.Now()
	r, err := toolsearch.New(e.docs, toolsearch.Options{Weights: toolsearch.DefaultWeights(), Encoder: enc})
	if err != nil {
		return err
	}
	fmt.Printf("embedded %d tools (a name text and each sentence of a detail) in %v\n", len(e.docs), time.Since(start).Round(time.Millisecond))
	names := make([]string, len(e.docs))
	for i, d := range e.docs {
		names[i] = d.Name
	}
	parts := func(qs []searcheval.Query) []toolsearch.Parts {
		p := make([]toolsearch.Parts, len(qs))
		for i, q := range qs {
			p[i] = r.Parts(q.Text)
		}
		return p
	}
	start = time.Now()
	pa, pb, pm := parts(e.a), parts(e.b), parts(e.multi)
	fmt.Printf("%d queries in %v\n\n", len(pa)+len(pb)+len(pm), time.Since(start).Round(time.Millisecond))
	recall := func(qs []searcheval.Query, ps []toolsearch.Parts, w toolsearch.Weights) searcheval.Recall {
		res := make([][]string, len(qs))
		for i, p := range ps {
			for _, h := range toolsearch.Top(names, p.Scores(w), 5) {
				res[i] = append(res[i], h.Name)
			}
		}
		return searcheval.Measure(qs, res)
	}
	type tried struct {
		w toolsearch.Weights
		r searcheval.Recall
	}
	var all []tried
	for _, bm := range []float64{0, 1} {
		for _, n := range []float64{0, 1, 1.5, 2, 2.5, 3, 4, 5, 6} {
			for _, d := range []float64{0, 1, 2, 2.5, 3, 4, 5, 6, 8} {
				w := toolsearch.Weights{BM25: bm, Name: n, Detail: d}
				all = append(all, tried{w, recall(e.a, pa, w)})
			}
		}
	}
	slices.SortStableFunc(all, func(x, y tried) int {
		if x.r.At5 != y.r.At5 {
			return y.r.At5 - x.r.At5
		}
		return y.r.At1 - x.r.At1
	})
	label := func(w toolsearch.Weights) string {
		return fmt.Sprintf("bm25 %g + name %g + detail %g", w.BM25, w.Name, w.Detail)
	}
	fmt.Printf("%d weightings, ranked on half A (%d queries); half B (%d) is not looked at to choose\n\n", len(all), len(e.a), len(e.b))
	header()
	show := func(name string, w toolsearch.Weights) {
		e.printRecall(name, recall(e.a, pa, w), recall(e.b, pb, w), recall(e.multi, pm, w))
	}
	for _, t := range all[:min(topN, len(all))] {
		show(label(t.w), t.w)
	}
	fmt.Println("\nthe defaults and each part alone")
	header()
	def := toolsearch.DefaultWeights()
	show("defaults: "+label(def), def)
	show("BM25F alone", toolsearch.Weights{BM25: 1})
	show("name cosine alone", toolsearch.Weights{Name: 1})
	show("detail cosine alone", toolsearch.Weights{Detail: 1})
	show("both cosines, no BM25F", toolsearch.Weights{Name: def.Name, Detail: def.Detail})
	return nil
}
