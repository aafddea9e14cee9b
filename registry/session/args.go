package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/internal/jsondec"
)

// CheckArguments checks a call's arguments against its tool's parameter
// schema before the tool runs: one JSON object ("" counts as {}) holding
// every required parameter, each value of its declared type and, with an
// enum, one of its values, down nested objects and arrays. problem says
// what is wrong, for the model: every mismatch found, by path, the
// properties of an object in the order of their names.
//
// # Notes
//
// Tools' schemas in the wild are loose, so only what is clearly wrong is
// refused. A schema node without a type, or with one this check does not
// know ("int", say), checks nothing but what it has (enum, properties,
// items). An integer may be written 3.0; a number or an integer may come
// as a numeric string ("5"), which JS tools take as well; null passes for
// any parameter that is not required. Keywords other than type, enum,
// properties, required, items and additionalProperties: false (formats,
// patterns, bounds, anyOf, $ref...) are not checked: the tool or the
// server behind it checks them.
func CheckArguments(tool registry.Tool, input string) (json.RawMessage, string) {
	if strings.TrimSpace(input) == "" {
		input = "{}"
	}
	var args map[string]json.RawMessage
	if err := jsondec.UnmarshalRawMap([]byte(input), &args); err != nil || args == nil {
		return nil, fmt.Sprintf("The arguments for '%s' are not a JSON object: send one JSON object matching the tool's parameters.", tool.Name)
	}
	var missing []string
	for _, name := range tool.Required {
		if v, ok := args[name]; !ok || string(v) == "null" {
			missing = append(missing, name)
		}
	}
	var schema map[string]json.RawMessage
	_ = jsondec.UnmarshalRawMap(tool.Parameters, &schema) // an object: NormalizeSchema said so
	c := &argCheck{}
	if slices.Contains(tool.RequiredPermissions, registry.PermissionSecrets) {
		c.secrets = true // AskedSecrets checks "secrets" and says what it takes
	}
	c.object("", schema, json.RawMessage(input), true)
	if len(c.problems) == 0 && len(missing) > 0 {
		return nil, fmt.Sprintf("The arguments for '%s' miss the required parameter(s): %s. Call it again with them.", tool.Name, strings.Join(missing, ", "))
	}
	if len(c.problems) > 0 {
		var problems []string
		for _, name := range missing {
			problems = append(problems, quoteName(name)+" is required")
		}
		problems = append(problems, c.problems...)
		more := ""
		if len(problems) > maxArgProblems {
			more = fmt.Sprintf("; and %d more", len(problems)-maxArgProblems)
			problems = problems[:maxArgProblems]
		}
		return nil, fmt.Sprintf("The arguments for '%s' do not match its parameters: %s%s. Call it again with them corrected.", tool.Name, strings.Join(problems, "; "), more)
	}
	return json.RawMessage(input), ""
}

// maxArgProblems bounds the problems one message lists.
const maxArgProblems = 8

// maxArgDepth bounds how deep the check follows nested values.
const maxArgDepth = 32

// argCheck gathers the problems of one call's arguments.
type argCheck struct {
	problems []string
	depth    int
	secrets  bool // leave the top-level "secrets" to AskedSecrets
}

func (c *argCheck) add(problem string) {
	c.problems = append(c.problems, problem)
}

// value checks a value against a schema node; at is its path ("" for the
// arguments themselves).
func (c *argCheck) value(at string, node json.RawMessage, v json.RawMessage) {
	var schema map[string]json.RawMessage
	if jsondec.UnmarshalRawMap(node, &schema) != nil || schema == nil {
		return // true, false, or not a schema: nothing to check
	}
	if c.depth >= maxArgDepth {
		return
	}
	c.depth++
	defer func() { c.depth-- }()

	if types := schemaTypes(schema["type"]); len(types) > 0 && !anyType(types, v) {
		c.add(quoteName(at) + " must be " + typeNames(types) + ", not " + shown(v))
		return
	}
	if enum, ok := schema["enum"]; ok {
		var values []json.RawMessage
		if jsondec.UnmarshalRawList(enum, &values) == nil && len(values) > 0 && !inEnum(values, v) {
			list := make([]string, len(values))
			for i, e := range values {
				var b bytes.Buffer
				_ = json.Compact(&b, e)
				list[i] = b.String()
			}
			c.add(quoteName(at) + " must be one of " + strings.Join(list, ", ") + ", not " + shown(v))
			return
		}
	}
	switch kind(v) {
	case "object":
		c.object(at, schema, v, false)
	case "array":
		var items map[string]json.RawMessage
		if jsondec.UnmarshalRawMap(schema["items"], &items) != nil || items == nil {
			return // no items, or a tuple's list: not checked
		}
		var elems []json.RawMessage
		_ = jsondec.UnmarshalRawList(v, &elems)
		for i, e := range elems {
			c.value(at+"["+strconv.Itoa(i)+"]", schema["items"], e)
		}
	}
}

