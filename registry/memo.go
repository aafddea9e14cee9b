package registry

import "sync"

// memoTable holds what was derived from the registry since its last change:
// its own listings and prompts, and what other packages keep with it
// (Memo). A change drops the whole table; readers holding the old one keep
// reading values that were right when they began.
type memoTable struct {
	mu     sync.Mutex
	values map[any]any
	// own are the registry's own values, by their memoKey: found on every
	// step, without hashing an interface.
	own [memoKeys]any
	// prompt is the last system prompt asked for, by its base and whether
	// it lists the groups: a host sends the same base turn after turn.
	prompt [2]struct {
		base, text string
		ok         bool
	}
}

func (r *Registry) memos() *memoTable {
	if m := r.memo.Load(); m != nil {
		return m
	}
	m := &memoTable{values: map[any]any{}}
	if r.memo.CompareAndSwap(nil, m) {
		return m
	}
	return r.memo.Load()
}

// Memo is the value build gives for key, built at the first call since the
// registry last changed and kept with it: what a package derives from a
// catalogue once (rendered tool entries, measured sizes) rather than on
// every model call. key is a value of a type of the caller's own, so that
// packages do not meet. Concurrent first calls may each build; the first
// value kept is the one every call answers. A value that its users change
// must guard itself.
func (r *Registry) Memo(key any, build func() any) any {
	m := r.memos()
	if k, own := key.(memoKey); own {
		return m.ownValue(k, build)
	}
	m.mu.Lock()
	v, ok := m.values[key]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	m.mu.Lock()
	defer m.mu.Unlock()
	if kept, ok := m.values[key]; ok {
		return kept
	}
	m.values[key] = v
	return v
}

// ownValue is Memo of one of the registry's own keys.
func (m *memoTable) ownValue(k memoKey, build func() any) any {
	m.mu.Lock()
	v := m.own[k]
	m.mu.Unlock()
	if v != nil {
		return v
	}
	v = build()
	m.mu.Lock()
	defer m.mu.Unlock()
	if kept := m.own[k]; kept != nil {
		return kept
	}
	m.own[k] = v
	return v
}

// memoKey names the registry's own derived values in its memo table.
type memoKey int

const (
	memoAvailableGroups memoKey = iota
	memoGroupListing
	memoSkillListing
	memoCoreTools
	memoGroupTools
	memoLoadTexts
	memoKeys // how many
)
