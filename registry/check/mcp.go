package check

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// An MCP server is a tool group of host tools whose calls the host sends to
// the server. What the model sees of it is decided here, the same in every
// host: the group's name and listing, each tool's name (made valid, and
// GROUP_NAME when another tool has it), its approval from the server's
// annotations (mcp_catalogue), and the text and images the model reads of
// a call's outcome (mcp_result). The host connects, lists and calls; it
// gives what the server said.

// MaxMCPName is the longest name an MCP server's group or tool gets: the
// providers refuse a request whose tool names are longer than 64
// characters.
const MaxMCPName = 64

// MaxMCPGroupDescription is the most characters of a server's instructions
// its group's description takes.
const MaxMCPGroupDescription = 200

// MCPCatalogue is the mcp_catalogue op's request: the catalogue without the
// servers (their tools keep clear of its names), where the servers are
// configured (named in refusals), and the servers in the config's order
// with what each said when it was last listed.
type MCPCatalogue struct {
	Catalogue registry.Catalogue `json:"catalogue"`
	Config    string             `json:"config"`
	Servers   []MCPServer        `json:"servers"`
	// Authorize is how the user authorizes a server in this host
	// (MCPAuthorizeLogin, the default, or MCPAuthorizeHeaders). Given,
	// each server that needs authorization gets its Advice.
	Authorize string `json:"authorize,omitempty"`
}

// How a user authorizes an MCP server that refused toolroute, as a host
// says it offers: the words the model and the user read follow it.
const (
	// MCPAuthorizeLogin: `toolroute mcp login KEY` (the Go program).
	MCPAuthorizeLogin = "login"
	// MCPAuthorizeHeaders: a token in the server's "headers" in the MCP
	// config (the page and the worker, which hold no OAuth client).
	MCPAuthorizeHeaders = "headers"
)

// checkAuthorize refuses an authorize a host gave that is not one of the
// ways: the host's mistake.
func checkAuthorize(op, authorize string) error {
	switch authorize {
	case "", MCPAuthorizeLogin, MCPAuthorizeHeaders:
		return nil
	}
	return fmt.Errorf("check %s: authorize %s is not a way this module words: give %q (toolroute mcp login) or %q (a token in the config's headers)", op, quote(authorize), MCPAuthorizeLogin, MCPAuthorizeHeaders)
}

// MCPServer is one server as the host last listed it. A server never
// reached has no ServerInfo and no Tools: it is not listed, but when the
// host says it is starting or down (State, with Why), its group is added
// without tools, so that a model loading it reads why.
type MCPServer struct {
	Key            string            `json:"key"`
	TimeoutSeconds int               `json:"timeout_seconds"`
	ServerInfo     *MCPServerInfo    `json:"server_info"`
	Instructions   string            `json:"instructions"`
	Tools          []json.RawMessage `json:"tools"`
	State          string            `json:"state,omitempty"`
	Why            string            `json:"why,omitempty"`
}

// The states of a server never reached that mcp_catalogue says.
const (
	MCPStarting  = "starting"
	MCPDownState = "down"
	// MCPNeedsAuthorization: the server refused toolroute (HTTP 401, or
	// 403 asking for more scopes) and the user must sign in; the host
	// does not start it again until they have.
	MCPNeedsAuthorization = "needs_authorization"
)

// MCPLoginAdvice is what the user does for a server that needs
// authorization, the same in every message that says so: the model's, the
// problems `toolroute check`, `toolroute tools` and /api/health list.
func MCPLoginAdvice(key string) string {
	return fmt.Sprintf("MCP server '%s' needs authorization: run `toolroute mcp login %s`", key, shellWord(key))
}

