package builtin

import (
	"strings"
	"testing"
)

// FuzzParseModelList: any answer of a provider's model list endpoint, in
// any of the formats, gives ids and a next token or an error, never a
// panic; an id of Gemini's has no "models/" prefix left.
func FuzzParseModelList(f *testing.F) {
	for _, seed := range []string{
		`{"object":"list","data":[{"id":"gpt-4.1"}]}`,
		`{"data":[{"id":"claude-sonnet-4-5"}],"has_more":true,"last_id":"claude-sonnet-4-5"}`,
		`{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent"]}],"nextPageToken":"p2"}`,
		`{"data":null}`, `[]`, `"x"`, `{"models":[{"name":7}]}`,
	} {
		for _, format := range Formats {
			f.Add(format, []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, format string, body []byte) {
		ids, next, err := parseModelList(format, body)
		if err != nil && (ids != nil || next != "") {
			t.Fatalf("an error with ids %v, next %q", ids, next)
		}
		if format == "gemini" {
			for _, id := range ids {
				if strings.HasPrefix(id, "models/") && !strings.HasPrefix(id, "models/models/") {
					t.Fatalf("id %q keeps its prefix", id)
				}
			}
		}
	})
}
