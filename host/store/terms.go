package store

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/toolroute/toolroute/registry/session"
)

// The words search matches on PostgreSQL, split and folded as SQLite's
// FTS5 tokenizer (unicode61 remove_diacritics 2) splits and folds them,
// so both stores find the same messages: a word is a run of letters,
// digits and private-use characters; it is matched in lower case, and its
// Latin letters without their diacritics (cafe finds café).

// searched reports whether search covers messages of this type.
func searched(t session.MessageType) bool {
	return t == session.User || t == session.Assistant || t == session.ToolResult
}

// token is a word of a text: its folded form and its bytes in the text.
type token struct {
	term       string
	start, end int
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// tokenize splits text into its words.
func tokenize(text string) []token {
	var (
		toks  []token
		start = -1
		buf   []rune
	)
	for i, r := range text {
		if isTokenRune(r) {
			if start < 0 {
				start, buf = i, buf[:0]
			}
			buf = appendFolded(buf, r)
			continue
		}
		if start >= 0 {
			toks = append(toks, token{term: string(buf), start: start, end: i})
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, token{term: string(buf), start: start, end: len(text)})
	}
	return toks
}

// appendFolded appends r in lower case, a Latin letter without its
// diacritics.
func appendFolded(buf []rune, r rune) []rune {
	r = unicode.ToLower(r)
	if r < 0x80 || !unicode.Is(unicode.Latin, r) {
		return append(buf, r)
	}
	for _, d := range norm.NFD.String(string(r)) {
		if !unicode.Is(unicode.Mn, d) {
			buf = append(buf, d)
		}
	}
	return buf
}

// searchTerms returns the words of text, in order, repeats included.
func searchTerms(text string) []string {
	toks := tokenize(text)
	if len(toks) == 0 {
		return nil
	}
	terms := make([]string, len(toks))
	for i, t := range toks {
		terms[i] = t.term
	}
	return terms
}

// searchPhrases splits a search query as Search reads it: each run of
// non-space characters with a letter or digit is a phrase, its words to
// be found one after the other, as FTS5 reads the quoted strings of
// ftsQuery.
func searchPhrases(query string) [][]string {
	var phrases [][]string
	for _, w := range strings.Fields(query) {
		if terms := searchTerms(w); len(terms) > 0 && containsWordRune(w) {
			phrases = append(phrases, terms)
		}
	}
	return phrases
}

func containsWordRune(s string) bool { return strings.ContainsFunc(s, isWordRune) }

// TitleMatches reports whether title has every word of query, matched as
// Search matches a message's content: whole words, ignoring case and
// diacritics, a run such as "e-mail" as a phrase. A query with no letters
// or digits matches nothing.
func TitleMatches(title, query string) bool {
	phrases := searchPhrases(query)
	if len(phrases) == 0 {
		return false
	}
	freq, _ := phraseMatches(tokenize(title), phrases)
	return !slices.Contains(freq, 0)
}