// mcpAdvice is what the user does for a server that needs authorization
// in a host that authorizes as authorize says; config is where the
// servers are configured.
func mcpAdvice(key, authorize, config string) string {
	if authorize != MCPAuthorizeHeaders {
		return MCPLoginAdvice(key)
	}
	if config == "" {
		config = "the MCP config"
	}
	return fmt.Sprintf(`MCP server '%s' needs authorization: add "headers": {"Authorization": "Bearer TOKEN"} to its entry in %s, with a token the server accepts`, key, config)
}

// shellWord is s as one word of a shell command: as it is when it holds
// only characters no shell reads specially, else in single quotes.
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-+/:@%=,", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// MCPServerInfo is the implementation info a server gave at initialize.
type MCPServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

// MCPCatalogueAnswer is mcp_catalogue's answer, given as the answer's args:
// the groups and host tools to add to the catalogue, in order, and each
// server's outcome.
type MCPCatalogueAnswer struct {
	Groups  []MCPGroup  `json:"groups"`
	Tools   []MCPTool   `json:"tools"`
	Servers []MCPListed `json:"servers"`
}

// MCPGroup is a server's group as the catalogue takes it; Unavailable
// says why a group has no tools yet (registry.Group's).
type MCPGroup struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Description string `json:"description"`
	Unavailable string `json:"unavailable,omitempty"`
}

// MCPTool is a server's tool as the catalogue takes a host tool.
type MCPTool struct {
	Name                string          `json:"name"`
	Description         string          `json:"description"`
	Group               string          `json:"group"`
	Parameters          json.RawMessage `json:"parameters"`
	RequiredPermissions []string        `json:"required_permissions"`
	TimeoutSeconds      int             `json:"timeout_seconds"`
	// OutputSchema is the tool's outputSchema, keys sorted, when it is a
	// JSON object: toolroute mcp offers it to its clients with the
	// tool, whose structuredContent it passes on. The model is not sent it.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
}

// MCPListed is one server's outcome: its group's name, whether it is
// listed, why not when it was refused, and each of its tools as offered.
type MCPListed struct {
	Key     string     `json:"key"`
	Group   string     `json:"group"`
	Listed  bool       `json:"listed"`
	Refused string     `json:"refused,omitempty"`
	Tools   []MCPNamed `json:"tools"`
	// Advice is what the user does for a server that needs
	// authorization, when the request said how (Authorize).
	Advice string `json:"advice,omitempty"`
}

// MCPNamed is an MCP tool as the model is offered it, or why it is not.
type MCPNamed struct {
	// MCPName is the tool's name on the server: calls go out with it.
	MCPName string `json:"mcp_name"`
	// Name is the name the model sees: valid, free, and GROUP_NAME when
	// the valid name was taken. Empty when the tool is left out.
	Name        string   `json:"name,omitempty"`
	Permissions []string `json:"permissions,omitempty"`
	// Skipped says why the tool is left out.
	Skipped string `json:"skipped,omitempty"`
}

// MCPName makes an MCP server's key or tool name a valid toolroute name
// (^[a-z][a-z0-9_]*$): lower case, each run of other characters one _,
// mcp_ before a name that does not start with a letter, cut to MaxMCPName
// characters.
func MCPName(name string) string {
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
	if len(out) > MaxMCPName {
		out = out[:MaxMCPName]
	}
	return out
}

