package fakegoogle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Partial responses: the fields parameter, as every Google API takes it.
//
// A selector is a comma-separated list of fields: "a/b" selects b inside a
// (so does "a.b", as the tools write it for Docs and Sheets), "a(b,c)"
// selects b and c inside a, and "*" selects every field at its level. A selection inside a list
// applies to each of its items. Selections merge: "a(b),a(c)" is "a(b,c)",
// and "a,a(b)" is the whole of a.

// fieldNames are the names a resource's selector may use, each with the
// names inside it; a nil entry is a plain field, with nothing inside to
// select. A name it lacks fails the test: a typo in a tool's selector, which
// Google answers with 400 "Invalid field selection".
type fieldNames map[string]fieldNames

// flatNames are names any of which may stand at any depth, for resources
// too deep to spell out as a tree: they catch a misspelt name, not a
// misplaced one.
func flatNames(list string) fieldNames {
	names := fieldNames{}
	for _, n := range strings.Fields(list) {
		names[n] = names
	}
	return names
}

// Partial answers 200 with v cut to the call's fields parameter, or the
// whole of v without one. Unless known is nil, every name the selector uses
// must be in it. A malformed selector or an unknown name answers 400 and
// fails the test.
func (c *Call) Partial(v any, known fieldNames) {
	fields := c.Query.Get("fields")
	if fields == "" {
		c.JSON(v)
		return
	}
	sel, err := parseFields(fields)
	if err == nil && known != nil {
		err = sel.check(known, "")
	}
	if err != nil {
		c.Bad("fields %q: %v", fields, err)
		return
	}
	// Cut the value as the client would read it: JSON objects and arrays.
	raw, err := json.Marshal(v)
	if err != nil {
		c.S.t.Errorf("fakegoogle: %s %s: the response does not encode: %v", c.R.Method, c.R.URL.Path, err)
		writeError(c.W, http.StatusInternalServerError, "INTERNAL", "Internal error encountered.", "backendError")
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	dec.Decode(&doc)
	c.JSON(sel.cut(doc))
}

// NeedFields refuses a call without a fields parameter: the fake's rule
// for a service whose tools must ask for what they use (Drive), where
// Google would answer a default set of fields.
func (c *Call) NeedFields() bool {
	if c.Query.Get("fields") == "" {
		return c.Bad("no fields parameter: ask for the fields the tool needs")
	}
	return true
}

// selection is a parsed selector: each field selected, with the selection
// inside it; nil selects the whole field.
type selection map[string]selection

// parseFields parses a selector.
func parseFields(s string) (selection, error) {
	p := &fieldsParser{s: s}
	sel := selection{}
	if err := p.list(sel); err != nil {
		return nil, err
	}
	if p.space(); p.i < len(s) {
		return nil, fmt.Errorf("unexpected %q at %d", s[p.i:], p.i)
	}
	return sel, nil
}

type fieldsParser struct {
	s string
	i int
}

func (p *fieldsParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// eat takes b if it comes next.
func (p *fieldsParser) eat(b byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == b {
		p.i++
		return true
	}
	return false
}

// list parses "item,item,...".
func (p *fieldsParser) list(into selection) error {
	for {
		if err := p.item(into); err != nil {
			return err
		}
		if !p.eat(',') {
			return nil
		}
	}
}

// item parses "name", "name/item" or "name(list)".
func (p *fieldsParser) item(into selection) error {
	p.space()
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] == '*' || 'a' <= p.s[p.i] && p.s[p.i] <= 'z' ||
		'A' <= p.s[p.i] && p.s[p.i] <= 'Z' || '0' <= p.s[p.i] && p.s[p.i] <= '9') {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		return fmt.Errorf("a field name is missing at %d", start)
	}
	if name != "*" && strings.Contains(name, "*") {
		return fmt.Errorf("%q: a wildcard stands alone", name)
	}
	var sub selection
	switch {
	case p.eat('/') || p.eat('.'):
		sub = selection{}
		if err := p.item(sub); err != nil {
			return err
		}
	case p.eat('('):
		sub = selection{}
		if err := p.list(sub); err != nil {
			return err
		}
		if !p.eat(')') {
			return fmt.Errorf("a ')' is missing at %d", p.i)
		}
	}
	into.add(name, sub)
	return nil
}

// add merges a field's selection into sel.
func (sel selection) add(name string, sub selection) {
	old, seen := sel[name]
	switch {
	case !seen:
		sel[name] = sub
	case old == nil || sub == nil:
		sel[name] = nil
	default:
		for k, v := range sub {
			old.add(k, v)
		}
	}
}

// check finds the first name, in order, that known lacks; what a wildcard
// selects is not checked.
func (sel selection) check(known fieldNames, path string) error {
	for _, name := range slices.Sorted(maps.Keys(sel)) {
		if name == "*" {
			continue
		}
		inner, ok := known[name]
		if !ok {
			return fmt.Errorf("Invalid field selection %s%s", path, name) // Google's words
		}
		sub := sel[name]
		if sub == nil {
			continue
		}
		if inner == nil {
			return fmt.Errorf("%s%s has no fields to select", path, name)
		}
		if err := sub.check(inner, path+name+"."); err != nil {
			return err
		}
	}
	return nil
}

// cut keeps the selected fields of a decoded JSON value.
func (sel selection) cut(v any) any {
	if sel == nil {
		return v
	}
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = sel.cut(x)
		}
		return out
	case map[string]any:
		star, all := sel["*"]
		if all && star == nil {
			return v
		}
		out := map[string]any{}
		for k, x := range v {
			sub, ok := sel[k]
			if !ok && !all {
				continue
			}
			if !ok {
				sub = star
			}
			out[k] = sub.cut(x)
		}
		return out
	}
	return v
}

// paths lists the selected fields as dotted paths, in order, the way a
// field mask names them: "a(b,c/d)" is a.b and a.c.d.
func (sel selection) paths() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(sel)) {
		if sub := sel[name]; sub != nil {
			for _, p := range sub.paths() {
				out = append(out, name+"."+p)
			}
			continue
		}
		out = append(out, name)
	}
	return out
}
