package registry

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/assets"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
	}{
		{"camelCase, with the whole kept", "CompanyInfoTool", []string{"company", "info", "tool", "companyinfotool"}},
		{"capitals then a word", "PDFTool", []string{"pdf", "tool", "pdftool"}},
		{"a brand", "YouTube videos", []string{"you", "tube", "youtube", "videos"}},
		{"snake_case", "get_current_time", []string{"get", "current", "time"}},
		{"digits apart", "2-day mp3player", []string{"2", "day", "mp", "3", "player"}},
		{"apostrophes", "user's", []string{"user", "s"}},
		{"all capitals", "NASA API", []string{"nasa", "api"}},
		{"other scripts", "Café naïve Ünïcode", []string{"café", "naïve", "ünïcode"}},
		{"punctuation alone", " .,;-_/ ", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, words(tt.input)); diff != "" {
				t.Errorf("words(%q) (-want +got):\n%s", tt.input, diff)
			}
		})
	}
}

// The word lists are searched by halves, so each must be sorted; a word in
// both would be a slip.
func TestWordLists(t *testing.T) {
	for name, list := range map[string][]string{"stopWords": stopWords, "requestWords": requestWords} {
		if !slices.IsSorted(list) || len(slices.Compact(slices.Clone(list))) != len(list) {
			t.Errorf("%s is not sorted and unique", name)
		}
		for _, w := range list {
			if w != strings.ToLower(w) || strings.TrimSpace(w) != w {
				t.Errorf("%s holds %q, which no word of words() can equal", name, w)
			}
		}
	}
	for _, w := range requestWords {
		if isStopWord(w) {
			t.Errorf("%q is in both lists", w)
		}
	}
}

// searchTools is a small tool list in the shape of a real catalogue.
var searchTools = []SearchDoc{
	{Name: "weather_lookup", Description: "Current weather and the forecast for a city", Params: "city The city's name units celsius or fahrenheit", Group: "weather Weather tools"},
	{Name: "gmail_send", Description: "Send an email message", Params: "to Recipient address subject body", Group: "google_gmail Google Gmail Email management: search, read, send and label Gmail messages"},
	{Name: "gmail_search", Description: "Search Gmail messages by query", Params: "query Gmail search syntax", Group: "google_gmail Google Gmail Email management: search, read, send and label Gmail messages"},
	{Name: "drive_upload", Description: "Upload a file to Google Drive", Params: "path content", Group: "google_drive Google Drive File storage"},
	{Name: "pdf_extract_text", Description: "Extract the text of a PDF file", Params: "path pages", Group: "pdf PDF Tools"},
	{Name: "StockTool", Description: "Share prices and market data for companies", Detail: "Use it for stocks, indices and exchanges; send the ticker symbol, never the company name, and show the price with its currency."},
}

func hitNames(hits []SearchHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

func TestSearch(t *testing.T) {
	x := NewIndex(searchTools, assets.Vectors())
	tests := []struct {
		name, query string
		k           int
		want        []string
	}{
		{"a word of the description", "Will it rain? Give me the forecast for Oslo", 5, []string{"weather_lookup"}},
		{"a word of the name counts most", "I want to send a message", 2, []string{"gmail_send", "gmail_search"}},
		{"stems meet", "uploading files", 1, []string{"drive_upload"}},
		{"camelCase names are words", "stock market", 1, []string{"StockTool"}},
		{"the group's description counts", "labels", 5, []string{"gmail_send", "gmail_search"}},
		{"parameters count", "in fahrenheit please", 5, []string{"weather_lookup"}},
		{"k cuts", "gmail", 1, []string{"gmail_search"}},
		{"stop words and request words match nothing", "Can you please help me find some information?", 5, nil},
		{"no shared word", "quantum chromodynamics", 5, nil},
		{"blank", "   ", 5, nil},
		{"k of 0", "gmail", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, hitNames(x.Search(tt.query, tt.k))); diff != "" {
				t.Errorf("Search(%q, %d) (-want +got):\n%s", tt.query, tt.k, diff)
			}
		})
	}
}

// Word vectors find a tool described in other words than the query's, and
// only with them.
func TestSearchWordVectors(t *testing.T) {
	noVectors := DefaultSearchParams()
	noVectors.Dense = 0
	tests := []struct {
		name  string
		query string
		p     SearchParams
		want  []string
	}{
		{"a tool said otherwise", "What is Apple trading at?", DefaultSearchParams(), []string{"StockTool"}},
		{"without word vectors", "What is Apple trading at?", noVectors, nil},
		{"a near tool beside those of the same words", "read the document", DefaultSearchParams(), []string{"gmail_send", "gmail_search", "pdf_extract_text"}},
		{"nothing near", "quantum chromodynamics", DefaultSearchParams(), nil},
		{"words with no vector", "zqxv wvkq", DefaultSearchParams(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, hitNames(NewIndexWith(searchTools, tt.p, assets.Vectors()).Search(tt.query, 5))); diff != "" {
				t.Errorf("Search(%q, 5) (-want +got):\n%s", tt.query, diff)
			}
		})
	}
	// No tools, no tool with a word of English: nothing found, no panic.
	for _, docs := range [][]SearchDoc{nil, {{Name: "zqxv"}}} {
		if hits := NewIndex(docs, assets.Vectors()).Search("what is the weather", 5); len(hits) != 0 {
			t.Errorf("%v: found %v", docs, hits)
		}
	}
}