func (m MCPCatalogue) check() Answer {
	// The names the catalogue's own tools and groups have, as the module
	// registers them.
	reg, _ := registry.Build(m.Catalogue)
	taken := map[string]bool{}
	for _, t := range reg.ToolStates() {
		taken[t.Name] = true
	}
	groupTaken := map[string]bool{}
	for _, g := range reg.Groups() {
		groupTaken[g.Name] = true
	}
	config := m.Config
	if config == "" {
		config = "the MCP config"
	}
	out := MCPCatalogueAnswer{Groups: []MCPGroup{}, Tools: []MCPTool{}, Servers: []MCPListed{}}
	for _, s := range m.Servers {
		group := MCPName(s.Key)
		listed := MCPListed{Key: s.Key, Group: group, Tools: []MCPNamed{}}
		switch {
		case s.ServerInfo == nil && len(s.Tools) == 0:
			// Never reached: nothing to list yet, but a model that loads
			// the group reads why, when the host said.
			if s.State == MCPNeedsAuthorization && m.Authorize != "" {
				listed.Advice = mcpAdvice(s.Key, m.Authorize, m.Config)
			}
			if why := mcpPending(s, m.Authorize, m.Config); why != "" && !groupTaken[group] {
				groupTaken[group] = true
				out.Groups = append(out.Groups, MCPGroup{Name: group, DisplayName: mcpDisplayName(nil, s.Key),
					Description: why, Unavailable: why})
			}
		case groupTaken[group]:
			listed.Refused = fmt.Sprintf("its group name %s is taken by another tool group: give the server another name in %s", group, config)
		default:
			groupTaken[group] = true
			listed.Listed = true
			timeout := s.TimeoutSeconds
			if timeout <= 0 {
				timeout = registry.DefaultTimeoutSeconds
			}
			var names []string
			for _, raw := range s.Tools {
				n, tool := nameTool(s.Key, group, timeout, raw, taken)
				listed.Tools = append(listed.Tools, n)
				if n.Name != "" {
					names = append(names, n.Name)
					out.Tools = append(out.Tools, tool)
				}
			}
			out.Groups = append(out.Groups, MCPGroup{Name: group, DisplayName: mcpDisplayName(s.ServerInfo, s.Key),
				Description: mcpGroupDescription(s.Instructions, names)})
		}
		out.Servers = append(out.Servers, listed)
	}
	return Answer{Args: out}
}

// mcpPending says why a server never reached has no tools yet, for a model
// loading its group: it is starting, or down and why.
func mcpPending(s MCPServer, authorize, config string) string {
	switch s.State {
	case MCPStarting:
		return fmt.Sprintf("MCP server '%s' is starting: its tools are offered once it answers. Try again in a minute, or do without this group.", s.Key)
	case MCPDownState:
		return fmt.Sprintf("MCP server '%s' is down: %s. toolroute starts it again: try again in a minute, or do without this group.", s.Key, strings.TrimSuffix(s.Why, "."))
	case MCPNeedsAuthorization:
		return mcpAdvice(s.Key, authorize, config) + " (the user does this; its tools are offered once it is done). Do without this group meanwhile."
	}
	return ""
}

// mcpTool is the part of an MCP Tool the rules read.
type mcpTool struct {
	Name         *string         `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  *struct {
		Title           string `json:"title"`
		ReadOnlyHint    bool   `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
		OpenWorldHint   *bool  `json:"openWorldHint"`
	} `json:"annotations"`
}

