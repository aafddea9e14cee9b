package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/searcheval"
	"github.com/toolroute/toolroute/internal/toolsearch"
	"github.com/toolroute/toolroute/registry"
)

const searchSection = "8. Tool search"

// searchRows measures the ranking of search_tools on MetaTool's development
// queries in dir, through `toolroute search` as the held-out queries will be
// judged: recall at 1 and 5 on all of them and on each half (the weights
// were tuned on half A), both tools of the two-tool queries in the top 5,
// BM25F alone and the baselines beside them, and the time a query takes.
func searchRows(count int, dir string) ([]row, error) {
	d, err := searcheval.Load(dir)
	if err != nil {
		return []row{{searchSection, "recall", "not measured: " + err.Error(), "MetaTool's development data (TOOLROUTE_METATOOL)"}}, nil
	}
	tmp, err := os.MkdirTemp("", "benchreport-search-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "toolroute")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/toolroute").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/toolroute: %v\n%s", err, out)
	}
	// The command on the single-tool queries, timed, then on the others;
	// the first run embeds the tools into an empty cache folder, the
	// others read them from it.
	cache := filepath.Join(tmp, "cache")
	var single, multi [][]string
	var wall []float64
	for range count {
		start := time.Now()
		if single, err = runSearchCommand(bin, d.ToolsFile, cache, d.Single); err != nil {
			return nil, err
		}
		wall = append(wall, float64(time.Since(start)))
	}
	if multi, err = runSearchCommand(bin, d.ToolsFile, cache, d.Multi); err != nil {
		return nil, err
	}
	resA, resB := halves(single)
	qa, qb := searcheval.Halves(d.Single)
	all, a, b, two := searcheval.Measure(d.Single, single), searcheval.Measure(qa, resA), searcheval.Measure(qb, resB), searcheval.Measure(d.Multi, multi)

	docs, err := registry.ParseToolList(d.Tools)
	if err != nil {
		return nil, err
	}
	var names, descs []string
	for _, doc := range docs {
		names, descs = append(names, doc.Name), append(descs, doc.Description)
	}
	plain := searcheval.NewBaseline(names, descs)
	plainRank := func(q string) []string { return plain.Search(q, 5) }
	analysed := registry.NewIndexWith(docs, searcheval.AnalysedBaseline(), nil)
	analysedRank := func(q string) []string { return hitNames(analysed.Search(q, 5)) }
	lexical := registry.DefaultSearchParams()
	lexical.Dense = 0
	lexicalIndex := registry.NewIndexWith(docs, lexical, nil)
	lexicalRank := func(q string) []string { return hitNames(lexicalIndex.Search(q, 5)) }

	words := registry.NewIndex(docs, assets.Vectors())
	wordsRank := func(q string) []string { return hitNames(words.Search(q, 5)) }

	// The folder is the reader's own: named by the variable that gives it.
	cmd := "`toolroute search --tools $" + searcheval.EnvDir + "/tools.json < queries`"
	how := cmd + ", scored by internal/searcheval; the weights were chosen on half A (`go run ./internal/searcheval/tune -fusion`)"
	rate := func(r searcheval.Recall, n int) string { return fmt.Sprintf("%.1f%%", 100*r.Rate(n)) }
	recall := func(r searcheval.Recall) string {
		return fmt.Sprintf("%s at 1, %s at 5 (%d queries)", rate(r, r.At1), rate(r, r.At5), r.N)
	}
	baseline := func(rank func(string) []string) string {
		s, m := rankAll(rank, d.Single), rankAll(rank, d.Multi)
		r, t := searcheval.Measure(d.Single, s), searcheval.Measure(d.Multi, m)
		return fmt.Sprintf("%s at 1, %s at 5; two-tool queries both in the top 5: %s", rate(r, r.At1), rate(r, r.At5), rate(t, t.At5))
	}
	rows := []row{
		{searchSection, "recall, all development queries", recall(all), how},
		{searchSection, "recall, half A (the weights were tuned on it)", recall(a), how},
		{searchSection, "recall, half B (not looked at to choose them)", recall(b), how},
		{searchSection, "two-tool queries: both tools in the top 5", fmt.Sprintf("%s (%d of %d)", rate(two, two.At5), two.At5, two.N), how},
		{searchSection, "search_tools' ranking in every host: BM25F and word vectors (`toolroute search --words`)", baseline(wordsRank),
			"registry.NewIndex with the default constants, chosen on half A (`go run ./internal/searcheval/tune`)"},
		{searchSection, "baseline: plain BM25 over name and description", baseline(plainRank),
			"internal/searcheval.Baseline: k1 1.2, b 0.75, lower-case runs of letters and digits, no stemming, no stop words"},
		{searchSection, "baseline: BM25 over name and description with the ranking's words and stems", baseline(analysedRank),
			"internal/searcheval.AnalysedBaseline: the ranking's text analysis with one field of each, k1 1.2, b 0.75, idf not squared, request words kept"},
		{searchSection, "BM25F alone, without word vectors", baseline(lexicalRank),
			"registry.DefaultSearchParams with Dense 0 and no vectors"},
		{searchSection, "the goal", fmt.Sprintf("80%% at 5 on the held-out queries: %.1f%% on the development ones, %.1f%% on half B", 100*all.Rate(all.At5), 100*b.Rate(b.At5)), "the held-out queries judge it"},
	}

	// Time: the whole command per query (the first run, which embeds the
	// tools, apart), and in process on the first 300 queries.
	warm := wall
	if len(wall) > 1 {
		warm = wall[1:]
	}
	perQuery := median(warm) / float64(len(d.Single))
	timed := d.Single[:min(300, len(d.Single))]
	var build, search []float64
	for range count {
		start := time.Now()
		r, err := toolsearch.New(docs, toolsearch.Options{Weights: toolsearch.DefaultWeights()})
		if err != nil {
			return nil, err
		}
		build = append(build, float64(time.Since(start)))
		start = time.Now()
		for _, q := range timed {
			r.Search(q.Text, 5)
		}
		search = append(search, float64(time.Since(start))/float64(len(timed)))
	}
	rows = append(rows,
		row{searchSection, "time per query, the command", fmt.Sprintf("%s (%d queries in %s, the process's start included, the tools' vectors from the cache; the first run, which embeds them, %s)", duration(perQuery), len(d.Single), duration(median(warm)), duration(wall[0])),
			fmt.Sprintf("%s, wall time (%d runs), queries ranked on all processors", cmd, count)},
		row{searchSection, "time per query, in process", fmt.Sprintf("%s per Search, one at a time; %s to embed the %d tools (a name text and each sentence of a detail) on %d processors", duration(median(search)), duration(median(build)), len(docs), runtime.GOMAXPROCS(0)),
			fmt.Sprintf("internal/toolsearch New and Ranker.Search on the first %d queries (%d runs)", len(timed), count)},
	)
	return rows, nil
}

