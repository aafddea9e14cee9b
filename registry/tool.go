package registry

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// DefaultTimeoutSeconds is a tool's timeout when its definition sets none.
const DefaultTimeoutSeconds = 30

// MaxTimeoutSeconds is the longest timeout a tool may ask for.
const MaxTimeoutSeconds = 3600

// The name patterns are checked by hand rather than with regexp, which would
// add a fifth to the wasm module's size.

// ValidToolName reports whether name is a valid tool name (^[a-z][a-z0-9_]*$).
// Group names follow the same rule.
func ValidToolName(name string) bool {
	return matchName(name, func(c byte) bool { return c >= 'a' && c <= 'z' },
		func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' })
}

// ValidFunctionName reports whether name may be called as a JS tool function
// (^[a-zA-Z_$][a-zA-Z0-9_$]*$). The pattern keeps manifest text out of the
// code a host builds to call the function.
func ValidFunctionName(name string) bool {
	return matchName(name, func(c byte) bool { return isLetter(c) || c == '_' || c == '$' },
		func(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '$' })
}

// validEnvName reports whether name is an environment variable name
// (^[A-Za-z_][A-Za-z0-9_]*$).
func validEnvName(name string) bool {
	return matchName(name, func(c byte) bool { return isLetter(c) || c == '_' },
		func(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' })
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// matchName checks a name of ASCII bytes: its first against first, the rest
// against rest.
func matchName(name string, first, rest func(byte) bool) bool {
	if name == "" || !first(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !rest(name[i]) {
			return false
		}
	}
	return true
}

// OriginKind says where a tool or group comes from.
type OriginKind string

const (
	// OriginJS is a tool defined by a JS manifest and run in the JS sandbox.
	OriginJS OriginKind = "js"
	// OriginHost is a tool the host implements natively.
	OriginHost OriginKind = "host"
	// OriginMeta is one of the registry's own meta-tools, run by the engine.
	OriginMeta OriginKind = "meta"
	// OriginSearch is a search_tools call the turn hands to its host to
	// rank (a call's origin, never a tool's).
	OriginSearch OriginKind = "search"
)

// Origin says where a tool or group comes from and, for JS tools, how to run it.
type Origin struct {
	Kind OriginKind `json:"kind"`
	// File is the manifest's file name for JS tools and groups.
	File string `json:"file,omitempty"`
	// Source is the host's reference to the JS source shared by every tool of
	// the manifest; the registry never reads it.
	Source string `json:"source,omitempty"`
	// Function is the JS function a call invokes: the entry's "function", or
	// "execute" for a single-tool manifest without one.
	Function string `json:"function,omitempty"`
}

// Tool is one tool the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the tool's arguments, compacted, with
	// "type":"object" added in front when the definition gave no type.
	Parameters          json.RawMessage `json:"parameters"`
	RequiredPermissions []string        `json:"required_permissions,omitempty"`
	TimeoutSeconds      int             `json:"timeout_seconds"`
	// Env lists the environment variables the tool may read.
	Env   []string `json:"env,omitempty"`
	Group string   `json:"group,omitempty"`
	// OutputSchema is the JSON Schema of the structured result a host
	// tool gives (an MCP tool's outputSchema): toolroute mcp offers it
	// to its clients. The model is not sent it.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Origin       Origin          `json:"origin"`
	// Required lists the parameters the schema marks as required, as given.
	Required []string `json:"-"`
}

// Group is a tool group: tools the model loads together with load_tool_group.
type Group struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Description string `json:"description"`
	Origin      Origin `json:"origin"`
	// Unavailable, for a group with no tools yet, says why (an MCP server
	// starting, or down before it ever listed its tools): load_tool_group
	// answers it, where it would say the group has no tools.
	Unavailable string `json:"unavailable,omitempty"`
}

// Skill is a block of instructions the model loads with load_skill.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

// emptySchema is the parameter schema of a tool that defines none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// NormalizeSchema checks a tool's parameter schema and returns it compacted,
// with "type":"object" added in front when absent, and the names it marks as
// required. An empty schema becomes {"type":"object","properties":{}}.
//
// The schema is kept as given otherwise: key order, keywords the registry does
// not know and nested schemas pass through untouched. It must be an object
// whose "type", when present, is "object", whose "properties", when present,
// is an object of objects, and whose "required", when present, is an array of
// strings.
func NormalizeSchema(raw json.RawMessage) (json.RawMessage, []string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return emptySchema, nil, nil
	}
	// The scan recurses: the nesting is checked first.
	if err := jsondec.CheckDepth(raw); err != nil {
		return nil, nil, fmt.Errorf("'parameters' %w: a tool's schema needs far fewer; nest it less", err)
	}
	sc, err := scanSchema(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("'parameters' must be a JSON Schema object, like {\"type\":\"object\",\"properties\":{...}}")
	}
	if sc.typ != nil && string(sc.typ) != `"object"` { // compacted: the common case is these bytes
		var s string
		if json.Unmarshal(sc.typ, &s) != nil || s != "object" {
			return nil, nil, fmt.Errorf("'parameters.type' must be \"object\": a tool takes named arguments")
		}
	}
	if sc.props != nil {
		if sc.propNames == nil {
			return nil, nil, fmt.Errorf("'parameters.properties' must be an object mapping each parameter name to its schema")
		}
		// The first name in sorted order is the one reported.
		bad := ""
		found := false
		for _, p := range sc.propNames {
			if !p.object && (!found || p.name < bad) {
				bad, found = p.name, true
			}
		}
		if found {
			return nil, nil, fmt.Errorf("'parameters.properties.%s' must be a schema object, like {\"type\":\"string\"}", bad)
		}
	}
	var required []string
	if sc.req != nil {
		// Read by hand when it is an array (of strings, as it should be),
		// by encoding/json's reflection otherwise, for its errors.
		r := jsondec.NewReader(sc.req)
		if r.IsArray() {
			required = r.Strings()
		}
		if !r.Done() && json.Unmarshal(sc.req, &required) != nil {
			return nil, nil, fmt.Errorf("'parameters.required' must be an array of parameter names")
		}
	}
	out := sc.out
	if sc.typ == nil {
		inner := out[1 : len(out)-1]
		withType := make([]byte, 0, len(out)+16)
		withType = append(withType, `{"type":"object"`...)
		if len(inner) > 0 {
			withType = append(withType, ',')
			withType = append(withType, inner...)
		}
		out = append(withType, '}')
	}
	return out, required, nil
}
