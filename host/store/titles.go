package store

import (
	"strings"
	"unicode"
)

// TitleChars bounds a title made from a message, in characters (code
// points), as the JS hosts count. A title a user gives is the module's to
// check (wasm/ABI.md, toolroute_check's session_title).
const TitleChars = 60

// Title makes a session's title from its first message: its words with
// single spaces, control characters dropped, and when that is longer than
// TitleChars, cut at the last space before it (unless that leaves less
// than half) with an ellipsis. web/packages/toolroute/host/session-names.js does the same;
// testdata/sessions/titles.json holds the cases both replay.
func Title(text string) string {
	var words []string
	for _, f := range strings.Fields(text) {
		if f = strings.Map(dropControl, f); f != "" {
			words = append(words, f)
		}
	}
	r := []rune(strings.Join(words, " "))
	if len(r) <= TitleChars {
		return string(r)
	}
	head := r[:TitleChars-1]
	if r[TitleChars-1] != ' ' { // the cut falls inside a word
		for i := len(head) - 1; i >= TitleChars/2; i-- {
			if head[i] == ' ' {
				head = head[:i]
				break
			}
		}
	}
	return strings.TrimRight(string(head), " ,;:-–—") + "…"
}

func dropControl(r rune) rune {
	if unicode.IsControl(r) {
		return -1
	}
	return r
}
