package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/searcheval"
)

const searchList = `[
 {"name": "WeatherTool", "description": "Provide you with the latest weather information."},
 {"name": "NewsTool", "description": "Stay connected to global events with our up-to-date news around the world."},
 {"name": "FinanceTool", "description": "Stay informed with the latest financial updates on stocks, cryptocurrencies, and more."},
 {"name": "stellarexplorer", "description": "Explore space through images.", "description_for_model": "Photos from NASA and the Mars rovers.", "name_for_human": "Space Photo Explorer"}
]`

// searchIn runs toolroute search in this process with stdin, from a folder
// holding tools.json (searchList), bad.json (bad) and empty.json ([]), with
// the user's cache folder (where the tools' vectors are kept) in it too.
func searchIn(t *testing.T, bad, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"tools.json": searchList, "bad.json": bad, "empty.json": "[]"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	var out, errOut bytes.Buffer
	code = run(append([]string{"search"}, args...), strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// The ranking by words and meaning: each line holds every tool (there are
// four, fewer than -k 5) best first, whether or not the query shares a word
// with the best.
func TestSearchCommand(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		// wantFirst is each line's first name ("" for a blank line), each
		// non-blank line holding wantN names.
		wantFirst []string
		wantN     int
	}{
		{"one line per query, tab-separated, best first", "What's the weather tomorrow?\nbitcoin stocks and the news\nmars rover photos\n", []string{"--tools", "tools.json"},
			[]string{"WeatherTool", "FinanceTool", "stellarexplorer"}, 4},
		{"by meaning, sharing no word with the tool", "will it rain in Oslo\nwhat happened in the world today\npictures of galaxies\n", []string{"--tools", "tools.json"},
			[]string{"WeatherTool", "NewsTool", "stellarexplorer"}, 4},
		{"a blank line gives a blank line", "weather\n\n   \nnews\n", []string{"--tools", "tools.json"},
			[]string{"WeatherTool", "", "", "NewsTool"}, 4},
		{"CRLF and no final newline", "weather\r\nnews", []string{"--tools", "tools.json"}, []string{"WeatherTool", "NewsTool"}, 4},
		{"no input, no output", "", []string{"--tools", "tools.json"}, nil, 0},
		{"-k", "the latest news about stocks\n", []string{"--tools", "tools.json", "-k", "1"}, []string{"FinanceTool"}, 1},
		{"flags after", "news\n", []string{"-k", "3", "--tools=tools.json"}, []string{"NewsTool"}, 3},
		{"no cache", "weather\n", []string{"--tools", "tools.json", "--cache", ""}, []string{"WeatherTool"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := searchIn(t, "", tt.stdin, tt.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var first []string
			for i, line := range strings.SplitAfter(out, "\n") {
				if line == "" {
					continue
				}
				if !strings.HasSuffix(line, "\n") {
					t.Fatalf("line %d has no newline: %q", i+1, line)
				}
				line = strings.TrimSuffix(line, "\n")
				if line == "" {
					first = append(first, "")
					continue
				}
				names := strings.Split(line, "\t")
				if len(names) != tt.wantN {
					t.Errorf("line %d: %d names, want %d: %q", i+1, len(names), tt.wantN, line)
				}
				first = append(first, names[0])
			}
			if diff := cmp.Diff(tt.wantFirst, first); diff != "" {
				t.Errorf("first names (-want +got):\n%s\noutput:\n%s", diff, out)
			}
		})
	}
}

// --words ranks as search_tools does in the hosts, by BM25F and word
// vectors: a tool near the query in meaning by its words' vectors is found,
// and a query near no tool gets a blank line.
func TestSearchCommandWords(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"one line per query, tab-separated", "What's the weather tomorrow?\nbitcoin stocks and the news\nmars rover photos\n", nil,
			"WeatherTool\nNewsTool\tFinanceTool\nstellarexplorer\n"},
		{"a tool near in meaning, by word vectors", "What is Bitcoin trading at?\n", nil, "FinanceTool\n"},
		{"a query that matches nothing gives a blank line", "quantum chromodynamics\nweather\n", nil, "\nWeatherTool\n"},
		{"-k", "news about the world\n", []string{"-k", "1"}, "NewsTool\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := searchIn(t, "", tt.stdin, append([]string{"--tools", "tools.json", "--words"}, tt.args...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// The tools' vectors are kept in the user's cache folder: a second run
// reads them and answers the same; a damaged file is embedded again.
func TestSearchCommandCache(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(tools, []byte(searchList), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	search := func() string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run([]string{"search", "--tools", tools, "--cache", cache}, strings.NewReader("weather\nbitcoin\n"), &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return out.String()
	}
	first := search()
	files, err := filepath.Glob(filepath.Join(cache, "use-*.vec"))
	if err != nil || len(files) != 1 {
		t.Fatalf("cache files %v (%v), want one", files, err)
	}
	if again := search(); again != first {
		t.Errorf("from the cache:\n%s\nwant\n%s", again, first)
	}
	if err := os.WriteFile(files[0], []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := search(); again != first {
		t.Errorf("after damage:\n%s\nwant\n%s", again, first)
	}
	if st, err := os.Stat(files[0]); err != nil || st.Size() == int64(len("damaged")) {
		t.Errorf("the damaged file was not written again: %v", err)
	}
}

func TestSearchCommandJSON(t *testing.T) {
	out, stderr, code := searchIn(t, "", "weather news\n\n", "--tools", "tools.json", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out)
	}
	type answer struct {
		Query string `json:"query"`
		Tools []struct {
			Name  string  `json:"name"`
			Score float64 `json:"score"`
		} `json:"tools"`
	}
	var first, blank answer
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &blank); err != nil {
		t.Fatal(err)
	}
	if first.Query != "weather news" || len(first.Tools) != 4 {
		t.Errorf("first answer %+v, want the four tools", first)
	}
	for i := 1; i < len(first.Tools); i++ {
		if first.Tools[i].Score > first.Tools[i-1].Score {
			t.Errorf("first answer's scores are not best first: %+v", first.Tools)
		}
	}
	if blank.Query != "" || blank.Tools == nil || len(blank.Tools) != 0 {
		t.Errorf("blank answer %s, want an empty tools array", lines[1])
	}
}

func TestSearchCommandErrors(t *testing.T) {
	tests := []struct {
		name, bad string
		args      []string
		wantCode  int
		wantErr   string
	}{
		{"no --tools", "", nil, 2, "--tools FILE.json is required"},
		{"a positional argument", "", []string{"--tools", "tools.json", "weather"}, 2, `unexpected "weather": the queries come on standard input`},
		{"-k 0", "", []string{"--tools", "tools.json", "-k", "0"}, 2, "-k 0: give 1 or more"},
		{"unknown flag", "", []string{"--top", "3"}, 2, "flag provided but not defined: -top"},
		{"no such file", "", []string{"--tools", "missing.json"}, 1, "open missing.json: no such file or directory"},
		{"not JSON", "[\n {\"name\": \"a\"\n]", []string{"--tools", "bad.json"}, 1, "bad.json: registry: bad tool list: not JSON: invalid character ']' after object key:value pair (line 3)"},
		{"not a list", `{"name": "a"}`, []string{"--tools", "bad.json"}, 1, "bad.json: registry: bad tool list: want a JSON array of tools"},
		{"no name", `[{"name": "a"}, {"description": "what"}]`, []string{"--tools", "bad.json"}, 1, `bad.json: registry: bad tool list: tool 2 has no "name": {"description": "what"}`},
		{"duplicate names", `[{"name": "a"}, {"name": "a"}]`, []string{"--tools", "bad.json"}, 1, `bad.json: registry: bad tool list: tools 1 and 2 are both named "a": names must be unique`},
		{"no tools", "", []string{"--tools", "empty.json"}, 1, "empty.json: it lists no tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := searchIn(t, tt.bad, "weather\n", tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, stderr, tt.wantCode, tt.wantErr)
			}
		})
	}
}

// The program as the benchmark's judges run it: the binary, MetaTool's
// tools and its development queries on standard input, one answer line per
// query. Skipped unless TOOLROUTE_METATOOL names the folder of MetaTool's
// data, which is not part of the repository (docs/development.md).
func TestSearchMetaTool(t *testing.T) {
	d, err := searcheval.Load(searcheval.Dir())
	if err != nil {
		t.Skipf("no MetaTool data: %v", err)
	}
	var stdin strings.Builder
	for _, q := range d.Single {
		stdin.WriteString(q.Text + "\n")
	}
	u := newUser(t, nil, "")
	res := u.run(stdin.String(), "search", "--tools", mustAbs(t, d.ToolsFile))
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	if len(lines) != len(d.Single) {
		t.Fatalf("%d lines for %d queries", len(lines), len(d.Single))
	}
	results := make([][]string, len(lines))
	for i, l := range lines {
		if l != "" {
			results[i] = strings.Split(l, "\t")
		}
		if len(results[i]) > 5 {
			t.Fatalf("line %d has %d names", i+1, len(results[i]))
		}
	}
	// A floor under what BENCHMARKS.md reports (81.3 % and 55.6 %), to
	// catch a ranking that broke, not to measure it.
	r := searcheval.Measure(d.Single, results)
	if r.Rate(r.At5) < 0.75 || r.Rate(r.At1) < 0.5 {
		t.Errorf("recall at 1 %.3f, at 5 %.3f: the ranking has got worse", r.Rate(r.At1), r.Rate(r.At5))
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
