package registry

import (
	"slices"
	"unsafe"
)

// Active is the list of tools a conversation sends to the model: the core
// tools, then each loaded group's tools appended in the order the groups were
// loaded. Tools are only ever appended, never reordered, so a provider's
// prompt cache on the list's prefix survives a load.
type Active struct {
	r      *Registry
	tools  []Tool
	has    map[string]bool
	groups []string
}

// NewActive returns an active list holding the core tools.
func (r *Registry) NewActive() *Active {
	a := &Active{r: r, has: map[string]bool{}}
	for _, t := range r.CoreTools() {
		a.add(t)
	}
	return a
}

func (a *Active) add(t Tool) {
	a.has[t.Name] = true
	a.tools = append(a.tools, t)
}

// LoadGroup appends a group's enabled tools. It reports whether the group was
// added: loading a group already loaded, an unknown group or a group without
// an enabled tool changes nothing.
func (a *Active) LoadGroup(name string) bool {
	if slices.Contains(a.groups, name) {
		return false
	}
	tools := a.r.groupTools(name)
	if len(tools) == 0 {
		return false
	}
	a.groups = append(a.groups, name)
	for _, t := range tools {
		if !a.has[t.Name] {
			a.add(t)
		}
	}
	return true
}

// LoadTools appends the named enabled tools of groups that are not active
// yet, in the order given (a tool-level load, search_tools'). It returns
// those it added; unknown, disabled, core and active tools are skipped.
func (a *Active) LoadTools(names []string) []string {
	var added []string
	for _, name := range names {
		t, ok := a.r.Tool(name)
		if !ok || t.Group == "" || a.has[name] {
			continue
		}
		a.add(t)
		added = append(added, name)
	}
	return added
}

// Unload removes the named tools (a group's, or single tools) from the
// active list, keeping the others' order, and forgets a group none of whose
// tools stays active, so that loading it again adds it again. It returns
// the tools removed; core tools are never removed.
func (a *Active) Unload(names []string) []string {
	var removed []string
	for _, name := range names {
		if !a.has[name] {
			continue
		}
		i := slices.IndexFunc(a.tools, func(t Tool) bool { return t.Name == name })
		if a.tools[i].Group == "" {
			continue
		}
		a.tools = slices.Delete(a.tools, i, i+1)
		delete(a.has, name)
		removed = append(removed, name)
	}
	a.groups = slices.DeleteFunc(a.groups, func(g string) bool {
		return !slices.ContainsFunc(a.tools, func(t Tool) bool { return t.Group == g })
	})
	return removed
}

// GroupsActive returns every group with an active tool, whether loaded
// whole or tool by tool, in the order their first tool became active.
func (a *Active) GroupsActive() []string {
	var out []string
	for _, t := range a.tools {
		if t.Group != "" && !slices.Contains(out, t.Group) {
			out = append(out, t.Group)
		}
	}
	return out
}

// Tools returns the active tools in the order they are sent.
func (a *Active) Tools() []Tool { return slices.Clone(a.tools) }

// AppendNames appends the active tools' names to dst, each followed by a
// comma: a key for the list, made without a copy of it.
func (a *Active) AppendNames(dst []byte) []byte {
	for _, t := range a.tools {
		dst = append(append(dst, t.Name...), ',')
	}
	return dst
}

// Holds reports whether the list is tools, each the very same definition:
// the same name, and the same description and schema in memory. What a
// caller made from an earlier list, it may use for this one then.
func (a *Active) Holds(tools []Tool) bool {
	if len(tools) != len(a.tools) {
		return false
	}
	for i, t := range a.tools {
		u := tools[i]
		if t.Name != u.Name || len(t.Description) != len(u.Description) || unsafe.StringData(t.Description) != unsafe.StringData(u.Description) ||
			len(t.Parameters) != len(u.Parameters) || unsafe.SliceData(t.Parameters) != unsafe.SliceData(u.Parameters) {
			return false
		}
	}
	return true
}

// Has reports whether a tool is active.
func (a *Active) Has(name string) bool { return a.has[name] }

// Groups returns the loaded groups in load order.
func (a *Active) Groups() []string { return slices.Clone(a.groups) }
