package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/registry"
)

// MaxNameLength is the longest name a group or tool gets: the providers
// refuse a request whose tool names are longer than 64 characters.
const MaxNameLength = 64

// ValidName makes an MCP server's key or tool name a valid toolroute name
// (^[a-z][a-z0-9_]*$): lower case, every run of characters outside a-z0-9_
// becomes one _, and mcp_ goes before a name that does not start with a
// letter; it is cut to MaxNameLength characters.
func ValidName(name string) string {
	var b strings.Builder
	run := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
			run = false
		} else if !run {
			b.WriteByte('_')
			run = true
		}
	}
	out := b.String()
	if out == "" || out[0] < 'a' || out[0] > 'z' {
		out = "mcp_" + out
	}
	if len(out) > MaxNameLength {
		out = out[:MaxNameLength]
	}
	return out
}

// Permissions are the requiredPermissions an MCP tool's annotations give:
// read for readOnlyHint; else delete when destructiveHint is true or absent
// (the spec's default); else write. A tool without annotations counts as
// destructive. network follows unless openWorldHint is false (true is the
// spec's default), so the tool's world stays open when toolroute mcp
// offers it again.
func Permissions(a *mcp.ToolAnnotations) []string {
	var out []string
	switch {
	case a != nil && a.ReadOnlyHint:
		out = []string{registry.PermissionRead}
	case a == nil || a.DestructiveHint == nil || *a.DestructiveHint:
		out = []string{registry.PermissionDelete}
	default:
		out = []string{registry.PermissionWrite}
	}
	if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
		out = append(out, registry.PermissionNetwork)
	}
	return out
}

// MaxGroupDescription is the most characters of a server's instructions a
// group's description takes.
const MaxGroupDescription = 200

// GroupDescription is a server's group description: the first line of its
// instructions that has text, without the marks of a Markdown heading, cut
// to MaxGroupDescription characters; or, without instructions, "Tools: a,
// b, c" as a JS group without a description gets.
func GroupDescription(instructions string, tools []string) string {
	for _, line := range strings.Split(instructions, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#")); line != "" {
			if utf8.RuneCountInString(line) > MaxGroupDescription {
				line = strings.TrimSpace(string([]rune(line)[:MaxGroupDescription]))
			}
			return line
		}
	}
	return "Tools: " + strings.Join(tools, ", ")
}

// DisplayName is a server's group's display name: the server's title, else
// its name, else one made from its key.
func DisplayName(info *mcp.Implementation, key string) string {
	if info != nil && strings.TrimSpace(info.Title) != "" {
		return strings.TrimSpace(info.Title)
	}
	if info != nil && strings.TrimSpace(info.Name) != "" {
		return strings.TrimSpace(info.Name)
	}
	return registry.DisplayNameFromFile(key)
}

// Named is an MCP tool as toolroute offers it, or the reason it is not.
type Named struct {
	// MCPName is the tool's name on the server; calls go out with it.
	MCPName string `json:"mcp_name"`
	// Tool is the definition the model sees; its Name is empty when the tool
	// is left out.
	Tool registry.Tool `json:"-"`
	// Name is Tool.Name: valid, free, and GROUP_NAME when the name was taken.
	Name string `json:"name,omitempty"`
	// Permissions are the tool's requiredPermissions.
	Permissions []string `json:"permissions,omitempty"`
	// Skipped says why the tool is left out.
	Skipped string `json:"skipped,omitempty"`
}

// Renamed reports whether the model sees the tool under another name.
func (n Named) Renamed() bool { return n.Name != "" && n.Name != n.MCPName }

// NameTools turns a server's tools into toolroute tools of group, in the
// server's order. taken holds the names already in use (the catalogue's
// other tools and earlier servers'); the names given are added to it. A
// tool whose valid name is taken is GROUP_NAME; one whose GROUP_NAME is
// taken too, whose schema is not an object schema, or that has no name is
// left out with the reason.
func NameTools(key, group string, timeoutSeconds int, tools []*mcp.Tool, taken map[string]bool) []Named {
	out := make([]Named, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			continue
		}
		n := Named{MCPName: t.Name}
		if strings.TrimSpace(t.Name) == "" {
			n.Skipped = "it has no name"
			out = append(out, n)
			continue
		}
		schema, err := json.Marshal(t.InputSchema)
		if err == nil && string(schema) == "null" {
			schema = nil
		}
		params, _, err := registry.NormalizeSchema(schema)
		if err != nil {
			n.Skipped = fmt.Sprintf("its inputSchema is not usable: %v", strings.TrimPrefix(strings.ReplaceAll(err.Error(), "'parameters", "'inputSchema"), "registry: "))
			out = append(out, n)
			continue
		}
		name := ValidName(t.Name)
		if taken[name] {
			name = ValidName(group + "_" + name)
		}
		if taken[name] {
			n.Skipped = fmt.Sprintf("its name %s and %s are both taken by other tools", ValidName(t.Name), name)
			out = append(out, n)
			continue
		}
		taken[name] = true
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = strings.TrimSpace(t.Title)
		}
		if desc == "" && t.Annotations != nil {
			desc = strings.TrimSpace(t.Annotations.Title)
		}
		if desc == "" {
			desc = fmt.Sprintf("Tool %q of MCP server '%s'", t.Name, key)
		}
		if name != t.Name {
			desc += fmt.Sprintf(" (MCP tool %q)", t.Name)
		}
		n.Name = name
		n.Permissions = Permissions(t.Annotations)
		n.Tool = registry.Tool{Name: name, Description: desc, Parameters: params, Group: group,
			RequiredPermissions: n.Permissions, TimeoutSeconds: timeoutSeconds}
		out = append(out, n)
	}
	return out
}
