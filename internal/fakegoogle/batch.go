package fakegoogle

import (
	"fmt"
	"strings"
)

// What the newer APIs' methods share: custom methods in the path
// ("documents/{id}:batchUpdate"), and for batchUpdate the revision check and
// the messages that refuse one request of a batch.

// CustomMethod reads a path wildcard written "id:method", as Google writes
// a custom method, and returns the id. Another method, or none, answers 400
// and fails the test: the tool called an endpoint that does not exist.
func (c *Call) CustomMethod(wildcard, method string) (string, bool) {
	id, found := strings.CutSuffix(c.Path(wildcard), ":"+method)
	if !found || id == "" || strings.Contains(id, ":") {
		return "", c.Bad("no such method: %s %s", c.R.Method, c.R.URL.Path)
	}
	return id, true
}

// writeControl is a batchUpdate's writeControl: Docs and Forms take either
// revision, Slides requiredRevisionId only.
type writeControl struct {
	RequiredRevisionID string `json:"requiredRevisionId"`
	TargetRevisionID   string `json:"targetRevisionId"`
}

// check refuses a stale requiredRevisionId as Google does, without failing
// the test: a tool must meet it when the resource changed since it read it.
// what names the resource in the message ("document").
func (w *writeControl) check(c *Call, latest, what string) bool {
	switch {
	case w == nil:
		return true
	case w.RequiredRevisionID != "" && w.TargetRevisionID != "":
		return c.Bad("writeControl holds both requiredRevisionId and targetRevisionId")
	case w.RequiredRevisionID != "" && w.RequiredRevisionID != latest:
		c.Invalid("The required revision ID " + w.RequiredRevisionID + " does not match the latest revision of the " + what + ".")
		return false
	}
	return true
}

// batchRequest is the request of a batch being applied, numbered for the
// messages that refuse it.
type batchRequest struct {
	c *Call
	n int
}

// bad refuses a malformed request (a test failure).
func (b *batchRequest) bad(format string, args ...any) bool {
	return b.c.Bad("requests[%d]: %s", b.n, fmt.Sprintf(format, args...))
}

// invalid refuses what Google refuses for its value.
func (b *batchRequest) invalid(format string, args ...any) bool {
	b.c.Invalid(fmt.Sprintf("Invalid requests[%d]: %s", b.n, fmt.Sprintf(format, args...)))
	return false
}

// applyEach applies a batch's requests in order, numbering them in b, and
// returns their replies. It stops at the first one refused, which has
// answered: the caller keeps nothing of the batch then, as Google does.
func applyEach[R any](b *batchRequest, reqs []R, apply func(R) (map[string]any, bool)) ([]any, bool) {
	replies := []any{}
	for i, req := range reqs {
		b.n = i
		reply, ok := apply(req)
		if !ok {
			return nil, false
		}
		replies = append(replies, reply)
	}
	return replies, true
}
