package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSessionIDChars is the longest a session id may be, in characters.
const MaxSessionIDChars = 128

// SessionIDRule says what a session id may be, for the errors that refuse
// one.
const SessionIDRule = "a session id is 1 to 128 characters of text with no control characters (no NUL, tab or line break)"

// SessionIDError is the error, wrapped, of every method of DB given a
// session id that CheckSessionID refuses.
type SessionIDError struct {
	ID string
	// Reason says what is wrong with it.
	Reason string
}

// Error says what is wrong with the id and what an id may be.
func (e *SessionIDError) Error() string {
	return fmt.Sprintf("store: session id %q %s: %s", e.ID, e.Reason, SessionIDRule)
}

// CheckSessionID returns a *SessionIDError if id cannot be a session id:
// if it is empty, longer than MaxSessionIDChars, not valid UTF-8 or holds a
// control character. Both stores hold exactly these ids (PostgreSQL's text
// refuses a NUL byte and invalid UTF-8, which SQLite would keep), and DB's
// methods check them, so an id one store takes the other takes too; the
// HTTP API and the commands check them first, to answer with the rule.
// The ids toolroute makes (app.NewSessionID, a sub-agent's, a task's) are
// letters, digits and '-'.
func CheckSessionID(id string) error {
	bad := func(reason string) error { return &SessionIDError{ID: id, Reason: reason} }
	switch n := utf8.RuneCountInString(id); {
	case id == "":
		return bad("is empty")
	case !utf8.ValidString(id):
		return bad("is not valid UTF-8")
	case n > MaxSessionIDChars:
		return bad(fmt.Sprintf("has %d characters", n))
	}
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return bad(fmt.Sprintf("holds the control character %U", r))
	}
	return nil
}
