package session

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry"
)

// MaxResultChars is the most characters (Unicode code points) of a tool
// result's output or message the model reads: a longer one is cut there,
// with a note saying so (CapText). Every host's results go through it, in
// the turn (tool_results) or, for a call outside a turn, through
// FinishResult.
const MaxResultChars = 30000

// CapText cuts s after MaxResultChars characters, adding a note that says
// how long it was and how to ask for less; a shorter s is returned as it
// is.
func CapText(s string) string {
	if len(s) <= MaxResultChars { // bytes >= characters
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= MaxResultChars {
		return s
	}
	cut, i := 0, 0
	for i = range s {
		if cut == MaxResultChars {
			break
		}
		cut++
	}
	return s[:i] + "\n\n[The result was cut at " + strconv.Itoa(MaxResultChars) + " of its " + strconv.Itoa(n) +
		" characters. Ask for less: a narrower query, a smaller range or one page.]"
}

// WithConsole adds a JS call's console output (lines "level: text") to what
// the model reads: to a failure's message always, where it usually says
// why, and to a success's output when show is set.
func WithConsole(r registry.Result, console []string, show bool) registry.Result {
	if len(console) == 0 || (!show && r.Status == registry.StatusSuccess) {
		return r
	}
	note := "\n\nConsole output:\n" + strings.Join(console, "\n")
	if r.Status == registry.StatusSuccess {
		r.Output += note
	} else {
		r.Message += note
	}
	return r
}

// FinishResult is what the model reads of a tool's result: its console
// output added (WithConsole), then its output and message each cut at
// MaxResultChars (CapText), in that order, so that the note stays within
// the cut. A turn does this to every result fed to it
// (Settings.ShowConsole); a host calls it only for a call it runs outside
// a turn.
func FinishResult(r registry.Result, console []string, show bool) registry.Result {
	r = WithConsole(r, console, show)
	r.Output = CapText(r.Output)
	r.Message = CapText(r.Message)
	return r
}
