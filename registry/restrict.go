package registry

import "slices"

// Restrict returns the registry an agent with an allowlist sees: the core
// tools, the skills and, of the groups, only those named in groups, in
// registration order, with their tools. A group outside the list is in no
// listing, cannot be loaded (load_tool_group answers as for a group that
// does not exist) and search_tools does not find its tools. Names of groups
// that are not registered are ignored. No names at all is every group: r
// itself is returned.
//
// The result shares nothing mutable with r; r is only read.
func (r *Registry) Restrict(groups []string) *Registry {
	if len(groups) == 0 {
		return r
	}
	out := &Registry{
		toolIdx:  map[string]int{},
		groupIdx: map[string]int{},
		disabled: map[string]bool{},
		skills:   slices.Clone(r.skills),
	}
	for _, g := range r.groups {
		if slices.Contains(groups, g.Name) {
			out.groupIdx[g.Name] = len(out.groups)
			out.groups = append(out.groups, g)
		}
	}
	for _, t := range r.tools {
		if t.Group != "" {
			if _, ok := out.groupIdx[t.Group]; !ok {
				continue
			}
		}
		out.toolIdx[t.Name] = len(out.tools)
		out.tools = append(out.tools, t)
		if r.disabled[t.Name] {
			out.disabled[t.Name] = true
		}
	}
	out.search.vecs.Store(r.search.vecs.Load())
	return out
}
