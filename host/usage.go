package host

import (
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry"
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

// schemaUsage counts the schemas a model request says it sends, from reg's
// definitions of those tools.
func schemaUsage(reg *registry.Registry, req *session.ModelRequest) *SchemaUsage {
	if req.Schema == nil || reg == nil {
		return nil
	}
	inGroup := map[string]bool{}
	out := &SchemaUsage{GroupListing: countTokens(reg.GroupListing())}
	for _, g := range req.Schema.LoadedGroups {
		for _, name := range g.Tools {
			inGroup[name] = true
		}
		out.LoadedGroups = append(out.LoadedGroups, GroupUsage{Group: g.Group, Tokens: toolTokens(reg, g.Tools)})
	}
	var core []string
	for _, name := range req.Tools {
		if !inGroup[name] {
			core = append(core, name)
		}
	}
	out.CoreTools = toolTokens(reg, core)
	return out
}

func toolTokens(reg *registry.Registry, names []string) int {
	var tools []registry.Tool
	for _, n := range names {
		if t, ok := reg.Tool(n); ok {
			tools = append(tools, t)
		}
	}
	text, err := wire.OpenAIToolsJSON(session.ToolDefs(tools))
	if err != nil {
		return 0
	}
	return countTokens(text)
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
