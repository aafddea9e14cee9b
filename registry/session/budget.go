package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// BudgetOn reports whether a turn with these settings keeps a tool budget
// and offers unload_tool_group: a budget set, a group to load, and classic
// routing (natively, a load stays in the conversation it was made in, so
// nothing can be taken back).
func BudgetOn(reg *registry.Registry, set Settings) bool {
	if set.ToolBudget <= 0 || !reg.HasGroups() {
		return false
	}
	r, _ := RoutingFor(set.Format, set.Routing)
	return r == RoutingClassic
}

// OfferedTools is tools with the meta-tools the settings add after
// load_tool_group (first when there is none): search_tools
// (SearchOffered), then unload_tool_group (BudgetOn).
func OfferedTools(reg *registry.Registry, set Settings, tools []registry.Tool) []registry.Tool {
	var extra []registry.Tool
	if SearchOffered(reg, set) {
		extra = append(extra, registry.SearchToolsTool())
	}
	if BudgetOn(reg, set) {
		extra = append(extra, registry.UnloadToolGroupTool())
	}
	if len(extra) == 0 {
		return tools
	}
	at := slices.IndexFunc(tools, func(tool registry.Tool) bool { return tool.Name == registry.LoadToolGroupName }) + 1
	return slices.Insert(slices.Clone(tools), at, extra...)
}

// EstimateTokens is the tokens tools take in a request, estimated as the
// bytes of their OpenAI tools JSON divided by 4.4, rounded up (the
// budget's measure): within 2 % of o200k_base's count on each of the
// built-in tools' `toolroute tokens` scenarios.
func EstimateTokens(tools []registry.Tool) int { return (toolsBytes(tools)*5 + 21) / 22 }

// unloadGroup runs unload_tool_group: the group's active tools leave the
// list from the next model call.
func (t *Turn) unloadGroup(c wire.Call) (registry.Result, *Call, *GroupLoad) {
	var in struct {
		GroupName *string `json:"group_name"`
	}
	if json.Unmarshal([]byte(c.Input), &in) != nil || in.GroupName == nil {
		return registry.Failure("missing_parameter", "Required parameter 'group_name' is missing."), nil, nil
	}
	name := *in.GroupName
	var names []string
	for _, tool := range t.active.Tools() {
		if tool.Group == name && name != "" {
			names = append(names, tool.Name)
		}
	}
	if len(names) == 0 {
		loaded := t.active.GroupsActive()
		list := "none"
		if len(loaded) > 0 {
			list = strings.Join(loaded, ", ")
		}
		return registry.Failure("not_loaded", fmt.Sprintf("Tool group '%s' is not loaded, so there is nothing to unload. Loaded groups: %s.", name, list)), nil, nil
	}
	removed := t.active.Unload(names)
	g, _ := t.reg.Group(name)
	res := registry.Success(fmt.Sprintf("Unloaded %d tools of group '%s': %s. Load it again with load_tool_group if you need it.",
		len(removed), g.DisplayName, strings.Join(removed, ", ")))
	return res, nil, &GroupLoad{Name: name, DisplayName: g.DisplayName, Added: []string{}, Unloaded: removed,
		Active: toolNames(t.offered(t.active.Tools()))}
}

// fitBudget unloads the least recently used groups, but those of keep,
// until the tools the next call sends fit the budget. It returns the tools
// unloaded and the note the model reads about them.
func (t *Turn) fitBudget(keep []string) ([]string, string) {
	if !BudgetOn(t.reg, t.set) || EstimateTokens(t.offered(t.active.Tools())) <= t.set.ToolBudget {
		return nil, ""
	}
	used := t.lastUse()
	var candidates []string
	for _, g := range t.active.GroupsActive() {
		if !slices.Contains(keep, g) {
			candidates = append(candidates, g)
		}
	}
	// Least recently used first; a group never used since its load goes
	// by its load's place, the order of GroupsActive.
	slices.SortStableFunc(candidates, func(a, b string) int { return used[a] - used[b] })
	var unloaded, said []string
	for _, g := range candidates {
		if EstimateTokens(t.offered(t.active.Tools())) <= t.set.ToolBudget {
			break
		}
		var names []string
		for _, tool := range t.active.Tools() {
			if tool.Group == g {
				names = append(names, tool.Name)
			}
		}
		removed := t.active.Unload(names)
		unloaded = append(unloaded, removed...)
		said = append(said, fmt.Sprintf("%s (%d tools)", g, len(removed)))
	}
	over := EstimateTokens(t.offered(t.active.Tools())) - t.set.ToolBudget
	var note string
	if len(said) > 0 {
		note = fmt.Sprintf("\n\nTo keep your tools within the budget of %d tokens, the least recently used groups were unloaded: %s. Load one again with load_tool_group if you need it.",
			t.set.ToolBudget, strings.Join(said, ", "))
	}
	if over > 0 {
		note += fmt.Sprintf("\n\nYour tools still take about %d tokens more than the budget of %d: unload a group you no longer need with unload_tool_group.", over, t.set.ToolBudget)
	}
	return unloaded, note
}

// lastUse gives each group the place in the log where it was last loaded
// or one of its tools called; the groups of neither are missing (0).
func (t *Turn) lastUse() map[string]int {
	used := map[string]int{}
	// What is kept decodes, or nothing is used.
	_ = t.log.each(0, func(i int, m *Message) {
		if m.Type != ToolCall {
			return
		}
		switch m.ToolName {
		case registry.LoadToolGroupName:
			if g, ok := loadedGroup(*m); ok {
				used[g] = i + 1
			}
		case registry.SearchToolsName:
			for _, name := range m.Loaded {
				if g, ok := t.reg.GroupOf(name); ok && g != "" {
					used[g] = i + 1
				}
			}
		default:
			if g, ok := t.reg.GroupOf(m.ToolName); ok && g != "" {
				used[g] = i + 1
			}
		}
	})
	return used
}
