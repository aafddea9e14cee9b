package session

import (
	"sync"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// shared is what every turn with one registry uses alike, kept with the
// registry (registry.Memo) so that a turn does not measure or encode again
// what the turn before it did: what a call offers for each list of active
// tools, the bytes of each list of tools a call's schema reports, and the
// encoded tool entries, tools values and system message (wire.Cache).
// Each map is bounded; sizes hold no pointers.
type shared struct {
	mu    sync.Mutex
	sizes map[string]int
	wire  *wire.Cache
	// offers are the offers made so far, by the key Turn.offer makes.
	offers map[string]*offer
}

// maxOffers bounds the offers kept: searches can make many lists of tools.
const maxOffers = 256

// offer is what a model call offers for one list of active tools with
// the registry: the same for every turn's first call, and for every call
// after the same loads. Nothing that holds one changes it.
type offer struct {
	active []registry.Tool // the list it was made for
	names  []string
	sent   map[string]bool // names as a set: the tools the model may call
	defs   []wire.ToolDef
	schema *Schema
	// tools and listing are what schema measured, for schemaText.
	tools   []registry.Tool
	listing string
	// text is schema with its parts' texts, made at the first turn
	// whose settings ask for it (Settings.SchemaText).
	textOnce sync.Once
	text     *Schema
}

// schemaText is the offer's schema with each part's text.
func (o *offer) schemaText() *Schema {
	o.textOnce.Do(func() { o.text = o.schema.withText(o.tools, o.listing) })
	return o.text
}

// offer is the turn's offer for its active tools, made once per list.
func (t *Turn) offer() *offer {
	search, budget := SearchOffered(t.reg, t.set), BudgetOn(t.reg, t.set)
	var buf [256]byte
	key := append(buf[:0], '0', '0')
	if search {
		key[0] = '1'
	}
	if budget {
		key[1] = '1'
	}
	key = t.active.AppendNames(key)
	s := t.sharedState()
	s.mu.Lock()
	o, ok := s.offers[string(key)]
	s.mu.Unlock()
	if ok && t.active.Holds(o.active) {
		return o
	}
	active := t.active.Tools()
	tools := OfferedTools(t.reg, t.set, active)
	listing := t.reg.GroupListing()
	o = &offer{active: active, names: toolNames(tools), sent: make(map[string]bool, len(tools)), defs: ToolDefs(tools),
		schema: schemaOf(tools, len(listing), s), tools: tools, listing: listing}
	for _, name := range o.names {
		o.sent[name] = true
	}
	s.mu.Lock()
	if len(s.offers) >= maxOffers {
		clear(s.offers)
	}
	s.offers[string(key)] = o
	s.mu.Unlock()
	return o
}

// sharedState is sharedOf the turn's registry, looked up once per
// registry.
func (t *Turn) sharedState() *shared {
	if t.shared == nil || t.sharedFor != t.reg {
		t.shared, t.sharedFor = sharedOf(t.reg), t.reg
	}
	return t.shared
}

// sharedKey names shared among the registry's memos.
type sharedKey struct{}

// sharedOf is reg's shared state, made at its first use.
func sharedOf(reg *registry.Registry) *shared {
	return reg.Memo(sharedKey{}, func() any {
		return &shared{sizes: map[string]int{}, wire: wire.NewCache(), offers: map[string]*offer{}}
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
	if len(s.sizes) >= maxOffers*4 {
		clear(s.sizes) // searches can make many lists of tools
	}
	s.sizes[string(key)] = n
	s.mu.Unlock()
	return n
}
