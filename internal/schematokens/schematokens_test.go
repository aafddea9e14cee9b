package schematokens

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/schematokens")

// testdata is the repository's shared testdata directory for this package;
// web/packages/toolroute/test/schema-tokens.test.js recounts small.json with gpt-tokenizer.
var testdata = filepath.Join("..", "..", "testdata", "schematokens")

// smallCatalogue has two core tools (a host tool and a JS tool), a host group
// and a JS group of two tools each, a disabled core tool, and a group whose
// only tool is disabled. Its texts hold what a tokenizer or a JSON encoder
// might treat specially: HTML characters, quotes, a special-token marker,
// accents, CJK, an emoji, a line break.
func smallCatalogue() registry.Catalogue {
	return registry.Catalogue{
		Groups: []registry.Group{
			{Name: "notes", DisplayName: "Notes", Description: "Write, find and tidy\nthe user's notes"},
			{Name: "archive", DisplayName: "Archive", Description: "Tools kept for old sessions"},
		},
		Tools: []registry.Tool{
			{Name: "echo", Description: "Repeat the text back, unchanged.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The text to repeat"}},"required":["text"]}`)},
			{Name: "add_note", Group: "notes", Description: `Add a note. Markdown and HTML are kept: <b>bold</b> & "quoted".`,
				Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"body":{"type":"string","description":"The note, up to 10 000 characters"}},"required":["title","body"]}`)},
			{Name: "search_notes", Group: "notes", Description: "Search the notes: café, 天気, 🌦. The marker <|endoftext|> is plain text here.",
				Parameters: json.RawMessage(`{"properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}`)},
			{Name: "export_notes", Group: "archive", Description: "Export every note as one file.", Parameters: nil},
			{Name: "shout", Description: "Repeat the text back in capitals.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		},
		Manifests: []registry.CatalogueManifest{
			{File: "get_time.json", Source: "get_time.js", Text: `{
  "name": "get_time",
  "description": "Get the current time in a time zone.",
  "parameters": {"type": "object", "properties": {"timezone": {"type": "string", "description": "IANA name, such as \"Europe/Paris\""}}}
}`},
			{File: "weather.json", Source: "weather.js", Text: `[
  {"_meta": true, "display_name": "Weather", "description": "Forecasts and current conditions for any city"},
  {"name": "get_forecast", "function": "forecast", "description": "Forecast for the next days.",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "enum": [1, 3, 7]}}, "required": ["city"]}},
  {"name": "get_conditions", "function": "conditions", "description": "Current conditions: temperature (°C), wind, rain.",
   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
]`},
		},
		Disabled: []string{"shout", "export_notes"},
	}
}

