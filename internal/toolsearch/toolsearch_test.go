package toolsearch

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/sentenc"
	"github.com/toolroute/toolroute/registry"
)

var docs = []registry.SearchDoc{
	{Name: "WeatherTool", Description: "Provide you with the latest weather information."},
	{Name: "FinanceTool", Description: "Stay informed with the latest financial updates on stocks, cryptocurrencies, and more."},
	{Name: "space_photos", Description: "Explore space through images.", Detail: "Photos from NASA and the Mars rovers."},
}

func TestTexts(t *testing.T) {
	tests := []struct {
		doc              registry.SearchDoc
		wantName, wantDe string
	}{
		{docs[0], "Weather Tool. Provide you with the latest weather information.", "Provide you with the latest weather information."},
		{docs[2], "space photos. Explore space through images.", "Photos from NASA and the Mars rovers."},
		{registry.SearchDoc{Name: "get-PDFPageCount", Description: "d", Detail: "  "}, "get PDFPage Count. d", "d"},
	}
	for _, tt := range tests {
		name, detail := Texts(tt.doc)
		if name != tt.wantName || detail != tt.wantDe {
			t.Errorf("Texts(%s) = %q, %q; want %q, %q", tt.doc.Name, name, detail, tt.wantName, tt.wantDe)
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Find flights. Book hotels!  Pay? Yes.", []string{"Find flights", "Book hotels", "Yes."}},
		{"Version 1.2 of the tool.\nIt reads PDFs (e.g. reports).", []string{"Version 1.2 of the tool", "It reads PDFs (e.g", "reports)."}},
		{"Ok. Go.", []string{"Ok. Go."}},
		{"", []string{""}},
	}
	for _, tt := range tests {
		if got := Sentences(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestDetailIsTheMeanOfItsSentences(t *testing.T) {
	enc, err := sentenc.Default()
	if err != nil {
		t.Fatal(err)
	}
	q := enc.Embed("pictures of Mars")
	doc := registry.SearchDoc{Name: "x", Description: "d", Detail: "Photos from NASA. Photos of the Mars rovers."}
	r, err := New([]registry.SearchDoc{doc}, Options{Weights: DefaultWeights(), Encoder: enc})
	if err != nil {
		t.Fatal(err)
	}
	want := (sentenc.Dot(q, enc.Embed("Photos from NASA")) + sentenc.Dot(q, enc.Embed("Photos of the Mars rovers."))) / 2
	got := r.Parts("pictures of Mars").Detail[0]
	if math.Abs(got-float64(want)) > 1e-5 {
		t.Errorf("detail part = %v, want the mean of the sentences' cosines %v", got, want)
	}
}

func TestTopOrdersByScoreThenName(t *testing.T) {
	got := Top([]string{"b", "a", "c", "d"}, []float64{1, 1, 2, -1}, 3)
	want := []registry.SearchHit{{Name: "c", Score: 2}, {Name: "a", Score: 1}, {Name: "b", Score: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Top (-want +got):\n%s", diff)
	}
}

func TestEmbedAllKeepsOrder(t *testing.T) {
	enc, err := sentenc.Default()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a long text about the weather in many cities and for many days", "b", "", "stocks"}
	got := EmbedAll(enc, texts)
	for i, text := range texts {
		if !slices.Equal(got[i], enc.Embed(text)) {
			t.Errorf("vector %d is not %q's", i, text)
		}
	}
}

func TestSearchRanksByMeaning(t *testing.T) {
	r, err := New(docs, Options{Weights: DefaultWeights()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ query, want string }{
		{"will it rain in Oslo tomorrow", "WeatherTool"},
		{"how much is an ether worth", "FinanceTool"},
		{"pictures taken on Mars", "space_photos"},
	}
	for _, tt := range tests {
		hits := r.Search(tt.query, 2)
		if len(hits) != 2 || hits[0].Name != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, hits, tt.want)
		}
	}
	if hits := r.Search("  ", 5); hits != nil {
		t.Errorf("a blank query got %v", hits)
	}
	// The parts: BM25F divided by its best, cosines at most 1.
	p := r.Parts("weather")
	if p.BM25[0] != 1 || p.BM25[1] != 0 || p.Name[0] > 1 || p.Detail[0] <= p.Detail[1] {
		t.Errorf("parts %+v", p)
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	enc, err := sentenc.Default()
	if err != nil {
		t.Fatal(err)
	}
	first, err := New(docs, Options{Weights: DefaultWeights(), CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Fatalf("cache folder holds %v, want one file", files)
	}
	// A file of the right size is read as it is: write one whose vectors
	// are all those of "x" and see the ranker use them.
	x := enc.Embed("x")
	fake := make([][]float32, 2*len(docs))
	for i := range fake {
		fake[i] = x
	}
	if err := writeCache(files[0], fake); err != nil {
		t.Fatal(err)
	}
	second, err := New(docs, Options{Weights: DefaultWeights(), CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(second.name[0], x) || slices.Equal(first.name[0], x) {
		t.Errorf("the second ranker did not read the cache file")
	}
	// Other texts, another file.
	other := slices.Clone(docs)
	other[0].Description = "Weather forecasts."
	otherTexts, _ := textsOf(other)
	texts, _ := textsOf(docs)
	if cacheName(otherTexts) == cacheName(texts) {
		t.Errorf("two tool lists share a cache name")
	}
	// A file of the wrong size is ignored and written again.
	if err := os.WriteFile(files[0], []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := New(docs, Options{Weights: DefaultWeights(), CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(third.name[0], first.name[0]) {
		t.Errorf("a damaged cache file was used")
	}
	if st, err := os.Stat(files[0]); err != nil || st.Size() != int64(2*len(docs)*sentenc.Dim*4) {
		t.Errorf("the damaged file was not written again: %v", err)
	}
}

// SearchAmong ranks as Search does, leaving out the tools not named.
func TestSearchAmong(t *testing.T) {
	r, err := New(docs, Options{Weights: DefaultWeights()})
	if err != nil {
		t.Fatal(err)
	}
	all := r.Search("pictures taken on Mars", 3)
	got := r.SearchAmong("pictures taken on Mars", 3, []string{"FinanceTool", "WeatherTool", "not_a_tool"})
	var want []registry.SearchHit
	for _, h := range all {
		if h.Name != "space_photos" {
			want = append(want, h)
		}
	}
	if len(all) != 3 || all[0].Name != "space_photos" {
		t.Fatalf("Search = %v, want space_photos first of 3", all)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SearchAmong (-want +got):\n%s", diff)
	}
	if got := r.SearchAmong("mars", 3, nil); got != nil {
		t.Errorf("no candidates found %v", got)
	}
}

// Writing a tool list's vectors removes the other lists' files unused for
// a week, and keeps recent ones, the files of other names, and a file
// just read (reading marks it used).
func TestCachePrunes(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-8 * 24 * time.Hour)
	for _, name := range []string{"use-old.vec", "use-recent.vec", "other.txt"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != "use-recent.vec" {
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := New(docs, Options{Weights: DefaultWeights(), CacheDir: dir}); err != nil {
		t.Fatal(err)
	}
	texts, _ := textsOf(docs)
	mine := cacheName(texts)
	names := func() []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	want := []string{"other.txt", mine, "use-recent.vec"}
	slices.Sort(want)
	if got := names(); !slices.Equal(got, want) {
		t.Fatalf("the cache folder holds %q, want %q", got, want)
	}
	// Reading a file marks it used: aged, then read, it stays through
	// another list's write.
	if err := os.Chtimes(filepath.Join(dir, mine), old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := New(docs, Options{Weights: DefaultWeights(), CacheDir: dir}); err != nil {
		t.Fatal(err)
	}
	other := slices.Clone(docs)
	other[0].Description = "Weather forecasts."
	if _, err := New(other, Options{Weights: DefaultWeights(), CacheDir: dir}); err != nil {
		t.Fatal(err)
	}
	otherTexts, _ := textsOf(other)
	want = append(want, cacheName(otherTexts))
	slices.Sort(want)
	if got := names(); !slices.Equal(got, want) {
		t.Errorf("after a read and another list's write the folder holds %q, want %q", got, want)
	}
}
