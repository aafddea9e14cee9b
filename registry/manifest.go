package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// MaxGroupSize is the most tool entries a group manifest may hold; the _meta
// entry does not count.
const MaxGroupSize = 50

// MaxManifestBytes is the largest manifest the loader reads.
const MaxManifestBytes = 1 << 20

// MaxToolNameLen is the longest tool name: the limit the OpenAI and Anthropic
// APIs put on function names.
const MaxToolNameLen = 64

// Manifest is one JS manifest handed to the loader: NAME.json's text, the
// file's name, and the host's reference to NAME.js, whose text the host keeps.
type Manifest struct {
	// File is the manifest's file name, such as "google_gmail.json". A
	// single-tool manifest's tool must be named after it; a group takes its
	// name from it.
	File string
	Text []byte
	// Source is the host's reference to the JS source; it is copied into each
	// tool's Origin and never read.
	Source string
	// Override lets this manifest replace tools and groups already registered
	// from other manifests or by the host (user tools over built-ins). The
	// meta-tools are never replaced, and a JS group never replaces a host group.
	Override bool
}

// Problem is one thing wrong with a manifest: an entry skipped, a whole file
// refused, or a warning.
type Problem struct {
	File string `json:"file"`
	// Entry is the 0-based index of the entry in a group manifest's array
	// (the _meta entry included), or -1 when the problem is the whole file or
	// a single-tool manifest.
	Entry int `json:"entry"`
	// Tool is the entry's tool name, when known.
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason"`
}

// Error is the problem with where it is.
func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Entry >= 0 {
		fmt.Fprintf(&b, ": entry %d", p.Entry)
	}
	if p.Tool != "" {
		fmt.Fprintf(&b, " (%s)", p.Tool)
	}
	b.WriteString(": ")
	b.WriteString(p.Reason)
	return b.String()
}

// Loaded is a tool a manifest registered.
type Loaded struct {
	Tool  string `json:"tool"`
	Entry int    `json:"entry"`
	// Replaced names the origin of the tool this one replaced, when the
	// manifest was allowed to override.
	Replaced string `json:"replaced,omitempty"`
}

// Report is what LoadManifest did with one manifest.
type Report struct {
	File string `json:"file"`
	// Group is the group the manifest defines, for an array manifest.
	Group    string    `json:"group,omitempty"`
	Loaded   []Loaded  `json:"loaded"`
	Skipped  []Problem `json:"skipped"`
	Warnings []Problem `json:"warnings"`
}

// OK reports whether nothing was skipped. Warnings do not count.
func (rep Report) OK() bool { return len(rep.Skipped) == 0 }