func TestMeasureSmall(t *testing.T) {
	rep, err := Measure(testCtx, testRT, smallCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	type scenario struct {
		Name   string
		Groups []string
		Tools  []string
	}
	var got []scenario
	for _, s := range rep.Scenarios {
		got = append(got, scenario{s.Name, s.Groups, s.Tools})
	}
	core := []string{"load_tool_group", "echo", "get_time"}
	notes := []string{"add_note", "search_notes"}
	weather := []string{"get_forecast", "get_conditions"}
	join := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	// The archive group has no enabled tool: it is no scenario, and "all
	// groups loaded" does not name it.
	want := []scenario{
		{"all tools", []string{}, []string{"echo", "add_note", "search_notes", "get_time", "get_forecast", "get_conditions"}},
		{"core only", []string{}, core},
		{"core + notes", []string{"notes"}, join(core, notes)},
		{"core + weather", []string{"weather"}, join(core, weather)},
		{"all groups loaded", []string{"notes", "weather"}, join(core, notes, weather)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{tokens.O200kBase, tokens.Cl100kBase}, rep.Encodings); diff != "" {
		t.Errorf("encodings (-want +got):\n%s", diff)
	}
	if rep.Format != "openai" || len(rep.Problems) != 0 {
		t.Errorf("format %q, problems %q", rep.Format, rep.Problems)
	}
	for _, s := range rep.Scenarios {
		if s.Bytes != len(s.toolsJSON) || len(s.Tokens) != len(rep.Encodings) {
			t.Errorf("%s: %d bytes for a %d-byte text, %d counts", s.Name, s.Bytes, len(s.toolsJSON), len(s.Tokens))
		}
	}
	wantListing := "## Available Tool Groups\n\nUse `load_tool_group` to load tools from a group before using them.\n\n" +
		"- notes: Write, find and tidy the user's notes\n- weather: Forecasts and current conditions for any city"
	if rep.Listing.text != wantListing || rep.Listing.Bytes != len(wantListing) {
		t.Errorf("listing = %q (%d bytes), want %q", rep.Listing.text, rep.Listing.Bytes, wantListing)
	}
}

// golden is the golden file's layout: the report with the counted texts.
type golden struct {
	Format    string           `json:"format"`
	Encodings []string         `json:"encodings"`
	Scenarios []goldenScenario `json:"scenarios"`
	Listing   goldenListing    `json:"listing"`
}

type goldenScenario struct {
	Scenario
	ToolsJSON string `json:"tools_json"`
}

type goldenListing struct {
	Listing
	Text string `json:"text"`
}

func goldenOf(r Report) golden {
	g := golden{Format: r.Format, Encodings: r.Encodings, Listing: goldenListing{r.Listing, r.Listing.text}}
	for _, s := range r.Scenarios {
		g.Scenarios = append(g.Scenarios, goldenScenario{s, s.toolsJSON})
	}
	return g
}

// checkGolden compares got with the golden file name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(testdata, name)
	if *update {
		if err := os.MkdirAll(testdata, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `go test ./internal/schematokens -update`", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale: run `go test ./internal/schematokens -update`, then `node --test test/schema-tokens.test.js` in web/packages/toolroute (-want +got):\n%s", name, diff)
	}
}

// TestGolden checks the small catalogue's report, with each scenario's exact
// tools JSON and the listing text, against small.json, whose counts
// web/packages/toolroute/test/schema-tokens.test.js checks with gpt-tokenizer, and its text
// output against small.txt.
func TestGolden(t *testing.T) {
	rep, err := Measure(testCtx, testRT, smallCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(goldenOf(rep)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "small.json", buf.Bytes())

	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "small.txt", text.Bytes())
}

// TestGoldenCounts recounts the golden file's texts with internal/tokens, so a
// hand-edited or stale count is caught on the Go side too.
func TestGoldenCounts(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testdata, "small.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	check := func(name, text string, bytes int, counts []Count) {
		if bytes != len(text) {
			t.Errorf("%s: bytes %d, text has %d", name, bytes, len(text))
		}
		for _, c := range counts {
			n, err := tokens.Count(c.Encoding, text)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.Tokens {
				t.Errorf("%s: %s count %d, recounted %d", name, c.Encoding, c.Tokens, n)
			}
		}
	}
	for _, s := range g.Scenarios {
		check(s.Name, s.ToolsJSON, s.Bytes, s.Tokens)
	}
	check("listing", g.Listing.Text, g.Listing.Bytes, g.Listing.Tokens)
}

// TestRoutedScenariosMatchSession checks the routed scenarios against what
// the turn engine sends: a session whose history loaded a scenario's groups
// makes a first model call whose body carries the same tools array, byte for
// byte, and whose system prompt is the listing.
func TestRoutedScenariosMatchSession(t *testing.T) {
	cat := smallCatalogue()
	rep, err := Measure(testCtx, testRT, cat)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := registry.Build(cat)
	for _, s := range rep.Scenarios {
		if s.Name == AllTools {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			var history []session.Message
			for i, g := range s.Groups {
				id := fmt.Sprintf("call_%d", i)
				history = append(history,
					session.Message{Type: session.Assistant},
					session.Message{Type: session.ToolCall, ToolCallID: id, ToolName: registry.LoadToolGroupName,
						ToolInput: `{"group_name":"` + g + `"}`, Status: registry.StatusSuccess},
					session.Message{Type: session.ToolResult, ToolCallID: id, ToolName: registry.LoadToolGroupName,
						Content: "Loaded.", Status: registry.StatusSuccess})
			}
			acts, err := session.NewTurn(reg).Handle(session.Event{Type: session.EventStart, History: history, User: "Hello",
				Settings: session.Settings{Format: wire.OpenAI, Model: "gpt-4o"}})
			if err != nil {
				t.Fatal(err)
			}
			var req *session.ModelRequest
			for _, a := range acts {
				if a.Type == session.ActionCallModel {
					req = a.Request
				}
			}
			if req == nil {
				t.Fatalf("no model call in %+v", acts)
			}
			var body struct {
				Messages []struct{ Role, Content string }
				Tools    json.RawMessage
			}
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s.toolsJSON, string(body.Tools)); diff != "" {
				t.Errorf("tools JSON (-measured +sent):\n%s", diff)
			}
			if diff := cmp.Diff(s.Tools, req.Tools); diff != "" {
				t.Errorf("tools (-measured +sent):\n%s", diff)
			}
			if len(body.Messages) == 0 || body.Messages[0].Role != "system" || body.Messages[0].Content != rep.Listing.text {
				t.Errorf("system message is not the listing: %+v", body.Messages)
			}
		})
	}
}

