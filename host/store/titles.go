package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TitleChars bounds a title made from a message; MaxTitleChars a title a
// user gives. Both count characters (code points), as the JS hosts do.
const (
	TitleChars    = 60
	MaxTitleChars = 200
)

// TitleError is CleanTitle's and Rename's error for a title that cannot be
// one: Reason says why and what to give instead.
type TitleError struct {
	Reason string
}

// Error is why the title was refused.
func (e *TitleError) Error() string { return e.Reason }

// Title makes a session's title from its first message: its words with
// single spaces, control characters dropped, and when that is longer than
// TitleChars, cut at the last space before it (unless that leaves less
// than half) with an ellipsis. web/host/session-names.js does the same;
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

// CleanTitle returns the title a user gives with its whitespace collapsed,
// or a *TitleError if it is empty, longer than
// MaxTitleChars or holds control characters.
func CleanTitle(title string) (string, error) {
	t := strings.Join(strings.Fields(title), " ")
	switch n := utf8.RuneCountInString(t); {
	case strings.IndexFunc(t, unicode.IsControl) >= 0:
		return "", &TitleError{fmt.Sprintf("the title holds control characters: give plain text of 1 to %d characters", MaxTitleChars)}
	case n == 0:
		return "", &TitleError{fmt.Sprintf("the title is empty: give one of 1 to %d characters", MaxTitleChars)}
	case n > MaxTitleChars:
		return "", &TitleError{fmt.Sprintf("the title has %d characters: give one of 1 to %d", n, MaxTitleChars)}
	}
	return t, nil
}
