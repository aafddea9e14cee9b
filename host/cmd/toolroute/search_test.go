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
// holding tools.json (searchList), bad.json (bad) and empty.json ([]).
func searchIn(t *testing.T, bad, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"tools.json": searchList, "bad.json": bad, "empty.json": "[]"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	code = run(append([]string{"search"}, args...), strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestSearchCommand(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"one line per query, tab-separated", "What's the weather tomorrow?\nbitcoin stocks and the news\nmars rover photos\n", []string{"--tools", "tools.json"},
			"WeatherTool\nNewsTool\tFinanceTool\nstellarexplorer\n"},
		{"a blank line gives a blank line", "weather\n\n   \nmars rover photos\n", []string{"--tools", "tools.json"},
			"WeatherTool\n\n\nstellarexplorer\n"},
		{"a tool near in meaning, by word vectors", "What is Bitcoin trading at?\n", []string{"--tools", "tools.json"},
			"FinanceTool\n"},
		{"a query that matches nothing gives a blank line", "quantum chromodynamics\nweather\n", []string{"--tools", "tools.json"},
			"\nWeatherTool\n"},
		{"CRLF and no final newline", "weather\r\nmars rover photos", []string{"--tools", "tools.json"},
			"WeatherTool\nstellarexplorer\n"},
		{"no input, no output", "", []string{"--tools", "tools.json"}, ""},
		{"-k", "news about the world\n", []string{"--tools", "tools.json", "-k", "1"},
			"NewsTool\n"},
		{"flags after", "mars rover photos\n", []string{"-k", "3", "--tools=tools.json"}, "stellarexplorer\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := searchIn(t, "", tt.stdin, tt.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
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
	if first.Query != "weather news" || len(first.Tools) != 2 || first.Tools[0].Score < first.Tools[1].Score || first.Tools[1].Score <= 0 {
		t.Errorf("first answer %+v", first)
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
// query. Skipped where shared/data/metatool is not beside the repository.
func TestSearchMetaTool(t *testing.T) {
	dir := filepath.Join("..", "..", "..", searcheval.DefaultDir)
	d, err := searcheval.Load(dir)
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
	// A floor well under what BENCHMARKS.md reports, to catch a ranking
	// that broke, not to measure it.
	r := searcheval.Measure(d.Single, results)
	if r.Rate(r.At5) < 0.6 || r.Rate(r.At1) < 0.4 {
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
