// Command tune searches the ranking's constants (registry.SearchParams) on
// half A of MetaTool's development queries and prints the best settings'
// recall on both halves, so that a gain on A that B does not share shows as
// overfitting; then the defaults and what each of their parts is worth.
//
//	go run ./internal/searcheval/tune [-data DIR] [-top 10]
//
// DIR defaults to $TOOLROUTE_METATOOL.
//
// With -fusion it tunes instead the weights of internal/toolsearch, which adds
// sentence-encoder cosines to BM25F (`toolroute search` ranks with it).
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/searcheval"
	"github.com/toolroute/toolroute/registry"
)

func main() {
	dir := flag.String("data", searcheval.Dir(), "the folder of MetaTool's tools.json, queries-dev.csv and multi-dev.json (default: $"+searcheval.EnvDir+")")
	topN := flag.Int("top", 10, "how many of the best settings to print")
	fusion := flag.Bool("fusion", false, "tune toolsearch's weights (BM25F fused with sentence-encoder cosines) instead of BM25F's constants")
	model := flag.String("model", "", "with -fusion: a model file to use instead of the embedded one (internal/usegen -f32 writes a float32 one)")
	flag.Parse()
	d, err := searcheval.Load(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tune: %v\n", err)
		os.Exit(1)
	}
	docs, err := registry.ParseToolList(d.Tools)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tune: %v\n", err)
		os.Exit(1)
	}
	a, b := searcheval.Halves(d.Single)
	e := eval{docs, a, b, d.Multi}
	if *fusion {
		if err := e.tuneFusion(*model, *topN); err != nil {
			fmt.Fprintf(os.Stderr, "tune: %v\n", err)
			os.Exit(1)
		}
		return
	}

	type tried struct {
		name string
		p    registry.SearchParams
		r    searcheval.Recall
	}
	var all []tried
	for _, k1 := range []float64{0.8, 1.2, 1.6, 2.4} {
		for _, name := range []float64{2, 4, 6, 8} {
			for _, detail := range []float64{0, 0.1, 0.2, 0.5} {
				for _, b := range []float64{0.5, 0.75} {
					for _, pow := range []float64{1, 1.5, 2} {
						p := registry.DefaultSearchParams()
						p.K1, p.IDFPower = k1, pow
						p.Fields[registry.FieldName].Weight = name
						p.Fields[registry.FieldDetail].Weight = detail
						p.Fields[registry.FieldDescription].B = b
						p.Fields[registry.FieldDetail].B = b
						all = append(all, tried{fmt.Sprintf("k1 %.1f, name %g, detail %g, b %g, idf^%g", k1, name, detail, b, pow), p, e.recall(p, a)})
					}
				}
			}
		}
	}
	// Best on A by recall at 5, then at 1.
	slices.SortStableFunc(all, func(x, y tried) int {
		if x.r.At5 != y.r.At5 {
			return y.r.At5 - x.r.At5
		}
		return y.r.At1 - x.r.At1
	})
	fmt.Printf("%d settings, ranked on half A (%d queries); half B (%d) is not looked at to choose\n\n", len(all), len(a), len(b))
	header()
	for _, t := range all[:min(*topN, len(all))] {
		e.print(t.name, t.p)
	}

	fmt.Println("\nthe defaults, each part taken away, and the baselines")
	header()
	def := registry.DefaultSearchParams()
	e.print("defaults", def)
	defer e.printBaselines()
	for _, v := range []struct {
		name   string
		change func(*registry.SearchParams)
	}{
		{"request words kept", func(p *registry.SearchParams) { p.RequestWords = true }},
		{"idf not squared", func(p *registry.SearchParams) { p.IDFPower = 1 }},
		{"name weighed as description", func(p *registry.SearchParams) { p.Fields[registry.FieldName].Weight = 1 }},
		{"detail weighed as description", func(p *registry.SearchParams) { p.Fields[registry.FieldDetail].Weight = 1 }},
		{"detail left out", func(p *registry.SearchParams) { p.Fields[registry.FieldDetail].Weight = 0 }},
		{"title weighed as description", func(p *registry.SearchParams) { p.Fields[registry.FieldTitle].Weight = 1 }},
		{"word vectors left out", func(p *registry.SearchParams) { p.Dense = 0 }},
		{"word vectors weighed 1", func(p *registry.SearchParams) { p.Dense = 1 }},
		{"word vectors weighed 3", func(p *registry.SearchParams) { p.Dense = 3 }},
		{"detail in the word vectors, 0.3", func(p *registry.SearchParams) { p.DenseFields[registry.FieldDetail] = 0.3 }},
		{"found by word vectors alone from 0.5", func(p *registry.SearchParams) { p.DenseAlone = 0.5 }},
		{"... with no share of the best's cosine", func(p *registry.SearchParams) { p.DenseAloneOfBest = 0 }},
		{"word vectors only reorder shared words", func(p *registry.SearchParams) { p.DenseAlone = 2 }},
	} {
		p := def
		v.change(&p)
		e.print(v.name, p)
	}
}

// eval holds the tools and the queries.
type eval struct {
	docs        []registry.SearchDoc
	a, b, multi []searcheval.Query
}

func (e eval) recall(p registry.SearchParams, qs []searcheval.Query) searcheval.Recall {
	x := registry.NewIndexWith(e.docs, p, assets.Vectors())
	res := make([][]string, len(qs))
	for i, q := range qs {
		for _, h := range x.Search(q.Text, 5) {
			res[i] = append(res[i], h.Name)
		}
	}
	return searcheval.Measure(qs, res)
}

// printBaselines prints plain BM25 over the name and description, and the
// same with the ranking's words and stems.
func (e eval) printBaselines() {
	e.print("BM25, name + description, stems", searcheval.AnalysedBaseline())
	var names, descs []string
	for _, d := range e.docs {
		names, descs = append(names, d.Name), append(descs, d.Description)
	}
	base := searcheval.NewBaseline(names, descs)
	rec := func(qs []searcheval.Query) searcheval.Recall {
		res := make([][]string, len(qs))
		for i, q := range qs {
			res[i] = base.Search(q.Text, 5)
		}
		return searcheval.Measure(qs, res)
	}
	e.printRecall("BM25, name + description, plain", rec(e.a), rec(e.b), rec(e.multi))
}

func header() {
	fmt.Printf("%-46s %13s %13s %13s %8s\n", "", "A @1  @5", "B @1  @5", "all @1  @5", "two @5")
}

func (e eval) print(name string, p registry.SearchParams) {
	e.printRecall(name, e.recall(p, e.a), e.recall(p, e.b), e.recall(p, e.multi))
}

func (e eval) printRecall(name string, ra, rb, rm searcheval.Recall) {
	all := searcheval.Recall{N: ra.N + rb.N, At1: ra.At1 + rb.At1, At5: ra.At5 + rb.At5}
	pct := func(r searcheval.Recall, n int) float64 { return 100 * r.Rate(n) }
	fmt.Printf("%-46s %5.1f %6.1f %6.1f %6.1f %6.1f %6.1f %8.1f\n", name,
		pct(ra, ra.At1), pct(ra, ra.At5), pct(rb, rb.At1), pct(rb, rb.At5), pct(all, all.At1), pct(all, all.At5), pct(rm, rm.At5))
}