// object checks an object's required properties, each property it has that
// the schema declares, and, with additionalProperties false, that it has no
// other. top is the arguments themselves, whose missing required
// parameters CheckArguments reports.
func (c *argCheck) object(at string, schema map[string]json.RawMessage, v json.RawMessage, top bool) {
	var props map[string]json.RawMessage
	_ = jsondec.UnmarshalRawMap(schema["properties"], &props)
	fields := objectFields(v)
	if !top {
		var required []string
		if raw := schema["required"]; len(raw) > 0 {
			r := jsondec.NewReader(raw)
			if required = r.Strings(); !r.Done() {
				required = nil
				_ = json.Unmarshal(raw, &required)
			}
		}
		for _, name := range required {
			if v, ok := fieldValue(fields, name); !ok || string(v) == "null" {
				c.add(quoteName(join(at, name)) + " is required")
			}
		}
	}
	closed := string(bytes.TrimSpace(schema["additionalProperties"])) == "false"
	for _, f := range fields {
		node, declared := props[f.name]
		switch {
		case !declared && closed && props != nil:
			c.add(quoteName(join(at, f.name)) + " is not a parameter: use " + propertyList(schema["properties"]))
		case !declared, top && c.secrets && f.name == "secrets":
		case string(f.value) == "null":
			// Optional and left empty: a required one was reported.
		default:
			c.value(join(at, f.name), node, f.value)
		}
	}
}

type field struct {
	name  string
	value json.RawMessage
}

// objectFields reads an object's fields, sorted by name (the check's
// problems come in that order); the last of two of one name wins, as
// json.Unmarshal takes it.
func objectFields(v json.RawMessage) []field {
	var m map[string]json.RawMessage
	if jsondec.UnmarshalRawMap(v, &m) != nil {
		return nil
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]field, len(names))
	for i, name := range names {
		out[i] = field{name, m[name]}
	}
	return out
}

// fieldValue is the value of the field of a name.
func fieldValue(fields []field, name string) (json.RawMessage, bool) {
	for _, f := range fields {
		if f.name == name {
			return f.value, true
		}
	}
	return nil, false
}

// anyType reports whether v is of one of types.
func anyType(types []string, v json.RawMessage) bool {
	for _, t := range types {
		if hasType(t, v) {
			return true
		}
	}
	return false
}

// inEnum reports whether v is one of values.
func inEnum(values []json.RawMessage, v json.RawMessage) bool {
	for _, e := range values {
		if sameValue(e, v) {
			return true
		}
	}
	return false
}

// propertyList names an object schema's properties.
func propertyList(props json.RawMessage) string {
	var names []string
	for _, f := range objectFields(props) {
		names = append(names, quoteName(f.name))
	}
	if len(names) == 0 {
		return "no parameter"
	}
	return strings.Join(names, ", ")
}

// schemaTypes reads a node's type: a name or a list of names, those this
// check knows; none when it has none or knows none of them.
func schemaTypes(raw json.RawMessage) []string {
	many, ok := stringOrStrings(raw)
	if !ok {
		return nil
	}
	var out []string
	for _, t := range many {
		switch t {
		case "string", "number", "integer", "boolean", "object", "array", "null":
			out = append(out, t)
		default:
			return nil // a type this check does not know: the node is the tool's business
		}
	}
	return out
}

// stringOrStrings is raw as json.Unmarshal reads it into a string, as a
// list of one, else into a []string; false when it reads as neither. A
// string or a list of strings is read by hand, anything else by
// encoding/json: a schema's type is read on every call checked.
func stringOrStrings(raw []byte) ([]string, bool) {
	if len(raw) == 0 {
		return nil, false // encoding/json refuses no input as either
	}
	r := jsondec.NewReader(raw)
	switch {
	case r.IsString():
		if s := r.String(); r.Done() {
			return []string{s}, true
		}
	case r.IsArray():
		if l := r.Strings(); r.Done() {
			return l, true
		}
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) != nil {
		return nil, false
	}
	return many, true
}

// kind is a JSON value's kind: object, array, string, number, boolean or
// null.
func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// hasType reports whether v is of the schema type t.
func hasType(t string, v json.RawMessage) bool {
	k := kind(v)
	switch t {
	case "number", "integer":
		var n float64
		switch k {
		case "number":
			f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
			if err != nil {
				return t == "number" // out of float64's range: a number still
			}
			n = f
		case "string":
			// A number in JSON's own notation, quoted: "5", "2.5e3".
			var s string
			_ = json.Unmarshal(v, &s)
			if json.Unmarshal([]byte(strings.TrimSpace(s)), &n) != nil {
				return false
			}
		default:
			return false
		}
		return t == "number" || n == math.Trunc(n)
	}
	return k == t
}

// typeNames writes types for a message: "a string", "a string or null".
func typeNames(types []string) string {
	names := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer", "object", "array":
			names[i] = "an " + t
		case "null":
			names[i] = "null"
		default:
			names[i] = "a " + t
		}
	}
	return strings.Join(names, " or ")
}

// sameValue reports whether two JSON values are equal: numbers by value,
// the rest by their compact text.
func sameValue(a, b json.RawMessage) bool {
	if kind(a) == "number" && kind(b) == "number" {
		x, err1 := strconv.ParseFloat(string(bytes.TrimSpace(a)), 64)
		y, err2 := strconv.ParseFloat(string(bytes.TrimSpace(b)), 64)
		return err1 == nil && err2 == nil && x == y
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// shown writes a value for a message: its kind and, when short, itself.
func shown(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return "that"
	}
	s := b.String()
	switch k := kind(v); {
	case k == "object":
		return "an object"
	case k == "array":
		return "an array"
	case utf8.RuneCountInString(s) > 60:
		return "a " + k + " (" + string([]rune(s)[:40]) + "…)"
	case k == "string":
		return "the string " + s
	}
	return s
}

// join is the path of a property of the object at at.
func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// quoteName writes a parameter's path for a message.
func quoteName(at string) string {
	if at == "" {
		return "the arguments"
	}
	return "'" + at + "'"
}