// Err returns the skipped entries joined as one error, or nil.
func (rep Report) Err() error {
	errs := make([]error, len(rep.Skipped))
	for i, p := range rep.Skipped {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// LoadManifest parses a JS manifest and registers its tools, and its group for
// an array manifest, as docs/reference/manifest.md says:
//
//   - a JSON object is one tool, named after the file, calling execute (or the
//     function its "function" field names);
//   - a JSON array is a group named after the file; each entry needs "name",
//     "description" and "function"; an optional first {"_meta": true,
//     "display_name", "description"} entry describes the group; without it the
//     display name comes from the file name and the description from the tool
//     names;
//   - a bad entry is skipped while the rest load; the first of two entries
//     with the same name wins; an empty array is a warning; more than
//     MaxGroupSize entries refuses the file;
//   - a tool name already registered is skipped, or replaced when m.Override
//     is set; a group name already registered by another origin refuses the
//     file.
//
// LoadManifest never panics on any text; everything wrong is in the report.
func (r *Registry) LoadManifest(m Manifest) Report {
	p := parseManifest(m)
	rep := Report{File: m.File, Skipped: p.skipped, Warnings: p.warnings, Loaded: []Loaded{}}
	if rep.Skipped == nil {
		rep.Skipped = []Problem{}
	}
	if rep.Warnings == nil {
		rep.Warnings = []Problem{}
	}
	fileErr := func(reason string) Report {
		rep.Skipped = append(rep.Skipped, Problem{File: m.File, Entry: -1, Reason: reason})
		return rep
	}
	if p.group != nil {
		g := *p.group
		rep.Group = g.Name
		if i, ok := r.groupIdx[g.Name]; ok {
			old := r.groups[i]
			switch {
			case old.Origin.Kind != OriginJS:
				return fileErr(fmt.Sprintf("Tool group '%s' collides with the %s group of the same name: rename the file", g.Name, old.Origin.Kind))
			case !m.Override:
				return fileErr(fmt.Sprintf("Tool group '%s' is already registered from '%s' (source %q): rename the file, or load it as a user tool allowed to override", g.Name, old.Origin.File, old.Origin.Source))
			}
			r.removeGroupTools(g.Name)
			r.changed()
			r.groups[i] = g
			rep.Warnings = append(rep.Warnings, Problem{File: m.File, Entry: -1,
				Reason: fmt.Sprintf("Tool group '%s' replaces the one from source %q", g.Name, old.Origin.Source)})
		} else {
			r.changed()
			r.groupIdx[g.Name] = len(r.groups)
			r.groups = append(r.groups, g)
		}
	}
	for _, pt := range p.tools {
		t := pt.tool
		i, exists := r.toolIdx[t.Name]
		if !exists {
			r.insert(t)
			rep.Loaded = append(rep.Loaded, Loaded{Tool: t.Name, Entry: pt.entry})
			continue
		}
		old := r.tools[i]
		if !m.Override || old.Origin.Kind == OriginMeta {
			reason := fmt.Sprintf("Name conflict with existing tool '%s' from %s (skipped): rename the tool", t.Name, old.Origin.describe())
			if old.Origin.Kind == OriginMeta {
				reason = fmt.Sprintf("Name conflict with the meta-tool '%s' (skipped): rename the tool", t.Name)
			}
			rep.Skipped = append(rep.Skipped, Problem{File: m.File, Entry: pt.entry, Tool: t.Name, Reason: reason})
			continue
		}
		r.changed()
		r.tools[i] = t
		rep.Loaded = append(rep.Loaded, Loaded{Tool: t.Name, Entry: pt.entry, Replaced: old.Origin.describe()})
	}
	return rep
}

type parsedTool struct {
	tool  Tool
	entry int
}

type parsed struct {
	group    *Group
	tools    []parsedTool
	skipped  []Problem
	warnings []Problem
}

func parseManifest(m Manifest) parsed {
	var p parsed
	fail := func(entry int, tool, reason string) {
		p.skipped = append(p.skipped, Problem{File: m.File, Entry: entry, Tool: tool, Reason: reason})
	}
	warn := func(entry int, tool, reason string) {
		p.warnings = append(p.warnings, Problem{File: m.File, Entry: entry, Tool: tool, Reason: reason})
	}

	name := m.File
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	base, ok := strings.CutSuffix(name, ".json")
	if !ok || base == "" {
		fail(-1, "", fmt.Sprintf("manifest file name '%s' must be NAME.json", m.File))
		return p
	}
	if len(m.Text) > MaxManifestBytes {
		fail(-1, "", fmt.Sprintf("manifest is %d bytes; the limit is %d", len(m.Text), MaxManifestBytes))
		return p
	}
	text := bytes.TrimPrefix(m.Text, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(text)
	if len(trimmed) == 0 {
		fail(-1, "", "manifest is empty: write a JSON object (one tool) or a JSON array (a tool group)")
		return p
	}
	if !utf8.Valid(trimmed) {
		fail(-1, "", "manifest is not valid UTF-8")
		return p
	}
	var deep *jsondec.DepthError
	if errors.As(jsondec.CheckDepth(text), &deep) {
		fail(-1, "", fmt.Sprintf("manifest nests more than %d levels of arrays and objects (at %s), the most the registry reads: no tool needs that; nest its parameters less", MaxDepth, position(text, int64(deep.Offset)+1)))
		return p
	}
	// An object or an array is read at once, and checked only when it
	// does not read: its text is read once in the common case. validJSON
	// says where the JSON breaks, a check that comes first.
	notJSON := func() bool {
		if err := validJSON(text); err != nil {
			fail(-1, "", err.Error())
			return true
		}
		return false
	}
	src := Origin{Kind: OriginJS, File: m.File, Source: m.Source}

	switch trimmed[0] {
	case '{':
		var obj map[string]json.RawMessage
		if err := jsondec.UnmarshalRawMap(trimmed, &obj); err != nil {
			if !notJSON() {
				fail(-1, "", "manifest is not a JSON object: "+err.Error())
			}
			return p
		}
		t, problem, warnings := parseEntry(obj, base, "")
		for _, w := range warnings {
			warn(-1, t.Name, w)
		}
		if problem != "" {
			fail(-1, t.Name, problem)
			return p
		}
		t.Origin = src
		t.Origin.Function = functionOf(obj)
		p.tools = append(p.tools, parsedTool{tool: t, entry: -1})
	case '[':
		var arr []json.RawMessage
		if err := jsondec.UnmarshalRawList(trimmed, &arr); err != nil {
			if !notJSON() {
				fail(-1, "", "manifest is not a JSON array: "+err.Error())
			}
			return p
		}
		if len(arr) == 0 {
			warn(-1, "", fmt.Sprintf("Empty tool group in '%s'", name))
			return p
		}
		if !ValidToolName(base) {
			fail(-1, "", fmt.Sprintf("Tool group name '%s' comes from the file name and must be snake_case (lowercase letters, digits, underscores): rename the file", base))
			return p
		}
		group := Group{Name: base, Origin: Origin{Kind: OriginJS, File: m.File, Source: m.Source}}
		start := 0
		if meta, ok := metaEntry(arr[0]); ok {
			start = 1
			var w []string
			group.DisplayName, group.Description, w = parseMeta(meta)
			for _, s := range w {
				warn(0, "", s)
			}
		}
		if n := len(arr) - start; n > MaxGroupSize {
			fail(-1, "", fmt.Sprintf("Tool group in '%s' has %d entries (maximum: %d)", name, n, MaxGroupSize))
			return p
		}
		seen := map[string]bool{}
		for i := start; i < len(arr); i++ {
			var obj map[string]json.RawMessage
			if err := jsondec.UnmarshalRawMap(arr[i], &obj); err != nil || obj == nil {
				fail(i, "", "entry must be a JSON object with 'name', 'description' and 'function'")
				continue
			}
			if _, ok := obj["_meta"]; ok {
				fail(i, "", "a '_meta' entry must be the first in the array and have \"_meta\": true")
				continue
			}
			toolName, _ := stringField(obj, "name")
			if toolName != "" && seen[toolName] {
				fail(i, toolName, fmt.Sprintf("Duplicate tool name '%s' in group '%s'", toolName, name))
				continue
			}
			t, problem, warnings := parseEntry(obj, "", name)
			for _, w := range warnings {
				warn(i, t.Name, w)
			}
			if problem != "" {
				fail(i, t.Name, problem)
				continue
			}
			seen[t.Name] = true
			t.Group = group.Name
			t.Origin = src
			t.Origin.Function = functionOf(obj)
			p.tools = append(p.tools, parsedTool{tool: t, entry: i})
		}
		if group.DisplayName == "" {
			group.DisplayName = DisplayNameFromFile(base)
		}
		if group.Description == "" {
			names := make([]string, len(p.tools))
			for i, pt := range p.tools {
				names[i] = pt.tool.Name
			}
			group.Description = "Tools: " + strings.Join(names, ", ")
		}
		if len(p.tools) == 0 {
			warn(-1, "", fmt.Sprintf("Tool group '%s' has no tools: it is registered but not offered to the model", group.Name))
		}
		p.group = &group
	default:
		if !notJSON() {
			fail(-1, "", "manifest must be a JSON object (one tool) or a JSON array (a tool group)")
		}
	}
	return p
}

// metaEntry reports whether an array entry is a _meta entry.
func metaEntry(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if jsondec.UnmarshalRawMap(raw, &obj) != nil {
		return nil, false
	}
	var isMeta bool
	if v, ok := obj["_meta"]; !ok || json.Unmarshal(v, &isMeta) != nil || !isMeta {
		return nil, false
	}
	return obj, true
}

func parseMeta(meta map[string]json.RawMessage) (display, description string, warnings []string) {
	for _, key := range sortedKeys(meta) {
		switch key {
		case "_meta":
		case "display_name", "description":
			s, err := stringField(meta, key)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("_meta '%s' must be a string; it is generated instead", key))
			}
			s = strings.TrimSpace(s)
			if key == "display_name" {
				display = s
			} else {
				description = s
			}
		default:
			warnings = append(warnings, fmt.Sprintf("unknown _meta field '%s' is ignored", key))
		}
	}
	return display, description, warnings
}

// knownField says whether a tool entry may carry the field. It and
// likelyMeant are switches, not maps: a package-level map is filled when
// the module starts, and the module's start is every host's start
// (docs/design/startup.md).
func knownField(key string) bool {
	switch key {
	case "name", "description", "function", "parameters", "requiredPermissions", "timeoutSeconds", "env":
		return true
	}
	return false
}

// likelyMeant is the field meant by a misspelt or foreign field name,
// given in lower case, or "".
func likelyMeant(key string) string {
	switch key {
	case "timeout", "timeout_seconds", "timeoutsecs":
		return "timeoutSeconds"
	case "permissions", "required_permissions":
		return "requiredPermissions"
	case "fn", "func", "functionname", "function_name":
		return "function"
	case "params", "input_schema", "inputschema", "schema":
		return "parameters"
	case "desc", "descripton":
		return "description"
	case "env_vars", "environment":
		return "env"
	case "displayname":
		return "display_name"
	}
	return ""
}

// parseEntry reads one tool definition. requireName, when set, is the name a
// single-tool manifest must have; groupFile, when set, marks a group entry,
// which must name its function. It returns the tool (with whatever name it
// found), the reason it is invalid or "", and warnings.
func parseEntry(obj map[string]json.RawMessage, requireName, groupFile string) (Tool, string, []string) {
	var t Tool
	var warnings []string
	for _, key := range sortedKeys(obj) {
		if knownField(key) {
			continue
		}
		w := fmt.Sprintf("unknown field '%s' is ignored", key)
		if meant := likelyMeant(strings.ToLower(key)); meant != "" {
			w += fmt.Sprintf(": did you mean '%s'?", meant)
		}
		warnings = append(warnings, w)
	}
	name, err := stringField(obj, "name")
	if err != nil {
		return t, "Field 'name' must be a string", warnings
	}
	if name == "" {
		return t, "Missing required field: 'name'", warnings
	}
	t.Name = name
	if requireName != "" && name != requireName {
		return t, fmt.Sprintf("Tool name '%s' does not match filename '%s'", name, requireName), warnings
	}
	if !ValidToolName(name) {
		return t, fmt.Sprintf("Tool name '%s' must be snake_case (lowercase letters, digits, underscores)", name), warnings
	}
	if len(name) > MaxToolNameLen {
		return t, fmt.Sprintf("Tool name '%s' is %d characters; providers accept at most %d", name, len(name), MaxToolNameLen), warnings
	}
	fn, err := stringField(obj, "function")
	switch {
	case err != nil:
		return t, "Field 'function' must be a string naming a function in the .js file", warnings
	case fn == "" && groupFile != "":
		return t, fmt.Sprintf("Tool '%s' in group '%s' missing required 'function' field", name, groupFile), warnings
	case fn != "" && !ValidFunctionName(fn):
		return t, fmt.Sprintf("Invalid function name '%s' for tool '%s'", fn, name), warnings
	}
	desc, err := stringField(obj, "description")
	if err != nil {
		return t, "Field 'description' must be a string", warnings
	}
	if _, ok := obj["description"]; !ok {
		return t, "Missing required field: 'description'", warnings
	}
	if strings.TrimSpace(desc) == "" {
		return t, "Field 'description' is empty: say what the tool does and when to use it", warnings
	}
	t.Description = desc
	schema, required, err := NormalizeSchema(obj["parameters"])
	if err != nil {
		return t, err.Error(), warnings
	}
	t.Parameters, t.Required = schema, required
	if raw, ok := obj["requiredPermissions"]; ok {
		if jsondec.UnmarshalStrings(raw, &t.RequiredPermissions) != nil {
			return t, "Field 'requiredPermissions' must be an array of strings", warnings
		}
	}
	t.TimeoutSeconds = DefaultTimeoutSeconds
	if raw, ok := obj["timeoutSeconds"]; ok {
		if jsondec.UnmarshalInt(raw, &t.TimeoutSeconds) != nil || t.TimeoutSeconds < 1 || t.TimeoutSeconds > MaxTimeoutSeconds {
			return t, fmt.Sprintf("Field 'timeoutSeconds' must be a whole number of seconds from 1 to %d", MaxTimeoutSeconds), warnings
		}
	}
	if raw, ok := obj["env"]; ok {
		if jsondec.UnmarshalStrings(raw, &t.Env) != nil {
			return t, "Field 'env' must be an array of environment variable names", warnings
		}
		for _, v := range t.Env {
			if !validEnvName(v) {
				return t, fmt.Sprintf("Field 'env' holds '%s', which is not an environment variable name (letters, digits, '_')", v), warnings
			}
		}
	}
	return t, "", warnings
}

// functionOf returns the function a tool entry calls: its "function" field, or
// execute.
func functionOf(obj map[string]json.RawMessage) string {
	if fn, _ := stringField(obj, "function"); fn != "" {
		return fn
	}
	return "execute"
}

// stringField reads an optional string field: "" when absent or null.
func stringField(obj map[string]json.RawMessage, key string) (string, error) {
	raw, ok := obj[key]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := jsondec.UnmarshalString(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// DisplayNameFromFile turns a file's base name into a display name:
// "my_tools" becomes "My Tools".
func DisplayNameFromFile(base string) string {
	words := strings.FieldsFunc(base, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	for i, w := range words {
		r, size := utf8.DecodeRuneInString(w)
		words[i] = strings.ToUpper(string(r)) + w[size:]
	}
	return strings.Join(words, " ")
}

// validJSON checks that text is one JSON value and says where it is not, by
// line and column, so a tool author can find the mistake.
func validJSON(text []byte) error {
	if jsondec.Valid(text) {
		return nil
	}
	var v json.RawMessage
	err := json.Unmarshal(text, &v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("invalid JSON at %s: %v", position(text, syn.Offset), syn)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// position turns a byte offset into "line L, column C" (1-based).
func position(text []byte, offset int64) string {
	if offset > int64(len(text)) {
		offset = int64(len(text))
	}
	if offset < 0 {
		offset = 0
	}
	before := text[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	if col == 0 {
		col = 1
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