// runSearchCommand runs `toolroute search` with one query a line and
// returns the names of each line of its answer.
func runSearchCommand(bin, tools, cache string, qs []searcheval.Query) ([][]string, error) {
	var in bytes.Buffer
	for _, q := range qs {
		if strings.ContainsAny(q.Text, "\r\n") {
			return nil, fmt.Errorf("query %q spans lines", q.Text)
		}
		in.WriteString(q.Text + "\n")
	}
	cmd := exec.Command(bin, "search", "--tools", tools, "--cache", cache)
	cmd.Stdin = &in
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("toolroute search: %v: %s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(qs) {
		return nil, fmt.Errorf("toolroute search answered %d lines for %d queries", len(lines), len(qs))
	}
	res := make([][]string, len(lines))
	for i, l := range lines {
		if l != "" {
			res[i] = strings.Split(l, "\t")
		}
	}
	return res, nil
}

// halves splits results as searcheval.Halves splits the queries.
func halves(res [][]string) (a, b [][]string) {
	for i, r := range res {
		if i%2 == 0 {
			a = append(a, r)
		} else {
			b = append(b, r)
		}
	}
	return a, b
}

func rankAll(rank func(string) []string, qs []searcheval.Query) [][]string {
	out := make([][]string, len(qs))
	for i, q := range qs {
		out[i] = rank(q.Text)
	}
	return out
}

func hitNames(hits []registry.SearchHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

// replaceSection puts table (the rendered rows of one section, from its
// "## " heading) into doc in place of that section, where it stands, or
// before the notes when doc has none, and the notes in place of doc's:
// `-search` rewrites its own figures and leaves the others as the last make
// bench wrote them.
func replaceSection(doc, table, notes string) string {
	heading := strings.TrimPrefix(table, "\n")
	heading = heading[:strings.Index(heading, "\n")]
	if i := strings.Index(doc, "\n## Where figures miss their targets"); i >= 0 {
		doc = doc[:i] + "\n"
	}
	if i := strings.Index(doc, "\n"+heading+"\n"); i >= 0 {
		end := len(doc)
		if j := strings.Index(doc[i+1:], "\n## "); j >= 0 {
			end = i + 1 + j
		}
		rest := strings.TrimRight(doc[end:], "\n")
		if rest != "" {
			rest += "\n"
		}
		return strings.TrimRight(doc[:i], "\n") + "\n" + table + rest + notes
	}
	return strings.TrimRight(doc, "\n") + "\n" + table + notes
}
