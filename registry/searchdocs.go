package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrToolList is wrapped by ParseToolList's errors.
var ErrToolList = errors.New("registry: bad tool list")

// ParseToolList reads a tool list for search: a JSON array of objects, each
// with a "name" and a "description", as MetaTool's tools.json and an MCP
// server's tools/list give them. Other fields are used when present:
// "name_for_human", "title" or "display_name" (a display name);
// "description_for_model" (a longer description); "parameters",
// "inputSchema" or "input_schema" (a JSON Schema whose property names and
// descriptions count); "group" and "group_description". Fields of other
// names are ignored.
//
// # Errors
//
// Text that is not JSON, or not an array of objects, an entry with no name
// and two entries with one name are errors wrapping ErrToolList, naming the
// entry (counted from 1).
func ParseToolList(data []byte) ([]SearchDoc, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line := 1 + bytes.Count(data[:syn.Offset], []byte("\n"))
			return nil, fmt.Errorf("%w: not JSON: %v (line %d)", ErrToolList, err, line)
		}
		return nil, fmt.Errorf("%w: want a JSON array of tools, each an object with \"name\" and \"description\": %v", ErrToolList, err)
	}
	docs := make([]SearchDoc, 0, len(raw))
	seen := map[string]int{}
	for i, r := range raw {
		var e struct {
			Name                string          `json:"name"`
			Description         string          `json:"description"`
			NameForHuman        string          `json:"name_for_human"`
			Title               string          `json:"title"`
			DisplayName         string          `json:"display_name"`
			DescriptionForModel string          `json:"description_for_model"`
			Parameters          json.RawMessage `json:"parameters"`
			InputSchema         json.RawMessage `json:"inputSchema"`
			InputSchemaSnake    json.RawMessage `json:"input_schema"`
			Group               string          `json:"group"`
			GroupDescription    string          `json:"group_description"`
		}
		if err := json.Unmarshal(r, &e); err != nil || bytes.TrimSpace(r)[0] != '{' {
			return nil, fmt.Errorf("%w: tool %d is not an object with string fields \"name\" and \"description\": %s", ErrToolList, i+1, short(r))
		}
		e.Name = strings.TrimSpace(e.Name)
		if e.Name == "" {
			return nil, fmt.Errorf("%w: tool %d has no \"name\": %s", ErrToolList, i+1, short(r))
		}
		if j, ok := seen[e.Name]; ok {
			return nil, fmt.Errorf("%w: tools %d and %d are both named %q: names must be unique", ErrToolList, j+1, i+1, e.Name)
		}
		seen[e.Name] = i
		schema := e.Parameters
		for _, s := range []json.RawMessage{e.InputSchema, e.InputSchemaSnake} {
			if len(schema) == 0 {
				schema = s
			}
		}
		docs = append(docs, SearchDoc{
			Name:        e.Name,
			Title:       strings.Join(nonEmpty(e.NameForHuman, e.Title, e.DisplayName), " "),
			Description: e.Description,
			Detail:      e.DescriptionForModel,
			Params:      paramsText(schema),
			Group:       strings.Join(nonEmpty(e.Group, e.GroupDescription), " "),
		})
	}
	return docs, nil
}

// SearchDocs returns what search_tools ranks: every enabled tool of every
// group, host-native, JS or MCP, in registration order, each with its
// group's name and description. Core tools are left out: every model call
// already carries them.
func (r *Registry) SearchDocs() []SearchDoc {
	var out []SearchDoc
	for _, t := range r.filter(func(t Tool) bool { return t.Group != "" }) {
		g, _ := r.Group(t.Group)
		out = append(out, SearchDocOf(t, g))
	}
	return out
}

// SearchDocOf is the SearchDoc of a tool in its group (the zero Group for a
// core tool).
func SearchDocOf(t Tool, g Group) SearchDoc {
	group := ""
	if g.Name != "" {
		group = strings.Join(nonEmpty(g.Name, g.DisplayName, g.Description), " ")
	}
	return SearchDoc{Name: t.Name, Description: t.Description, Params: paramsText(t.Parameters), Group: group}
}

// paramsText is the names and descriptions of a JSON Schema's properties,
// nested ones included, by name (search weighs words, not their order); ""
// for anything that is not a schema.
func paramsText(schema json.RawMessage) string {
	var b strings.Builder
	schemaText(&b, schema, 0)
	return strings.TrimSpace(b.String())
}

func schemaText(b *strings.Builder, schema json.RawMessage, depth int) {
	if len(schema) == 0 || depth > 8 {
		return
	}
	var s struct {
		Description string                     `json:"description"`
		Properties  map[string]json.RawMessage `json:"properties"`
		Items       json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	if depth > 0 && s.Description != "" {
		b.WriteString(s.Description)
		b.WriteString(" ")
	}
	schemaText(b, s.Items, depth+1)
	for _, name := range sortedKeys(s.Properties) {
		b.WriteString(name)
		b.WriteString(" ")
		schemaText(b, s.Properties[name], depth+1)
	}
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// short is a JSON value for an error message, cut at 60 bytes.
func short(r json.RawMessage) string {
	s := string(bytes.TrimSpace(r))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
