package session

import (
	"sync"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// shared is what every turn with one registry uses alike, kept with the
// registry (registry.Memo) so that a turn does not measure or encode again
// what the turn before it did: the bytes of each list of tools a call's
// schema reports, and the encoded tool entries and system message
// (wire.Cache). It holds few pointers: sizes are numbers by string.
type shared struct {
	mu    sync.Mutex
	sizes map[string]int
	wire  *wire.Cache
}

// sharedKey names shared among the registry's memos.
type sharedKey struct{}

// sharedOf is reg's shared state, made at its first use.
func sharedOf(reg *registry.Registry) *shared {
	return reg.Memo(sharedKey{}, func() any {
		return &shared{sizes: map[string]int{}, wire: wire.NewCache()}
	}).(*shared)
}

// size is the bytes of the OpenAI tools value of tools, whose names joined
// by commas are key, measured at the first call.
func (s *shared) size(key []byte, tools []registry.Tool) int {
	s.mu.Lock()
	n, ok := s.sizes[string(key)]
	s.mu.Unlock()
	if ok {
		return n
	}
	n = toolsBytes(tools)
	s.mu.Lock()
	s.sizes[string(key)] = n
	s.mu.Unlock()
	return n
}
