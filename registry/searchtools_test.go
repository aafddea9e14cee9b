package registry

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolroute/toolroute/assets"
)

func searchRegistry(t *testing.T) *Registry {
	t.Helper()
	r := New()
	for _, g := range []Group{
		{Name: "mail", DisplayName: "Mail", Description: "Send and read email"},
		{Name: "pdf", DisplayName: "PDF", Description: "Read PDF files"},
	} {
		if err := r.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	for _, tl := range []Tool{
		{Name: "send_email", Description: "Send an email message to a recipient.\nMore detail here.", Group: "mail"},
		{Name: "read_email", Description: "Read an email message by its id", Group: "mail"},
		{Name: "pdf_text", Description: "Extract the text of a PDF file", Group: "pdf"},
		{Name: "clock", Description: "Tell the time; also emails nobody"},
	} {
		if err := r.AddTool(tl); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestSearchTools(t *testing.T) {
	r := searchRegistry(t)
	res, found := r.SearchTools(json.RawMessage(`{"query":"send an email"}`), func(name string) bool { return name == "read_email" })
	if res.Status != StatusSuccess {
		t.Fatalf("%+v", res)
	}
	var names []string
	for _, f := range found {
		names = append(names, f.Name)
	}
	if diff := cmp.Diff([]string{"send_email", "read_email"}, names); diff != "" {
		t.Errorf("found (-want +got), a core tool never among them:\n%s", diff)
	}
	want := "Found 2 tools for 'send an email', loaded for the rest of this conversation:\n" +
		"- send_email (Mail): Send an email message to a recipient.\n" +
		"- read_email (Mail): Read an email message by its id (already loaded)"
	if res.Output != want {
		t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
	}

	res, found = r.SearchTools(json.RawMessage(`{"query":"email","limit":1}`), nil)
	if len(found) != 1 || !strings.HasPrefix(res.Output, "Found 1 tool for 'email'") {
		t.Errorf("limit 1: %d found, %q", len(found), res.Output)
	}

	// A disabled tool is not found; the index follows the change.
	if err := r.SetToolEnabled("send_email", false); err != nil {
		t.Fatal(err)
	}
	_, found = r.SearchTools(json.RawMessage(`{"query":"send an email"}`), nil)
	if len(found) == 0 || found[0].Name != "read_email" || slices.ContainsFunc(found, func(t Tool) bool { return t.Name == "send_email" }) {
		t.Errorf("after disabling send_email: %v, want read_email first and send_email not at all", found)
	}

	for _, tt := range []struct{ args, want string }{
		{`{}`, "Error (missing_parameter): Required parameter 'query' is missing."},
		{`[]`, "Error (invalid_arguments): The arguments for 'search_tools' are not a JSON object"},
		{`{"query":"  "}`, "Error (invalid_arguments): The query of 'search_tools' is empty"},
		{`{"query":"email","limit":0}`, "Error (invalid_arguments): The limit of 'search_tools' must be a whole number from 1 to 10"},
		{`{"query":"email","limit":2.5}`, "Error (invalid_arguments): The limit of 'search_tools' must be a whole number from 1 to 10"},
		{`{"query":"email","limit":"3"}`, "Error (invalid_arguments): The limit of 'search_tools' must be a whole number from 1 to 10"},
		{`{"query":"zebra"}`, "Error (not_found): No tool matches 'zebra'. Try other words"},
	} {
		res, found := r.SearchTools(json.RawMessage(tt.args), nil)
		if res.Status != StatusError || found != nil || !strings.HasPrefix(res.Content(), tt.want) {
			t.Errorf("%s: %q, %v; want %q", tt.args, res.Content(), found, tt.want)
		}
	}
}

// SearchFound answers for names another ranking gave: only search
// candidates, each once, at most limit of them, in the ranking's order.
func TestSearchFound(t *testing.T) {
	r := searchRegistry(t)
	if err := r.SetToolEnabled("read_email", false); err != nil {
		t.Fatal(err)
	}
	if got, want := r.SearchCandidates(), []string{"send_email", "pdf_text"}; !cmp.Equal(got, want) {
		t.Errorf("SearchCandidates = %v, want %v (no disabled or core tool)", got, want)
	}
	tests := []struct {
		name  string
		names []string
		limit int
		want  []string
	}{
		{"order kept", []string{"pdf_text", "send_email"}, 5, []string{"pdf_text", "send_email"}},
		{"limit", []string{"pdf_text", "send_email"}, 1, []string{"pdf_text"}},
		{"dropped before the limit counts", []string{"clock", "read_email", "nope", "pdf_text", "pdf_text", "send_email"}, 2, []string{"pdf_text", "send_email"}},
		{"none left", []string{"clock", "read_email"}, 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, found := r.SearchFound("mail", tt.names, tt.limit, nil)
			var got []string
			for _, f := range found {
				got = append(got, f.Name)
			}
			if !cmp.Equal(got, tt.want) {
				t.Errorf("found %v, want %v", got, tt.want)
			}
			if (res.Status == StatusSuccess) != (len(tt.want) > 0) || (len(tt.want) == 0 && res.ErrorType != "not_found") {
				t.Errorf("result %+v", res)
			}
		})
	}
}

// search_tools ranks with the word vectors the host gave the registry, and
// without them once taken away: "the words in a document" shares no word
// with any tool's texts.
func TestSearchToolsWordVectors(t *testing.T) {
	r := searchRegistry(t)
	query := json.RawMessage(`{"query":"the words in a document"}`)
	if res, _ := r.SearchTools(query, nil); res.Status != StatusError {
		t.Fatalf("without word vectors: %s, want not_found", res.Content())
	}
	r.SetWordVectors(assets.Vectors())
	if _, found := r.SearchTools(query, nil); len(found) == 0 || found[0].Name != "pdf_text" {
		t.Errorf("with word vectors: %v, want pdf_text first", found)
	}
	r.SetWordVectors(nil)
	if res, _ := r.SearchTools(query, nil); res.Status != StatusError {
		t.Errorf("after taking them away: %s, want not_found", res.Content())
	}
}

func TestActiveLoadTools(t *testing.T) {
	r := searchRegistry(t)
	a := r.NewActive()
	if got := a.LoadTools([]string{"read_email", "clock", "nope", "read_email", "pdf_text"}); !cmp.Equal(got, []string{"read_email", "pdf_text"}) {
		t.Errorf("added %v: core, unknown and repeated tools are skipped", got)
	}
	if !a.LoadGroup("mail") {
		t.Error("a group with one tool loaded alone still loads")
	}
	var names []string
	for _, tl := range a.Tools() {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"load_tool_group", "clock", "read_email", "pdf_text", "send_email"}, names); diff != "" {
		t.Errorf("active (-want +got):\n%s", diff)
	}
}
