package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The words PostgreSQL's search keeps, split and folded as FTS5's
// unicode61 remove_diacritics 2 does: Latin letters lose their diacritics,
// other scripts keep theirs; symbols and punctuation separate words.
func TestSearchTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"Grüße, CAFÉ! naïve", []string{"gruße", "cafe", "naive"}},
		{"node.js C++ -flag", []string{"node", "js", "c", "flag"}},
		{"Йод ёж", []string{"йод", "ёж"}},
		{"日本語 テキスト", []string{"日本語", "テキスト"}},
		{"fox🦊den x\x00y \xffz", []string{"fox", "den", "x", "y", "z"}},
		{"Ⅻ 42 ½", []string{"ⅻ", "42", "½"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, searchTerms(tt.text)); diff != "" {
			t.Errorf("searchTerms(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
	if diff := cmp.Diff([][]string{{"node", "js"}, {"near", "d"}, {"b"}}, searchPhrases(`node.js NEAR(d b) -- 🦊`)); diff != "" {
		t.Errorf("searchPhrases (-want +got):\n%s", diff)
	}
}