// nameTool names one of a server's tools, adding the name it gets to
// taken: its valid name, else GROUP_NAME when that is taken; left out when
// both are taken, when it has no name, or when its inputSchema is not an
// object schema.
func nameTool(key, group string, timeout int, raw json.RawMessage, taken map[string]bool) (MCPNamed, MCPTool) {
	var t mcpTool
	if err := json.Unmarshal(raw, &t); err != nil {
		return MCPNamed{Skipped: "it is not an MCP tool object"}, MCPTool{}
	}
	n := MCPNamed{}
	if t.Name != nil {
		n.MCPName = *t.Name
	}
	if strings.TrimSpace(n.MCPName) == "" {
		n.Skipped = "it has no name"
		return n, MCPTool{}
	}
	schema, err := sortedJSON(t.InputSchema)
	var params json.RawMessage
	if err == nil {
		params, _, err = registry.NormalizeSchema(schema)
	}
	if err != nil {
		n.Skipped = "its inputSchema is not usable: " + strings.ReplaceAll(err.Error(), "'parameters", "'inputSchema")
		return n, MCPTool{}
	}
	name := MCPName(n.MCPName)
	if taken[name] {
		name = MCPName(group + "_" + name)
	}
	if taken[name] {
		n.Skipped = fmt.Sprintf("its name %s and %s are both taken by other tools", MCPName(n.MCPName), name)
		return n, MCPTool{}
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
		desc = fmt.Sprintf("Tool %s of MCP server '%s'", quote(n.MCPName), key)
	}
	if name != n.MCPName {
		desc += fmt.Sprintf(" (MCP tool %s)", quote(n.MCPName))
	}
	// Read-only tools never ask; others are destructive unless they say
	// not (the spec's default); network unless openWorldHint is false (the
	// spec's default is true), so the tool's world stays open when
	// toolroute mcp offers it again.
	a := t.Annotations
	switch {
	case a != nil && a.ReadOnlyHint:
		n.Permissions = []string{registry.PermissionRead}
	case a == nil || a.DestructiveHint == nil || *a.DestructiveHint:
		n.Permissions = []string{registry.PermissionDelete}
	default:
		n.Permissions = []string{registry.PermissionWrite}
	}
	if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
		n.Permissions = append(n.Permissions, registry.PermissionNetwork)
	}
	n.Name = name
	return n, MCPTool{Name: name, Description: desc, Parameters: params, Group: group,
		RequiredPermissions: n.Permissions, TimeoutSeconds: timeout, OutputSchema: outputSchema(t.OutputSchema)}
}

// outputSchema is a tool's outputSchema with its keys sorted, or nil when
// it gave none or one that is not a schema object: a client that checks
// results against it would refuse every one.
func outputSchema(raw json.RawMessage) json.RawMessage {
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	sorted, err := sortedJSON(raw)
	if err != nil {
		return nil
	}
	return sorted
}

// mcpGroupDescription is the first line of a server's instructions that
// has text, without a Markdown heading's marks, cut to
// MaxMCPGroupDescription characters; without one, "Tools: a, b, c" as a
// JS group without a description gets.
func mcpGroupDescription(instructions string, tools []string) string {
	for _, line := range strings.Split(instructions, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#")); line != "" {
			if utf8.RuneCountInString(line) > MaxMCPGroupDescription {
				line = strings.TrimSpace(string([]rune(line)[:MaxMCPGroupDescription]))
			}
			return line
		}
	}
	return "Tools: " + strings.Join(tools, ", ")
}

// mcpDisplayName is the server's title, else its name, else one made from
// its key.
func mcpDisplayName(info *MCPServerInfo, key string) string {
	if info != nil && strings.TrimSpace(info.Title) != "" {
		return strings.TrimSpace(info.Title)
	}
	if info != nil && strings.TrimSpace(info.Name) != "" {
		return strings.TrimSpace(info.Name)
	}
	return registry.DisplayNameFromFile(key)
}

// quote is s as a JSON string, the quoting the texts use in every host.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// sortedJSON is a JSON value with every object's keys sorted (of a key
// given twice, the last), compact, numbers and strings as written: a
// server's schema reads the same whichever host listed it (the Go SDK
// reads it into maps). It reads with json.Unmarshal, not a json.Decoder:
// a Decoder's io.Reader would link the file reads (fd_read) into the
// module, which its hosts do not give.
func sortedJSON(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	if err := jsondec.CheckDepth(raw); err != nil {
		return nil, fmt.Errorf("'parameters' %w: a tool's schema needs far fewer; nest it less", err)
	}
	var b bytes.Buffer
	if err := writeSorted(&b, raw); err != nil {
		return nil, fmt.Errorf("'parameters' must be a JSON Schema object, like {\"type\":\"object\",\"properties\":{...}}")
	}
	return b.Bytes(), nil
}

