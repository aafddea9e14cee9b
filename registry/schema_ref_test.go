package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// normalizeSchemaMaps is NormalizeSchema as it was, decoding into maps: the
// reference FuzzNormalizeSchema holds the one-pass scan to.
func normalizeSchemaMaps(raw json.RawMessage) (json.RawMessage, []string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return emptySchema, nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, nil, fmt.Errorf("'parameters' must be a JSON Schema object, like {\"type\":\"object\",\"properties\":{...}}")
	}
	if t, ok := fields["type"]; ok {
		var s string
		if json.Unmarshal(t, &s) != nil || s != "object" {
			return nil, nil, fmt.Errorf("'parameters.type' must be \"object\": a tool takes named arguments")
		}
	}
	if p, ok := fields["properties"]; ok {
		var props map[string]json.RawMessage
		if json.Unmarshal(p, &props) != nil || props == nil {
			return nil, nil, fmt.Errorf("'parameters.properties' must be an object mapping each parameter name to its schema")
		}
		for _, name := range sortedKeys(props) {
			var prop map[string]json.RawMessage
			if json.Unmarshal(props[name], &prop) != nil || prop == nil {
				return nil, nil, fmt.Errorf("'parameters.properties.%s' must be a schema object, like {\"type\":\"string\"}", name)
			}
		}
	}
	var required []string
	if r, ok := fields["required"]; ok {
		if json.Unmarshal(r, &required) != nil {
			return nil, nil, fmt.Errorf("'parameters.required' must be an array of parameter names")
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, nil, fmt.Errorf("'parameters' is not valid JSON: %v", err)
	}
	out := buf.Bytes()
	if _, ok := fields["type"]; !ok {
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
