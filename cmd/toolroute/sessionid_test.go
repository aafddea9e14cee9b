package main

import (
	"bytes"
	"strings"
	"testing"
)

// chat --session refuses an id the stores cannot both hold, with the rule,
// before it opens anything.
func TestChatSessionIDRule(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"a\x00b", `toolroute chat: --session: session id "a\x00b" holds the control character U+0000: a session id is 1 to 128 characters of text with no control characters (no NUL, tab or line break)`},
		{"two\nlines", `session id "two\nlines" holds the control character U+000A`},
		{strings.Repeat("s", 129), "has 129 characters"},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"chat", "--session", c.id, "--data", t.TempDir()}, strings.NewReader("hello\n"), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("chat --session %q: exit %d, %q; want 2 saying %s", c.id, code, stderr.String(), c.want)
		}
	}
}