func writeSorted(b *bytes.Buffer, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quote(k))
			b.WriteByte(':')
			if err := writeSorted(b, m[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case len(raw) > 0 && raw[0] == '[':
		var a []json.RawMessage
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		b.WriteByte('[')
		for i, v := range a {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeSorted(b, v); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		return json.Compact(b, raw)
	}
	return nil
}

// The error types of an MCP tool's failures, as the model reads them.
const (
	// MCPToolError: the tool ran and said it failed (isError).
	MCPToolError = "tool_error"
	// MCPError: the server refused the call with a JSON-RPC error.
	MCPError = "mcp_error"
	// MCPUnavailable: the server is not running, did not answer in time, or
	// closed the connection.
	MCPUnavailable = "unavailable"
)

// MCPResult is the mcp_result op's request: a call's outcome as the host
// got it from server Key for its tool MCPName: the tools/call result, a
// JSON-RPC error, or the server's being unavailable.
type MCPResult struct {
	Key         string          `json:"key"`
	MCPName     string          `json:"mcp_name"`
	Result      json.RawMessage `json:"result,omitempty"`
	RPCError    *MCPRPCError    `json:"rpc_error,omitempty"`
	Unavailable *MCPDown        `json:"unavailable,omitempty"`
	// Authorize and Config are as MCPCatalogue's: how the user authorizes
	// a server in this host, and where the servers are configured.
	Authorize string `json:"authorize,omitempty"`
	Config    string `json:"config,omitempty"`
}

// MCPRPCError is a JSON-RPC error the server answered a call with.
type MCPRPCError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// MCPDown is a server that cannot take a call: why, in how many
// milliseconds the host starts it again (0 or less: it is starting it
// now), and whether it broke off during the call (which may then have
// taken effect). NeedsAuthorization says it refused toolroute for want of
// authorization: the host starts it again once the user has signed in,
// not at a time.
type MCPDown struct {
	Why                string `json:"why"`
	RetryMS            int64  `json:"retry_ms"`
	MidCall            bool   `json:"mid_call"`
	NeedsAuthorization bool   `json:"needs_authorization,omitempty"`
}

// MCPOutput is mcp_result's answer for a result that did not fail, given as
// the answer's args: the text the model reads, and the images and
// documents (an embedded resource's PDF) to give it beside the text where
// the wire format carries them; the text names each with a placeholder.
type MCPOutput struct {
	Text      string              `json:"text"`
	Images    []registry.Image    `json:"images"`
	Documents []registry.Document `json:"documents,omitempty"`
}

// mcpContent is one block of a result's content.
type mcpContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MIMEType string `json:"mimeType"`
	Name     string `json:"name"`
	URI      string `json:"uri"`
	Resource *struct {
		URI      string  `json:"uri"`
		MIMEType string  `json:"mimeType"`
		Text     string  `json:"text"`
		Blob     *string `json:"blob"`
	} `json:"resource"`
}

