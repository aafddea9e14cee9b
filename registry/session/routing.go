package session

import (
	"encoding/json"
	"fmt"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// Routing is how a turn brings a tool group's schemas to the model.
type Routing string

const (
	// RoutingClassic: load_tool_group appends the group's tools to the
	// request's tools, from the next call on (docs/reference/routing.md). The default, and
	// what every format speaks.
	RoutingClassic Routing = "classic"
	// RoutingNative: every group is sent deferred and a load brings it in
	// where the load stands in the conversation, so the cached prefix
	// before it is kept. Anthropic: each group's tools with defer_loading,
	// load_tool_group's result carrying a tool_reference block for each
	// tool. Responses: a namespace per group and a client-executed
	// tool_search, answered with the group's namespace. Formats without
	// native deferral fall back to classic (RoutingFor).
	RoutingNative Routing = "native"
)

// RoutingFor is the routing a turn in format f uses when asked for
// routing ("" is classic), and, when that is not what was asked, why.
func RoutingFor(f wire.Format, asked Routing) (Routing, string) {
	if asked != RoutingNative {
		return RoutingClassic, ""
	}
	if !wire.NativeDeferral(f) {
		return RoutingClassic, fmt.Sprintf("native routing asked for, but the %s format has no native deferral of tools: classic load_tool_group is used", f)
	}
	return RoutingNative, ""
}

func validRouting(r Routing) bool { return r == "" || r == RoutingClassic || r == RoutingNative }

// render says how the log's loads are sent: nil for classic routing, where
// a load is a call and its text result like any other.
type render struct {
	reg    *registry.Registry
	format wire.Format
}

// same reports whether n and o send the log the same way.
func (n *render) same(o *render) bool {
	return n == o || (n != nil && o != nil && n.reg == o.reg && n.format == o.format)
}

// deferred are the groups a native request sends deferred: every group
// with an enabled tool, in registration order, whatever the log loaded,
// so the request's tools are the same on every call.
func (n *render) deferred() []wire.Group {
	var out []wire.Group
	for _, g := range n.reg.AvailableGroups() {
		out = append(out, n.group(g))
	}
	return out
}

func (n *render) group(g registry.Group) wire.Group {
	return wire.Group{Name: g.Name, Description: registry.ListedDescription(g.Description), Tools: ToolDefs(n.reg.GroupTools(g.Name))}
}

// call is a logged call as the request sends it: a load is a tool search
// in Responses; a group's tool is called in its namespace there.
func (n *render) call(c wire.Call) wire.Call {
	if n == nil || n.format != wire.Responses {
		return c
	}
	if c.Name == registry.LoadToolGroupName {
		c.Search = true
		return c
	}
	if group, ok := n.reg.GroupOf(c.Name); ok && group != "" && len(n.reg.GroupTools(group)) > 0 {
		c.Namespace = group
	}
	return c
}

// result is a logged result as the request sends it: a load that
// succeeded carries the group it loads, which the codec sends natively.
func (n *render) result(lc loggedCall, res wire.Result) wire.Result {
	c := lc.call
	if n == nil || res.IsError {
		return res
	}
	if c.Name == registry.SearchToolsName && n.format == wire.Anthropic {
		// The tools a search found, referenced where the search stands.
		var found []registry.Tool
		for _, name := range lc.loaded {
			if t, ok := n.reg.Tool(name); ok && t.Group != "" {
				found = append(found, t)
			}
		}
		if len(found) > 0 {
			res.Loaded = &wire.Group{Name: registry.SearchToolsName, Tools: ToolDefs(found)}
		}
		return res
	}
	if c.Name != registry.LoadToolGroupName {
		return res
	}
	var in struct {
		GroupName string `json:"group_name"`
	}
	if json.Unmarshal([]byte(c.Input), &in) != nil {
		return res
	}
	g, ok := n.reg.Group(in.GroupName)
	if !ok || len(n.reg.GroupTools(g.Name)) == 0 {
		return res
	}
	loaded := n.group(g)
	res.Loaded = &loaded
	return res
}

// Schema is what one model call spends on tool schemas, in bytes of the
// OpenAI tools JSON that `toolroute tokens` counts (and the listing's
// text): the core tools, the group listing, and each loaded group. A host
// turns the bytes into tokens with its tokenizer, or shows them as they
// are. A native request also carries the deferred groups' schemas, which
// the provider keeps out of the context until loaded: they are not
// counted.
//
// With Settings.SchemaText, each part also carries the text it measures
// (CoreToolsText, GroupListingText, GroupSchema.Text): a host that counts
// tokens counts those texts, and needs no registry of its own to rebuild
// them.
type Schema struct {
	CoreTools        int           `json:"core_tools"`
	GroupListing     int           `json:"group_listing"`
	CoreToolsText    string        `json:"core_tools_text,omitempty"`
	GroupListingText string        `json:"group_listing_text,omitempty"`
	LoadedGroups     []GroupSchema `json:"loaded_groups,omitempty"`

	// encoded is the schema as a call_model action carries it, made once
	// for a schema with texts: each call of the offer then copies the
	// texts' JSON instead of escaping them again.
	encoded []byte
}

// GroupSchema is a loaded group's share of a call's schemas.
type GroupSchema struct {
	Group string   `json:"group"`
	Tools []string `json:"tools"`
	Bytes int      `json:"bytes"`
	Text  string   `json:"text,omitempty"`
}

// schemaOf measures the call that sends tools with a group listing of
// listing bytes: the core tools, then each group's loaded tools (a whole
// group, or those a search loaded), in the order the groups first appear.
// shared keeps the bytes of each list of tools measured, by their names,
// for the later calls with the same registry.
func schemaOf(tools []registry.Tool, listing int, shared *shared) *Schema {
	s := &Schema{GroupListing: listing}
	var core []registry.Tool
	var groups []string
	byGroup := map[string][]registry.Tool{}
	for _, t := range tools {
		if t.Group == "" {
			core = append(core, t)
			continue
		}
		if _, ok := byGroup[t.Group]; !ok {
			groups = append(groups, t.Group)
		}
		byGroup[t.Group] = append(byGroup[t.Group], t)
	}
	var key []byte
	measure := func(tools []registry.Tool) int {
		key = key[:0]
		for i, t := range tools {
			if i > 0 {
				key = append(key, ',')
			}
			key = append(key, t.Name...)
		}
		return shared.size(key, tools)
	}
	s.CoreTools = measure(core)
	for _, g := range groups {
		tools := byGroup[g]
		s.LoadedGroups = append(s.LoadedGroups, GroupSchema{Group: g, Tools: toolNames(tools), Bytes: measure(tools)})
	}
	return s
}

// withText is s with each part's text: the core tools' and each loaded
// group's OpenAI tools JSON, whose sizes s holds, and the listing. It is
// made once per offer, for the turns whose settings ask for it.
func (s *Schema) withText(tools []registry.Tool, listing string) *Schema {
	out := *s
	out.GroupListingText = listing
	var core []registry.Tool
	byGroup := map[string][]registry.Tool{}
	for _, t := range tools {
		if t.Group == "" {
			core = append(core, t)
		} else {
			byGroup[t.Group] = append(byGroup[t.Group], t)
		}
	}
	out.CoreToolsText = toolsText(core)
	out.LoadedGroups = make([]GroupSchema, len(s.LoadedGroups))
	for i, g := range s.LoadedGroups {
		g.Text = toolsText(byGroup[g.Group])
		out.LoadedGroups[i] = g
	}
	if len(out.LoadedGroups) == 0 {
		out.LoadedGroups = nil
	}
	out.encoded = appendSchema(nil, &out)
	return &out
}

func toolsText(tools []registry.Tool) string {
	text, err := wire.OpenAIToolsJSON(ToolDefs(tools))
	if err != nil {
		return ""
	}
	return text
}

func toolsBytes(tools []registry.Tool) int {
	return len(toolsText(tools))
}
