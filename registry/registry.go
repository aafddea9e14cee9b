package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// Errors a caller may branch on. They are wrapped with the detail.
var (
	ErrDuplicateTool  = errors.New("registry: tool already registered")
	ErrDuplicateGroup = errors.New("registry: tool group already registered")
	ErrDuplicateSkill = errors.New("registry: skill already registered")
	ErrUnknownTool    = errors.New("registry: unknown tool")
	ErrUnknownGroup   = errors.New("registry: unknown tool group")
	ErrInvalid        = errors.New("registry: invalid definition")
)

// Registry holds the catalogue: tools, groups and skills, in registration
// order, and which tools are disabled. A new Registry holds the two meta-tools.
//
// A Registry is not safe for concurrent use; a host builds one and then only
// reads it, or guards it.
type Registry struct {
	tools    []Tool
	toolIdx  map[string]int
	groups   []Group
	groupIdx map[string]int
	skills   []Skill
	disabled map[string]bool
	search   searchIndex // built from the above at the first search_tools
	memo     atomic.Pointer[memoTable]
}

// New returns a registry holding the meta-tools load_tool_group and load_skill.
func New() *Registry { return newSized(0, 0) }

// newSized is New with room for tools and groups more: growing the list
// of a catalogue of 10,000 tools one append at a time allocated as much
// again as everything else Build does.
func newSized(tools, groups int) *Registry {
	r := &Registry{
		tools:    make([]Tool, 0, tools+2),
		toolIdx:  make(map[string]int, tools+2),
		groups:   make([]Group, 0, groups),
		groupIdx: make(map[string]int, groups),
		disabled: map[string]bool{},
	}
	r.insert(loadToolGroupTool())
	r.insert(loadSkillTool())
	return r
}

func (r *Registry) insert(t Tool) {
	r.changed()
	r.toolIdx[t.Name] = len(r.tools)
	r.tools = append(r.tools, t)
}

// AddGroup registers a group definition. Its tools are added afterwards with
// AddTool or LoadManifest. A name already in use is an error wrapping
// ErrDuplicateGroup.
func (r *Registry) AddGroup(g Group) error {
	r.changed()
	if !ValidToolName(g.Name) {
		return fmt.Errorf("%w: group name %q must be snake_case (lowercase letters, digits, underscores)", ErrInvalid, g.Name)
	}
	if g.DisplayName == "" {
		g.DisplayName = DisplayNameFromFile(g.Name)
	}
	if i, ok := r.groupIdx[g.Name]; ok {
		return fmt.Errorf("%w: %q is already defined by %s; rename one of them", ErrDuplicateGroup, g.Name, r.groups[i].Origin.describe())
	}
	if g.Origin.Kind == "" {
		g.Origin.Kind = OriginHost
	}
	r.groupIdx[g.Name] = len(r.groups)
	r.groups = append(r.groups, g)
	return nil
}

// AddTool registers a tool defined by the host (a host-native tool, when its
// Origin is empty). Its parameter schema is normalized as NormalizeSchema
// says; its group, when set, must already be registered; a zero timeout
// becomes DefaultTimeoutSeconds. A name already in use is an error wrapping
// ErrDuplicateTool.
func (r *Registry) AddTool(t Tool) error {
	if t.Origin.Kind == "" {
		t.Origin.Kind = OriginHost
	}
	if err := r.prepare(&t); err != nil {
		return err
	}
	if i, ok := r.toolIdx[t.Name]; ok {
		return fmt.Errorf("%w: %q is already defined by %s", ErrDuplicateTool, t.Name, r.tools[i].Origin.describe())
	}
	r.insert(t)
	return nil
}

func (r *Registry) prepare(t *Tool) error {
	if !ValidToolName(t.Name) {
		return fmt.Errorf("%w: tool name %q must be snake_case (lowercase letters, digits, underscores)", ErrInvalid, t.Name)
	}
	if strings.TrimSpace(t.Description) == "" {
		return fmt.Errorf("%w: tool %q has no description", ErrInvalid, t.Name)
	}
	schema, required, err := NormalizeSchema(t.Parameters)
	if err != nil {
		return fmt.Errorf("%w: tool %q: %v", ErrInvalid, t.Name, err)
	}
	t.Parameters, t.Required = schema, required
	if t.TimeoutSeconds == 0 {
		t.TimeoutSeconds = DefaultTimeoutSeconds
	}
	if t.TimeoutSeconds < 0 || t.TimeoutSeconds > MaxTimeoutSeconds {
		return fmt.Errorf("%w: tool %q: timeout must be between 1 and %d seconds, or 0 for the default %d", ErrInvalid, t.Name, MaxTimeoutSeconds, DefaultTimeoutSeconds)
	}
	if t.Group != "" {
		if _, ok := r.groupIdx[t.Group]; !ok {
			return fmt.Errorf("%w: tool %q names group %q, which is not registered: add the group first", ErrUnknownGroup, t.Name, t.Group)
		}
	}
	return nil
}