func (m MCPResult) check() Answer {
	switch {
	case m.RPCError != nil:
		return refuseAs(MCPError, fmt.Sprintf("MCP server '%s' answered error %d: %s", m.Key, m.RPCError.Code, m.RPCError.Message))
	case m.Unavailable != nil && m.Unavailable.NeedsAuthorization:
		return refuseAs(MCPUnavailable, mcpAdvice(m.Key, m.Authorize, m.Config)+" (the user does this), then the call can be tried again; do without this tool meanwhile.")
	case m.Unavailable != nil:
		text := fmt.Sprintf("MCP server '%s' is unavailable: %s. toolroute is starting it again now: try the call again in a few seconds, or do without this tool.", m.Key, m.Unavailable.Why)
		if m.Unavailable.RetryMS > 0 {
			secs := (m.Unavailable.RetryMS + 999) / 1000
			text = fmt.Sprintf("MCP server '%s' is unavailable: %s. toolroute starts it again in %d s: try the call again then, or do without this tool.", m.Key, m.Unavailable.Why, secs)
		}
		if m.Unavailable.MidCall {
			text += " The call may or may not have taken effect: check before repeating anything that changes data."
		}
		return refuseAs(MCPUnavailable, text)
	}
	var res struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if len(m.Result) > 0 && json.Unmarshal(m.Result, &res) != nil {
		return refuseAs(MCPError, fmt.Sprintf("MCP server '%s' answered a call of %s with a result that is not an MCP CallToolResult: try the call again, or report it to the server's authors", m.Key, quote(m.MCPName)))
	}
	var parts []string
	images := []registry.Image{}
	var docs []registry.Document
	hasText := false
	for _, raw := range res.Content {
		var c mcpContent
		if json.Unmarshal(raw, &c) != nil {
			parts = append(parts, "[content of a kind toolroute does not show]")
			continue
		}
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
			hasText = true
		case "image", "audio":
			parts = append(parts, mcpMedia(c.Type, c.MIMEType, base64Len(c.Data)))
			if c.Type == "image" {
				images = append(images, registry.Image{MIMEType: c.MIMEType, Data: c.Data})
			}
		case "resource_link":
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case "resource":
			parts = append(parts, mcpEmbedded(c))
			if r := c.Resource; r != nil && r.Blob != nil && slices.Contains(registry.DocumentTypes, r.MIMEType) {
				docs = append(docs, registry.Document{MIMEType: r.MIMEType, Data: *r.Blob, Name: r.URI})
			}
		default:
			parts = append(parts, "[content of a kind toolroute does not show]")
		}
	}
	if s := bytes.TrimSpace(res.StructuredContent); len(s) > 0 && string(s) != "null" && !hasText {
		if sorted, err := sortedJSON(s); err == nil {
			parts = append(parts, string(sorted))
		}
	}
	text := strings.Join(parts, "\n\n")
	if res.IsError {
		if strings.TrimSpace(text) == "" {
			text = fmt.Sprintf("MCP tool %s failed without saying why: try other arguments, or another tool", quote(m.MCPName))
		}
		return refuseAs(MCPToolError, text)
	}
	return Answer{Args: MCPOutput{Text: text, Images: images, Documents: docs}}
}

// mcpMedia is an image's or audio clip's placeholder: [image image/png,
// 1234 bytes]. It stands for it where the wire format carries no images,
// and for audio everywhere.
func mcpMedia(kind, mime string, n int) string {
	if mime == "" {
		return fmt.Sprintf("[%s, %d bytes]", kind, n)
	}
	return fmt.Sprintf("[%s %s, %d bytes]", kind, mime, n)
}

// mcpEmbedded is an embedded resource: its text under [resource URI], or
// [resource URI: MIME, N bytes] for a blob. A blob of text (a text/* or
// JSON type, UTF-8) is its text, as every format reads it.
func mcpEmbedded(c mcpContent) string {
	r := c.Resource
	switch {
	case r == nil:
		return "[resource]"
	case r.Blob != nil && textType(r.MIMEType):
		if b, err := base64.StdEncoding.DecodeString(*r.Blob); err == nil && utf8.Valid(b) {
			return fmt.Sprintf("[resource %s]\n%s", r.URI, b)
		}
		fallthrough
	case r.Blob != nil:
		if r.MIMEType == "" {
			return fmt.Sprintf("[resource %s: %d bytes]", r.URI, base64Len(*r.Blob))
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes]", r.URI, r.MIMEType, base64Len(*r.Blob))
	}
	return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
}

// textType reports whether a resource of media type t is text: text/*,
// JSON, XML, or a +json or +xml type, parameters (charset) aside.
func textType(t string) bool {
	t, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(t)), ";")
	t = strings.TrimSpace(t)
	switch {
	case strings.HasPrefix(t, "text/"), t == "application/json", t == "application/xml",
		strings.HasSuffix(t, "+json"), strings.HasSuffix(t, "+xml"):
		return true
	}
	return false
}

// base64Len is how many bytes base64 text decodes to, counting only its
// alphabet's characters (padding and line breaks left out).
func base64Len(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' {
			n++
		}
	}
	return n * 3 / 4
}
