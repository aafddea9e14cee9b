package host

import (
	"context"
	"sync"
)

// Agent is who a session's turns are: its base system prompt, its model
// ("" for the provider's), the tool groups it may load (none: every group,
// as the module's settings.allowed_groups) and its limits per turn (0: the
// host's).
type Agent struct {
	Name         string
	SystemPrompt string
	Model        string
	Groups       []string
	// MaxModelCalls and MaxTurnTokens bound each of its turns (the
	// module's max_model_calls and max_turn_tokens).
	MaxModelCalls int
	MaxTurnTokens int
	// ToolBudget is the most tokens of tool schemas one of its model calls
	// may send (the module's tool_budget); 0 keeps the host's.
	ToolBudget int
}

// Agent is the session whose turns are a's.
func (s *Session) Agent(a Agent) *Session {
	c := *s
	c.agent = &a
	return &c
}

// Nested is the session run as a sub-agent by the tool call ctx belongs to
// (create_agent): one level deeper (AgentDepth), unattended when that turn
// is, and asking its approval questions of the same user as that turn,
// under that turn's session (for serve's page, which watches it) and with
// the approval event also on that turn's events. Outside a tool call it is
// s at depth 1.
func (s *Session) Nested(ctx context.Context) *Session {
	c := *s
	c.depth = 1
	if p, ok := ctx.Value(turnKey{}).(*turnInfo); ok {
		c.depth = p.depth + 1
		c.askAs = p.askAs
		c.relay = p.relay
		c.unattended = c.unattended || p.unattended
	}
	return &c
}

// AgentDepth is how deep the turn whose tool call ctx belongs to is nested:
// 0 for a session the user started, 1 for a sub-agent it started, and so on.
func AgentDepth(ctx context.Context) int {
	if p, ok := ctx.Value(turnKey{}).(*turnInfo); ok {
		return p.depth
	}
	return 0
}

// turnInfo is what a turn's tool calls know of it, through their context.
type turnInfo struct {
	depth      int
	askAs      string
	unattended bool
	// relay puts a nested turn's approval event on the events of the
	// outermost turn, whose caller shows them.
	relay func(Event)
}

type turnKey struct{}

// withTurn is ctx for the tool calls of s's turn, whose events go to emit.
func (s *Session) withTurn(ctx context.Context, emit func(Event) bool) context.Context {
	info := &turnInfo{depth: s.depth, askAs: s.askID(), unattended: s.unattended, relay: s.relay}
	if info.relay == nil {
		// Sub-agents' questions come from their tool calls' goroutines,
		// and may come at once.
		var mu sync.Mutex
		info.relay = func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			emit(ev)
		}
	}
	return context.WithValue(context.WithValue(ctx, turnKey{}, info), ownerKey{}, info.askAs)
}

// askID is the session the user is asked about s's calls under.
func (s *Session) askID() string {
	if s.askAs != "" {
		return s.askAs
	}
	return s.id
}

// slotKey marks the context of a tool call that holds one of the parallel
// tool slots: a nested turn's calls run inside it, as a slot each would
// deadlock once the outer calls hold them all.
type slotKey struct{}