// TestCountsWireBytes pins down that the counted text is the request body's
// bytes, not a re-encoding of them: encoding/json writes U+2028 in a
// description as the escape \u2028 (JSON.stringify would write the character
// itself), and a schema's escapes pass through as the manifest wrote them.
func TestCountsWireBytes(t *testing.T) {
	cat := registry.Catalogue{Tools: []registry.Tool{{
		Name: "sep", Description: "one\u2028two",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"caf\u00e9 \/ <b>"}}}`),
	}}}
	rep, err := Measure(testCtx, testRT, cat)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"function","function":{"name":"sep","description":"one\u2028two","parameters":{"type":"object","properties":{"city":{"type":"string","description":"caf\u00e9 \/ <b>"}}}}}]`
	for _, s := range rep.Scenarios {
		if s.toolsJSON != want {
			t.Errorf("%s: tools JSON\n%s\nwant\n%s", s.Name, s.toolsJSON, want)
		}
		n, _ := tokens.Count(tokens.O200kBase, want)
		if got := tokensIn(s.Tokens, tokens.O200kBase); got != n {
			t.Errorf("%s: %d tokens, the wire text has %d", s.Name, got, n)
		}
	}
	// Without groups there is no listing and no load_tool_group.
	if rep.Listing.Bytes != 0 || rep.Listing.text != "" || tokensIn(rep.Listing.Tokens, tokens.O200kBase) != 0 {
		t.Errorf("listing without groups = %+v", rep.Listing)
	}
	if got := len(rep.Scenarios); got != 3 {
		t.Errorf("%d scenarios, want all tools, core only and all groups loaded", got)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nRouted calls send no group listing: no group has an enabled tool.\n") {
		t.Errorf("text output without groups:\n%s", b.String())
	}
}

// TestSkills: load_skill is a core tool when there are skills, as a fresh
// session sends it, but the listing counts only the group listing, which is
// what routing adds to the prompt.
func TestSkills(t *testing.T) {
	cat := smallCatalogue()
	cat.Skills = []registry.Skill{{Name: "tidy-notes", Description: "How to tidy notes", Content: "Sort them."}}
	rep, err := Measure(testCtx, testRT, cat)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Measure(testCtx, testRT, smallCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain.Listing, rep.Listing, cmp.AllowUnexported(Listing{})); diff != "" {
		t.Errorf("listing changed with skills (-without +with):\n%s", diff)
	}
	core, _ := rep.find(CoreOnly)
	if diff := cmp.Diff([]string{"load_tool_group", "load_skill", "echo", "get_time"}, core.Tools); diff != "" {
		t.Errorf("core only (-want +got):\n%s", diff)
	}
	all, _ := rep.find(AllTools)
	if diff := cmp.Diff(plain.Scenarios[0].Tools, all.Tools); diff != "" {
		t.Errorf("all tools changed with skills (-without +with):\n%s", diff)
	}
}

