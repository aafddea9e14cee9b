// Package searcheval measures tool search on MetaTool's labelled queries
// (the benchmark's development split, kept outside the repository: the
// folder TOOLROUTE_METATOOL names; docs/development.md says where to get
// it): it reads the data, splits the development queries
// into two halves, and counts how often the labelled tools are among the
// first results. `make bench` (internal/benchreport) and the tuning command
// (internal/searcheval/tune) use it.
package searcheval

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/toolroute/toolroute/registry"
)

// EnvDir is the environment variable naming the folder of MetaTool's
// data: tools.json, queries-dev.csv and multi-dev.json.
const EnvDir = "TOOLROUTE_METATOOL"

// Dir is the folder EnvDir names, or "" when it is not set.
func Dir() string { return os.Getenv(EnvDir) }

// errNoData says what to do when the data is not there: it is not part of
// the repository.
var errNoData = errors.New("searcheval: no MetaTool data: set " + EnvDir + " to the folder of its tools.json, queries-dev.csv and multi-dev.json (docs/development.md says where to get them)")

// Query is a user's request and the tools that answer it.
type Query struct {
	Text  string
	Tools []string
}

// Data is MetaTool's development split.
type Data struct {
	// ToolsFile is the path of tools.json, which `toolroute search --tools`
	// reads.
	ToolsFile string
	Tools     []byte
	// Single are the queries one tool answers, in the file's order; Multi
	// those that need two.
	Single, Multi []Query
}

// Load reads the data in dir: tools.json, queries-dev.csv, multi-dev.json.
// An empty dir, or one without tools.json, is errNoData.
func Load(dir string) (*Data, error) {
	if dir == "" {
		return nil, errNoData
	}
	d := &Data{ToolsFile: filepath.Join(dir, "tools.json")}
	var err error
	if d.Tools, err = os.ReadFile(d.ToolsFile); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w (%v)", errNoData, err)
	} else if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "queries-dev.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("queries-dev.csv: %w", err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], []string{"query", "tool"}) {
		return nil, fmt.Errorf("queries-dev.csv: want the header query,tool")
	}
	for _, r := range rows[1:] {
		d.Single = append(d.Single, Query{r[0], []string{r[1]}})
	}
	b, err := os.ReadFile(filepath.Join(dir, "multi-dev.json"))
	if err != nil {
		return nil, err
	}
	var multi []struct {
		Query string   `json:"query"`
		Tool  []string `json:"tool"`
	}
	if err := json.Unmarshal(b, &multi); err != nil {
		return nil, fmt.Errorf("multi-dev.json: %w", err)
	}
	for _, m := range multi {
		d.Multi = append(d.Multi, Query{m.Query, m.Tool})
	}
	return d, nil
}

// AnalysedBaseline is BM25 (k1 1.2, b 0.75) over the name and description
// alone, with the ranking's own words and stems: what the ranking's fields,
// weights and word lists add beyond its text analysis.
func AnalysedBaseline() registry.SearchParams {
	var p registry.SearchParams
	p.K1, p.IDFPower, p.RequestWords = 1.2, 1, true
	p.Fields[registry.FieldName] = registry.FieldWeight{Weight: 1, B: 0.75}
	p.Fields[registry.FieldDescription] = registry.FieldWeight{Weight: 1, B: 0.75}
	return p
}

// Halves splits queries into two halves, alternately by position: the first,
// third, ... in a, the second, fourth, ... in b. The file is a random sample,
// so each half is one too.
func Halves(qs []Query) (a, b []Query) {
	for i, q := range qs {
		if i%2 == 0 {
			a = append(a, q)
		} else {
			b = append(b, q)
		}
	}
	return a, b
}

// Recall is how often the labelled tools were found.
type Recall struct {
	N int
	// At1 and At5 count the queries whose tools are all among the first one
	// and first five results. A two-tool query is never found at 1.
	At1, At5 int
}

// Rate is n as a fraction of r.N.
func (r Recall) Rate(n int) float64 {
	if r.N == 0 {
		return 0
	}
	return float64(n) / float64(r.N)
}

// Measure scores results (the names ranked for each query, best first)
// against the queries' labels.
func Measure(qs []Query, results [][]string) Recall {
	r := Recall{N: len(qs)}
	for i, q := range qs {
		var got []string
		if i < len(results) {
			got = results[i]
		}
		if allIn(q.Tools, got, 1) {
			r.At1++
		}
		if allIn(q.Tools, got, 5) {
			r.At5++
		}
	}
	return r
}

func allIn(want, got []string, k int) bool {
	got = got[:min(k, len(got))]
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return len(want) > 0
}
