package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// toolList is what `toolroute tools --json` prints: every tool the model
// could be offered.
type toolList struct {
	// Core are the tools every model call sends, the meta-tools first.
	Core []listedTool `json:"core"`
	// Groups are listed in the system prompt; load_tool_group (or
	// search_tools, tool by tool) adds their tools.
	Groups []listedGroup `json:"groups"`
	// Problems are what did not load.
	Problems []string `json:"problems"`
	// MCPServers counts the MCP servers: configured (in mcp.json, not
	// disabled), known (their tools are: listed in this run, or kept from
	// their last), started (in this run; a known one starts at the first
	// call of one of its tools). Absent without any.
	MCPServers *mcpCount `json:"mcp_servers,omitempty"`
}

// mcpCount is toolList's MCPServers.
type mcpCount struct {
	Configured int `json:"configured"`
	Known      int `json:"known"`
	Started    int `json:"started"`
}

// listedTool is one tool: where it comes from, whether the model is offered
// it, and what its schema costs.
type listedTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source is meta, built-in, user file, MCP server or native.
	Source string `json:"source"`
	// File is the manifest of a JS tool.
	File    string `json:"file,omitempty"`
	Enabled bool   `json:"enabled"`
	// Offered says when a meta-tool is offered, such as "with
	// --search-tools".
	Offered string `json:"offered,omitempty"`
	// Tokens is the o200k_base tokens of the tool alone in an OpenAI
	// request's tools array, as toolroute tokens counts.
	Tokens     int             `json:"tokens"`
	Parameters json.RawMessage `json:"parameters"`
}

// listedGroup is one group with its tools.
type listedGroup struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	File        string `json:"file,omitempty"`
	// MCP is the state of the MCP server whose group it is (host/mcp's
	// states: known, starting, connected, down).
	MCP string `json:"mcp,omitempty"`
	// Enabled is false for a group with no enabled tool, which the model
	// is not offered.
	Enabled bool `json:"enabled"`
	// Tokens is its enabled tools' schemas together.
	Tokens int          `json:"tokens"`
	Tools  []listedTool `json:"tools"`
}

// The sources of tools and groups.
const (
	sourceMeta    = "meta"
	sourceBuiltin = "built-in"
	sourceUser    = "user file"
	sourceMCP     = "MCP server"
	sourceNative  = "native"
)