// Equal scores go by name, whatever the tool list's order; and scores never
// rise as the list goes down.
func TestSearchOrder(t *testing.T) {
	// Names of no English word, so that their word vectors are the same.
	twins := []SearchDoc{
		{Name: "zqx", Description: "Convert currencies"},
		{Name: "aqx", Description: "Convert currencies"},
		{Name: "mqx", Description: "Convert units"},
	}
	for _, docs := range [][]SearchDoc{twins, {twins[2], twins[1], twins[0]}} {
		hits := NewIndex(docs, assets.Vectors()).Search("convert currencies", 5)
		if diff := cmp.Diff([]string{"aqx", "zqx", "mqx"}, hitNames(hits)); diff != "" {
			t.Errorf("order (-want +got):\n%s", diff)
		}
		if hits[0].Score != hits[1].Score || hits[1].Score <= hits[2].Score {
			t.Errorf("scores %v", hits)
		}
	}
}

// The long description written for the model counts less than the short
// one, and a word said in the name and the description does not count twice
// over.
func TestSearchFields(t *testing.T) {
	docs := []SearchDoc{
		{Name: "a", Description: "Translate text", Detail: "Use it for any language; it also knows recipes and cooking"},
		{Name: "b", Description: "Recipes and cooking"},
		{Name: "recipes", Description: "Recipes"},
	}
	x := NewIndex(docs, assets.Vectors())
	if got := hitNames(x.Search("recipes", 5)); !slices.Equal(got, []string{"recipes", "b", "a"}) {
		t.Errorf("recipes: %v, want the name, then the description, then the detail", got)
	}
	p := DefaultSearchParams()
	p.Fields[FieldDetail].Weight = 0
	if got := hitNames(NewIndexWith(docs, p, assets.Vectors()).Search("cooking", 5)); len(got) == 0 || got[0] != "b" || slices.Contains(got, "a") {
		t.Errorf("with the detail weighed 0: %v, want b first and a not at all", got)
	}
	p = DefaultSearchParams()
	p.RequestWords = true
	if got := hitNames(NewIndexWith([]SearchDoc{{Name: "finder", Description: "Find things"}}, p, assets.Vectors()).Search("find", 5)); len(got) != 1 {
		t.Errorf("with request words kept, find finds nothing: %v", got)
	}
}

func TestParseToolList(t *testing.T) {
	tests := []struct {
		name, input string
		want        []SearchDoc
		wantErr     string
	}{
		{"MetaTool's shape", `[{"name": "timeport", "description": "A time-travel game", "description_for_model": "Start the game", "name_for_human": "Time Port"}]`,
			[]SearchDoc{{Name: "timeport", Title: "Time Port", Description: "A time-travel game", Detail: "Start the game"}}, ""},
		{"a schema's properties by name, nested", `[{"name": "w", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}, "opts": {"type": "object", "properties": {"units": {"description": "C or F"}}}, "days": {"type": "array", "items": {"description": "a day"}}}}}]`,
			[]SearchDoc{{Name: "w", Description: "Weather", Params: "city City name days a day opts units C or F"}}, ""},
		{"an MCP tool", `[{"name": "read_file", "title": "Read file", "description": "Read a file", "inputSchema": {"type": "object", "properties": {"path": {}}}, "group": "filesystem", "group_description": "Files on disk"}]`,
			[]SearchDoc{{Name: "read_file", Title: "Read file", Description: "Read a file", Params: "path", Group: "filesystem Files on disk"}}, ""},
		{"no description is no error", `[{"name": "bare"}]`, []SearchDoc{{Name: "bare"}}, ""},
		{"empty", `[]`, []SearchDoc{}, ""},
		{"not JSON", "[\n{\"name\": \"a\",}\n]", nil, "not JSON: invalid character '}' looking for beginning of object key string (line 2)"},
		{"not an array", `{"name": "a"}`, nil, "want a JSON array of tools"},
		{"an entry not an object", `[{"name": "a"}, "b"]`, nil, `tool 2 is not an object`},
		{"null entry", `[null]`, nil, `tool 1 is not an object`},
		{"a name not a string", `[{"name": 7}]`, nil, `tool 1 is not an object with string fields`},
		{"no name", `[{"description": "nameless"}]`, nil, `tool 1 has no "name"`},
		{"blank name", `[{"name": "  ", "description": "x"}]`, nil, `tool 1 has no "name"`},
		{"duplicate names", `[{"name": "a"}, {"name": "b"}, {"name": "a"}]`, nil, `tools 1 and 3 are both named "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseToolList([]byte(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrToolList) {
					t.Fatalf("error %v, want one wrapping ErrToolList with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// What search_tools ranks: the group tools, enabled, in order, with their
// group's texts and their parameters.
func TestRegistrySearchDocs(t *testing.T) {
	r := sampleCatalogue(t)
	mustNil(t, r.SetToolEnabled("pdf_info", false))
	var got []string
	for _, d := range r.SearchDocs() {
		got = append(got, d.Name)
	}
	want := []string{"get_config", "set_config", "pdf_extract_text", "pdf_render_page", "gmail_search", "gmail_read", "drive_list_files"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	gmail := r.SearchDocs()[4]
	if !strings.HasPrefix(gmail.Group, "google_gmail Google Gmail Email management") {
		t.Errorf("group text %q", gmail.Group)
	}
	if got := hitNames(NewIndex(r.SearchDocs(), assets.Vectors()).Search("archive my mail", 1)); !slices.Equal(got, []string{"gmail_read"}) && !slices.Equal(got, []string{"gmail_search"}) {
		t.Errorf("archive my mail: %v, want a Gmail tool by its group's description", got)
	}
	load := loadToolGroupTool()
	if d := SearchDocOf(load, Group{}); d.Params != "group_name The name of the tool group to load" || d.Group != "" {
		t.Errorf("SearchDocOf(load_tool_group) = %+v", d)
	}
}