// TestProblems: what the build refuses is not counted, and is reported.
func TestProblems(t *testing.T) {
	cat := smallCatalogue()
	cat.Manifests = append(cat.Manifests, registry.CatalogueManifest{File: "broken.json", Source: "broken.js", Text: `{"name": "broken"`})
	cat.Disabled = append(cat.Disabled, "no_such_tool")
	rep, err := Measure(testCtx, testRT, cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 2 || !strings.HasPrefix(rep.Problems[0], "broken.json: ") || !strings.Contains(rep.Problems[1], "no_such_tool") {
		t.Errorf("problems = %q", rep.Problems)
	}
	plain, _ := Measure(testCtx, testRT, smallCatalogue())
	if diff := cmp.Diff(plain.Scenarios, rep.Scenarios, cmp.AllowUnexported(Scenario{})); diff != "" {
		t.Errorf("scenarios changed (-without +with the problems):\n%s", diff)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nNot counted, refused by the catalogue (2):\n  broken.json: ") {
		t.Errorf("text output does not list the problems:\n%s", b.String())
	}
}

func TestWriteTextSaving(t *testing.T) {
	counts := func(n int) []Count { return []Count{{tokens.O200kBase, n}, {tokens.Cl100kBase, n + 1}} }
	tests := []struct {
		name      string
		all, core int
		want      string
	}{
		{"saves", 200, 50, `"core only" saves 75.0% of the o200k_base tokens of "all tools" (50 against 200); with the group listing, it saves 70.0% of them (60).`},
		{"costs more", 40, 50, `"core only" costs 25.0% more than the o200k_base tokens of "all tools" (50 against 40); with the group listing, it costs 50.0% more than them (60).`},
		{"nothing sent", 0, 0, `No saving to report: "all tools" sends no tool schemas.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Report{
				Format: "openai", Encodings: []string{tokens.O200kBase, tokens.Cl100kBase},
				Scenarios: []Scenario{
					{Name: AllTools, Tools: []string{"a", "b"}, Bytes: 1000, Tokens: counts(tt.all)},
					{Name: CoreOnly, Tools: []string{"a"}, Bytes: 20, Tokens: counts(tt.core)},
				},
				Listing: Listing{Bytes: 30, Tokens: counts(10)},
			}
			var b strings.Builder
			if err := rep.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if got := lines[len(lines)-1]; got != tt.want {
				t.Errorf("last line\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// builtinCatalogue is the built-in JS manifests, read as the host reads them.
func builtinCatalogue(t *testing.T) registry.Catalogue {
	t.Helper()
	f, err := catalog.ReadFolder(manifests.FS, "builtin", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range f.Files {
		if file.Refused != "" {
			t.Fatalf("%s refused: %s", file.Manifest.File, file.Refused)
		}
	}
	cat := f.Catalogue()
	if len(cat.Manifests) == 0 {
		t.Fatal("no built-in manifests")
	}
	return cat
}

func TestMeasureBuiltin(t *testing.T) {
	rep, err := Measure(testCtx, testRT, builtinCatalogue(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Fatalf("problems: %q", rep.Problems)
	}
	var names []string
	for _, s := range rep.Scenarios {
		names = append(names, s.Name)
	}
	want := []string{"all tools", "core only", "core + config",
		"core + google_calendar", "core + google_contacts", "core + google_docs", "core + google_drive", "core + google_forms",
		"core + google_gmail", "core + google_gmail_settings", "core + google_sheets", "core + google_slides", "core + google_tasks",
		"core + js_tool_management", "core + scheduled_tasks", "all groups loaded"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("scenarios (-want +got):\n%s", diff)
	}
	all, core := rep.Scenarios[0], rep.Scenarios[1]
	for i, enc := range rep.Encodings {
		if core.Tokens[i].Tokens >= all.Tokens[i].Tokens {
			t.Errorf("%s: core only has %d tokens, all tools %d", enc, core.Tokens[i].Tokens, all.Tokens[i].Tokens)
		}
	}
	if rep.Listing.Tokens[0].Tokens == 0 {
		t.Error("no group listing")
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("built-in catalogue:\n%s", b.String())
}

// ExampleMeasure counts a catalogue of one core tool and one group.
func ExampleMeasure() {
	rep, err := Measure(testCtx, testRT, registry.Catalogue{
		Groups: []registry.Group{{Name: "clock", Description: "Tell the time in a city"}},
		Tools: []registry.Tool{
			{Name: "echo", Description: "Repeat the text back."},
			{Name: "city_time", Group: "clock", Description: "The time in a city.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range rep.Scenarios {
		fmt.Printf("%s: %s\n", s.Name, strings.Join(s.Tools, ", "))
	}
	// Output:
	// all tools: echo, city_time
	// core only: load_tool_group, echo
	// core + clock: load_tool_group, echo, city_time
	// all groups loaded: load_tool_group, echo, city_time
}

// Loaded with every group is Measure's "all groups loaded"; an unknown group
// is an error.
func TestLoaded(t *testing.T) {
	rep, err := Measure(testCtx, testRT, smallCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	all, _ := rep.find(AllGroupsLoaded)
	got, err := Loaded(testCtx, testRT, smallCatalogue(), "both", "notes", "weather")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Tools, all.Tools) || !slices.Equal(got.Groups, all.Groups) || got.Bytes != all.Bytes || !slices.Equal(got.Tokens, all.Tokens) {
		t.Errorf("Loaded = %+v, want %+v", got, all)
	}
	if _, err := Loaded(testCtx, testRT, smallCatalogue(), "x", "nope"); err == nil {
		t.Error("an unknown group was loaded")
	}
}
