package host

import (
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
	"sync"
)

// CallUsage is one model call of a turn: its number, what the provider
// said it cost, and what it spent on tool schemas.
type CallUsage struct {
	Call   int          `json:"call"`
	Usage  *wire.Usage  `json:"usage,omitempty"`
	Schema *SchemaUsage `json:"schema,omitempty"`
}

// SchemaUsage is a model call's tool schemas in o200k_base tokens, counted
// in the OpenAI tools JSON `toolroute tokens` counts: the core tools, the
// group listing, and each loaded group. A native request's deferred
// groups, kept out of the context until loaded, are not counted.
type SchemaUsage struct {
	CoreTools    int          `json:"core_tools"`
	GroupListing int          `json:"group_listing"`
	LoadedGroups []GroupUsage `json:"loaded_groups,omitempty"`
}

// GroupUsage is a loaded group's share of a call's schemas.
type GroupUsage struct {
	Group  string `json:"group"`
	Tokens int    `json:"tokens"`
}

// Total is the schemas' tokens altogether.
func (s *SchemaUsage) Total() int {
	n := s.CoreTools + s.GroupListing
	for _, g := range s.LoadedGroups {
		n += g.Tokens
	}
	return n
}

// schemaUsage counts in tokens the schemas a model request says it sends:
// the texts of its parts, which the module gives (Settings.SchemaText).
func schemaUsage(req *session.ModelRequest) *SchemaUsage {
	s := req.Schema
	if s == nil {
		return nil
	}
	out := &SchemaUsage{CoreTools: countTokens(s.CoreToolsText), GroupListing: countTokens(s.GroupListingText)}
	for _, g := range s.LoadedGroups {
		out.LoadedGroups = append(out.LoadedGroups, GroupUsage{Group: g.Group, Tokens: countTokens(g.Text)})
	}
	return out
}

// countTokens counts text's o200k tokens, remembering the answer: each
// model call counts the same few texts again (the group listing, the core
// tools, each loaded group's), and tokenizing them was a tenth of a turn's
// time in the host.
func countTokens(text string) int {
	if text == "" {
		return 0
	}
	tokenCounts.mu.Lock()
	n, ok := tokenCounts.m[text]
	tokenCounts.mu.Unlock()
	if ok {
		return n
	}
	n, err := tokens.Count("o200k_base", text)
	if err != nil {
		return 0
	}
	tokenCounts.mu.Lock()
	if tokenCounts.m == nil || len(tokenCounts.m) >= maxTokenCounts {
		tokenCounts.m = map[string]int{} // catalogues change rarely: start again
	}
	tokenCounts.m[text] = n
	tokenCounts.mu.Unlock()
	return n
}

// maxTokenCounts bounds the texts countTokens remembers.
const maxTokenCounts = 1024

var tokenCounts struct {
	mu sync.Mutex
	m  map[string]int
}