// AddSkill registers a skill. Its name follows the Agent Skills rule
// (lowercase letters, digits, hyphens and underscores) and must be unique.
func (r *Registry) AddSkill(s Skill) error {
	if !validSkillName(s.Name) {
		return fmt.Errorf("%w: skill name %q must be lowercase letters, digits, '-' or '_', starting with a letter or digit", ErrInvalid, s.Name)
	}
	if strings.TrimSpace(s.Description) == "" {
		return fmt.Errorf("%w: skill %q has no description", ErrInvalid, s.Name)
	}
	for _, have := range r.skills {
		if have.Name == s.Name {
			return fmt.Errorf("%w: %q", ErrDuplicateSkill, s.Name)
		}
	}
	r.changed()
	r.skills = append(r.skills, s)
	return nil
}

func validSkillName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// SetToolEnabled enables or disables a tool. A disabled tool is in no list and
// cannot be called; a group whose tools are all disabled is not offered to the
// model. The meta-tools cannot be disabled.
func (r *Registry) SetToolEnabled(name string, enabled bool) error {
	i, ok := r.toolIdx[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	if r.tools[i].Origin.Kind == OriginMeta && !enabled {
		return fmt.Errorf("%w: %q is a meta-tool and cannot be disabled", ErrInvalid, name)
	}
	r.changed()
	if enabled {
		delete(r.disabled, name)
	} else {
		r.disabled[name] = true
	}
	return nil
}

// Enabled reports whether a registered tool is enabled.
func (r *Registry) Enabled(name string) bool {
	_, ok := r.toolIdx[name]
	return ok && !r.disabled[name]
}

// Tool returns an enabled tool by name.
func (r *Registry) Tool(name string) (Tool, bool) {
	i, ok := r.toolIdx[name]
	if !ok || r.disabled[name] {
		return Tool{}, false
	}
	return r.tools[i], true
}

// Definition returns a registered tool by name, enabled or not, for display
// and tool management; calls use Tool.
func (r *Registry) Definition(name string) (Tool, bool) {
	i, ok := r.toolIdx[name]
	if !ok {
		return Tool{}, false
	}
	return r.tools[i], true
}

// Has reports whether a tool of that name is registered, enabled or not.
func (r *Registry) Has(name string) bool {
	_, ok := r.toolIdx[name]
	return ok
}

// GroupOf returns the group of a registered tool, enabled or not, and whether
// the tool is registered. Core tools have the group "".
func (r *Registry) GroupOf(name string) (string, bool) {
	i, ok := r.toolIdx[name]
	if !ok {
		return "", false
	}
	return r.tools[i].Group, true
}

// CoreTools returns the enabled tools that belong to no group, in
// registration order: the tools sent to the model on every call. A meta-tool
// is among them only when it has something to load: load_tool_group when a
// group has an enabled tool, load_skill when there is a skill.
func (r *Registry) CoreTools() []Tool {
	return slices.Clone(r.Memo(memoCoreTools, func() any { return r.coreTools() }).([]Tool))
}

func (r *Registry) coreTools() []Tool {
	hasGroups := r.HasGroups()
	return r.filter(func(t Tool) bool {
		switch t.Name {
		case LoadToolGroupName:
			return hasGroups
		case LoadSkillName:
			return len(r.skills) > 0
		}
		return t.Group == ""
	})
}

// GroupTools returns the enabled tools of a group in manifest order, or none
// for an unknown group.
func (r *Registry) GroupTools(group string) []Tool {
	return slices.Clone(r.groupTools(group))
}

// GroupToolNames returns the names of the enabled tools of a group in
// manifest order, or none for an unknown group.
func (r *Registry) GroupToolNames(group string) []string {
	tools := r.groupTools(group)
	if len(tools) == 0 {
		return nil
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

// groupTools is GroupTools shared, not copied: its callers do not change
// it. Every group's list is made at the first call after a change.
func (r *Registry) groupTools(group string) []Tool {
	byGroup := r.Memo(memoGroupTools, func() any {
		byGroup := map[string][]Tool{}
		for _, t := range r.tools {
			if t.Group != "" && !r.disabled[t.Name] {
				byGroup[t.Group] = append(byGroup[t.Group], t)
			}
		}
		return byGroup
	}).(map[string][]Tool)
	return byGroup[group]
}

// Tools returns every enabled tool in registration order.
func (r *Registry) Tools() []Tool {
	return r.filter(func(Tool) bool { return true })
}

func (r *Registry) filter(keep func(Tool) bool) []Tool {
	var out []Tool
	for _, t := range r.tools {
		if !r.disabled[t.Name] && keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// ToolState is a tool's name, group, origin and whether it is enabled.
type ToolState struct {
	Name    string `json:"name"`
	Group   string `json:"group,omitempty"`
	Origin  Origin `json:"origin"`
	Enabled bool   `json:"enabled"`
}

// ToolStates lists every registered tool, disabled ones included, in
// registration order.
func (r *Registry) ToolStates() []ToolState {
	out := make([]ToolState, len(r.tools))
	for i, t := range r.tools {
		out[i] = ToolState{Name: t.Name, Group: t.Group, Origin: t.Origin, Enabled: !r.disabled[t.Name]}
	}
	return out
}

// Group returns a group definition by name.
func (r *Registry) Group(name string) (Group, bool) {
	i, ok := r.groupIdx[name]
	if !ok {
		return Group{}, false
	}
	return r.groups[i], true
}

// Groups returns every group definition in registration order, including
// groups that have no enabled tool.
func (r *Registry) Groups() []Group { return slices.Clone(r.groups) }

// AvailableGroups returns, in registration order, the groups that have at
// least one enabled tool: the groups the system prompt lists and
// load_tool_group offers.
func (r *Registry) AvailableGroups() []Group {
	return slices.Clone(r.availableGroups())
}

// HasGroups reports whether any group has an enabled tool: whether
// AvailableGroups lists any.
func (r *Registry) HasGroups() bool { return len(r.availableGroups()) > 0 }

// availableGroups is AvailableGroups, computed once per change and shared:
// its callers do not change it.
func (r *Registry) availableGroups() []Group {
	return r.Memo(memoAvailableGroups, func() any { return r.findAvailableGroups() }).([]Group)
}

func (r *Registry) findAvailableGroups() []Group {
	has := map[string]bool{}
	for _, t := range r.tools {
		if t.Group != "" && !r.disabled[t.Name] {
			has[t.Group] = true
		}
	}
	var out []Group
	for _, g := range r.groups {
		if has[g.Name] {
			out = append(out, g)
		}
	}
	return out
}

// GroupMembers is a group's name and the names of its enabled tools.
type GroupMembers struct {
	Group string   `json:"group"`
	Tools []string `json:"tools"`
}

// GroupMembership maps each group to the names of its enabled tools, whatever
// their origin, in group registration order; groups without an enabled tool
// are left out.
func (r *Registry) GroupMembership() []GroupMembers {
	var out []GroupMembers
	for _, g := range r.groups {
		var names []string
		for _, t := range r.GroupTools(g.Name) {
			names = append(names, t.Name)
		}
		if len(names) > 0 {
			out = append(out, GroupMembers{Group: g.Name, Tools: names})
		}
	}
	return out
}

// Skills returns the skills in registration order.
func (r *Registry) Skills() []Skill { return slices.Clone(r.skills) }

// Skill returns a skill by name.
func (r *Registry) Skill(name string) (Skill, bool) {
	for _, s := range r.skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// describe names an origin for error messages.
func (o Origin) describe() string {
	switch o.Kind {
	case OriginJS:
		return fmt.Sprintf("'%s'", o.File)
	case OriginMeta:
		return "the registry (meta-tool)"
	default:
		return "the host"
	}
}

// removeGroupTools drops every tool of a group and returns how many it dropped.
func (r *Registry) removeGroupTools(group string) {
	kept := r.tools[:0]
	for _, t := range r.tools {
		if t.Group != group {
			kept = append(kept, t)
		}
	}
	clear(r.tools[len(kept):])
	r.tools = kept
	r.reindex()
}

func (r *Registry) reindex() {
	r.changed()
	clear(r.toolIdx)
	for i, t := range r.tools {
		r.toolIdx[t.Name] = i
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
