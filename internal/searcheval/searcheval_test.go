package searcheval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMeasure(t *testing.T) {
	qs := []Query{
		{"a", []string{"A"}},
		{"b", []string{"B"}},
		{"c", []string{"C"}},
		{"two", []string{"A", "B"}},
		{"two, one found", []string{"A", "Z"}},
	}
	results := [][]string{
		{"A", "x"},
		{"x", "y", "z", "w", "B"},
		{"x", "y", "z", "w", "v", "C"},
		{"B", "x", "A"},
		{"A", "B"},
	}
	got := Measure(qs, results)
	if diff := cmp.Diff(Recall{N: 5, At1: 1, At5: 3}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Measure(qs, nil); got.At5 != 0 || got.N != 5 {
		t.Errorf("no results: %+v", got)
	}
}

func TestHalves(t *testing.T) {
	qs := []Query{{Text: "0"}, {Text: "1"}, {Text: "2"}, {Text: "3"}, {Text: "4"}}
	a, b := Halves(qs)
	if diff := cmp.Diff([]Query{{Text: "0"}, {Text: "2"}, {Text: "4"}}, a); diff != "" {
		t.Errorf("a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Query{{Text: "1"}, {Text: "3"}}, b); diff != "" {
		t.Errorf("b (-want +got):\n%s", diff)
	}
}

func TestBaseline(t *testing.T) {
	b := NewBaseline([]string{"WeatherTool", "news", "zeta", "alpha"},
		[]string{"Weather forecasts", "The news of the day", "Currency rates", "Currency rates"})
	if diff := cmp.Diff([]string{"WeatherTool"}, b.Search("weather tomorrow", 5)); diff != "" {
		t.Errorf("weather (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"alpha", "zeta"}, b.Search("currency", 5)); diff != "" {
		t.Errorf("ties by name (-want +got):\n%s", diff)
	}
	if got := b.Search("weathertool", 5); len(got) != 1 {
		t.Errorf("a name is one word to plain BM25: %v", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tools.json", `[{"name": "A", "description": "a"}]`)
	write("queries-dev.csv", "query,tool\n\"Hello, world\",A\nplain,B\n")
	write("multi-dev.json", `[{"query": "both", "tool": ["A", "B"]}]`)
	d, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Query{{"Hello, world", []string{"A"}}, {"plain", []string{"B"}}}, d.Single); diff != "" {
		t.Errorf("single (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Query{{"both", []string{"A", "B"}}}, d.Multi); diff != "" {
		t.Errorf("multi (-want +got):\n%s", diff)
	}
	write("queries-dev.csv", "q,t\nx,A\n")
	if _, err := Load(dir); err == nil {
		t.Error("a wrong header loaded")
	}
}

// Without MetaTool's data, which is not in the repository, Load says which
// variable names it and where to read how to get it.
func TestLoadNoData(t *testing.T) {
	for _, tt := range []struct{ name, dir string }{
		{name: "no folder given", dir: ""},
		{name: "a folder without tools.json", dir: t.TempDir()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.dir)
			if !errors.Is(err, errNoData) {
				t.Fatalf("Load(%q): %v, want errNoData", tt.dir, err)
			}
			for _, want := range []string{EnvDir, "docs/development.md"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Load(%q): %v does not name %s", tt.dir, err, want)
				}
			}
		})
	}
}
