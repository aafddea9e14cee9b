package session_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolroute/toolroute/registry/session"
)

// The rules every host follows between a turn's steps, without I/O: how
// long a provider asks to be left alone, and how much of a tool's result
// the model is sent.
func Example() {
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, header := range []string{"7", "Fri, 02 Jan 2026 15:04:35 GMT", "soon"} {
		wait, ok := session.RetryAfter(header, now)
		fmt.Printf("Retry-After %q: wait %v (%v)\n", header, wait, ok)
	}
	fmt.Println("retry a 429:", session.Retryable(429), "a 400:", session.Retryable(400))

	long := strings.Repeat("x", session.MaxResultChars+1000)
	capped := session.CapText(long)
	fmt.Println(strings.Count(capped, "x"), "characters kept, then:", strings.TrimSpace(strings.TrimLeft(capped, "x")))
	// Output:
	// Retry-After "7": wait 7s (true)
	// Retry-After "Fri, 02 Jan 2026 15:04:35 GMT": wait 30s (true)
	// Retry-After "soon": wait 0s (false)
	// retry a 429: true a 400: false
	// 30000 characters kept, then: [The result was cut at 30000 of its 31000 characters. Ask for less: a narrower query, a smaller range or one page.]
}