func runTools(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("tools", stderr)
	var af appFlags
	af.register(fs)
	af.registerMCP(fs)
	af.registerRouting(fs)
	group := fs.String("group", "", "list only this group (core: the core tools)")
	asJSON := fs.Bool("json", false, "print the list as JSON, with each tool's parameter schema")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return exitFor(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute tools: unexpected %q: --group NAME lists one group\n", rest[0])
		return 2
	}
	af.cfg.NoModel = true
	af.noWatch = true
	af.quiet = true
	ctx := context.Background()
	a, err := af.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	list, err := listTools(ctx, a)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	switch {
	case *group == "core":
		list.Groups = []listedGroup{}
	case *group != "":
		i := slices.IndexFunc(list.Groups, func(g listedGroup) bool { return g.Name == *group })
		if i < 0 {
			var names []string
			for _, g := range list.Groups {
				names = append(names, g.Name)
			}
			fmt.Fprintf(stderr, "toolroute tools: no group %q: the groups are core, %s\n", *group, strings.Join(names, ", "))
			return 1
		}
		list.Core, list.Groups = []listedTool{}, list.Groups[i:i+1]
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(list)
	} else {
		err = list.write(stdout, *group == "")
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	return 0
}

// listTools lists the program's tools as a session's model calls are
// offered them, with the settings it runs with (routing, search_tools,
// the tool budget).
func listTools(ctx context.Context, a *app.App) (toolList, error) {
	d, err := a.Host.Describe(ctx, "")
	if err != nil {
		return toolList{}, err
	}
	mcpGroups := map[string]string{}
	mcpStates := map[string]mcp.State{}
	var count mcpCount
	statuses := a.MCPStatus()
	for _, st := range statuses {
		if st.Group != "" {
			mcpGroups[st.Group] = st.Key
			mcpStates[st.Group] = st.State
		}
		if st.State == mcp.Disabled {
			continue
		}
		count.Configured++
		if st.Cached || st.Server != "" {
			count.Known++
		}
		if st.Started {
			count.Started++
		}
	}
	source := func(o registry.Origin, group string) (string, string) {
		switch {
		case o.Kind == registry.OriginMeta:
			return sourceMeta, ""
		case o.Kind == registry.OriginJS && strings.HasPrefix(o.Source, builtinLabel+"/"):
			return sourceBuiltin, ""
		case o.Kind == registry.OriginJS:
			return sourceUser, o.File
		case mcpGroups[group] != "":
			return sourceMCP, ""
		}
		return sourceNative, ""
	}
	listed := func(t registry.Tool, enabled bool) (listedTool, error) {
		n, err := schemaTokens(t)
		src, file := source(t.Origin, t.Group)
		return listedTool{Name: t.Name, Description: t.Description, Source: src, File: file, Enabled: enabled, Tokens: n, Parameters: t.Parameters}, err
	}
	list := toolList{Core: []listedTool{}, Groups: []listedGroup{}, Problems: a.Problems()}
	if len(statuses) > 0 {
		list.MCPServers = &count
	}
	if list.Problems == nil {
		list.Problems = []string{}
	}
	// The meta-tools, in the order a model call sends them.
	// Describe asks with the program's settings (format, routing,
	// search_tools, the tool budget): the module's Active says which
	// meta-tools a model call adds.
	hasGroups := slices.ContainsFunc(d.Groups, func(g abi.GroupInfo) bool { return g.Available })
	metas := []struct {
		tool    registry.Tool
		offered string
		on      bool
	}{
		{metaTool(d, registry.LoadToolGroupName), "when a group has an enabled tool", hasGroups},
		{registry.SearchToolsTool(), "with --search-tools (TOOLROUTE_SEARCH_TOOLS=on)", slices.Contains(d.Active, registry.SearchToolsName)},
		{registry.UnloadToolGroupTool(), "with --tool-budget N (TOOLROUTE_TOOL_BUDGET), classic routing", slices.Contains(d.Active, registry.UnloadToolGroupName)},
		{metaTool(d, registry.LoadSkillName), "when there are skills (CONFIG/skills/NAME/SKILL.md)", len(d.Skills) > 0},
	}
	for _, m := range metas {
		if m.tool.Name == "" {
			continue
		}
		lt, err := listed(m.tool, m.on)
		if err != nil {
			return toolList{}, err
		}
		lt.Offered = m.offered
		list.Core = append(list.Core, lt)
	}
	for _, t := range d.Tools {
		if t.Group != "" || t.Origin.Kind == registry.OriginMeta {
			continue
		}
		lt, err := listed(t.Tool, t.Enabled)
		if err != nil {
			return toolList{}, err
		}
		list.Core = append(list.Core, lt)
	}
	for _, g := range d.Groups {
		src, file := source(g.Origin, g.Name)
		lg := listedGroup{Name: g.Name, DisplayName: g.DisplayName, Description: g.Description, Source: src, File: file, Enabled: g.Available, Tools: []listedTool{},
			MCP: string(mcpStates[g.Name])}
		var enabled []registry.Tool
		for _, t := range d.Tools {
			if t.Group != g.Name {
				continue
			}
			lt, err := listed(t.Tool, t.Enabled)
			if err != nil {
				return toolList{}, err
			}
			lg.Tools = append(lg.Tools, lt)
			if t.Enabled {
				enabled = append(enabled, t.Tool)
			}
		}
		if len(enabled) > 0 {
			n, err := countTools(enabled)
			if err != nil {
				return toolList{}, err
			}
			lg.Tokens = n
		}
		list.Groups = append(list.Groups, lg)
	}
	return list, nil
}

// metaTool is the catalogue's meta-tool of that name, as the module
// describes it; a zero Tool when it has none enabled.
func metaTool(d abi.Description, name string) registry.Tool {
	return enabledTool(d, name)
}

// enabledTool is the tool of that name as the module describes it, when
// it is enabled; a zero Tool otherwise.
func enabledTool(d abi.Description, name string) registry.Tool {
	i := slices.IndexFunc(d.Tools, func(t abi.ToolInfo) bool { return t.Name == name })
	if i < 0 || !d.Tools[i].Enabled {
		return registry.Tool{}
	}
	return d.Tools[i].Tool
}

// schemaTokens is a tool's schema's o200k_base tokens: the tools array of
// an OpenAI request that sends it alone, as toolroute tokens counts.
func schemaTokens(t registry.Tool) (int, error) { return countTools([]registry.Tool{t}) }

func countTools(ts []registry.Tool) (int, error) {
	text, err := wire.OpenAIToolsJSON(session.ToolDefs(ts))
	if err != nil {
		return 0, err
	}
	return tokens.Count(tokens.O200kBase, text)
}

// write prints the list for people; all says the whole list is printed,
// with what the columns mean.
func (l toolList) write(w io.Writer, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(l.Core) > 0 {
		fmt.Fprintln(tw, "Core tools: sent on every model call (o200k tokens of each schema)")
		for _, t := range l.Core {
			state := ""
			switch {
			case t.Offered != "" && t.Enabled:
				state = "offered now; " + t.Offered
			case t.Offered != "":
				state = "not offered now; " + t.Offered
			case !t.Enabled:
				state = "disabled"
			}
			fmt.Fprintln(tw, cells("  "+t.Name, sourceText(t.Source, t.File), fmt.Sprint(t.Tokens), state))
		}
	}
	var yours []string
	for _, t := range l.Core {
		if t.Source == sourceUser {
			yours = append(yours, t.Name)
		}
	}
	if len(yours) > 0 {
		fmt.Fprintf(tw, "  (%s: a single-tool manifest is a core tool, sent on every call; in an array manifest, a group, it is sent only once the group is loaded)\n", strings.Join(yours, ", "))
	}
	if len(l.Groups) > 0 {
		if len(l.Core) > 0 {
			fmt.Fprintln(tw)
		}
		if all {
			fmt.Fprintln(tw, "Groups: listed in the system prompt; load_tool_group adds a group's tools for the rest of the conversation")
		}
		for i, g := range l.Groups {
			if i > 0 || all {
				fmt.Fprintln(tw)
			}
			state := ""
			switch {
			case g.MCP == string(mcp.Known):
				state = ", its tools from the server's last run (it starts at the first call of one)"
			case g.MCP != "" && g.MCP != string(mcp.Connected):
				state = ", server " + g.MCP
			}
			if !g.Enabled {
				state += ", disabled (no enabled tool)"
			}
			fmt.Fprintf(tw, "%s (%s): %s, %s, %d tokens%s\n", g.Name, g.DisplayName, sourceText(g.Source, g.File), plural(len(g.Tools), "tool"), g.Tokens, state)
			for _, t := range g.Tools {
				state := ""
				if !t.Enabled {
					state = "disabled"
				}
				fmt.Fprintln(tw, cells("  "+t.Name, fmt.Sprint(t.Tokens), state))
			}
		}
	}
	if c := l.MCPServers; all && c != nil {
		fmt.Fprintf(tw, "\nMCP servers: %d configured, %d known (their tools listed now or kept from their last run), %d started\n", c.Configured, c.Known, c.Started)
	}
	if all && len(l.Problems) > 0 {
		fmt.Fprintf(tw, "\nNot loaded (%d): toolroute check says why, with the line\n", len(l.Problems))
		for _, p := range l.Problems {
			fmt.Fprintf(tw, "  %s\n", p)
		}
	}
	return tw.Flush()
}

// cells joins a table line's cells with tabs, leaving out empty ones at
// its end, so that no line ends in spaces.
func cells(c ...string) string {
	for len(c) > 0 && c[len(c)-1] == "" {
		c = c[:len(c)-1]
	}
	return strings.Join(c, "\t")
}

// sourceText is a source for people: a user file's manifest named.
func sourceText(source, file string) string {
	if file != "" {
		return source + " " + filepath.Base(file)
	}
	return source
}
