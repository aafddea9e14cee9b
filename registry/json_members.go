package registry

import "github.com/toolroute/toolroute/registry/internal/jsonenc"

// The Append functions write the registry's types as encoding/json writes
// them with HTML escaping off (an Encoder with SetEscapeHTML(false)), by
// hand: describe answers with every tool of the catalogue, and
// reflection costs about ten times as much in wasm. The Members ones write
// an object's members without its braces, for a type that embeds it.

// AppendJSONString appends s as a JSON string.
func AppendJSONString(dst []byte, s string) []byte { return jsonenc.String(dst, s, false) }

// AppendJSONStrings appends list as a JSON array of strings: null when it
// is nil.
func AppendJSONStrings(dst []byte, list []string) []byte { return jsonenc.Strings(dst, list, false) }

// AppendOriginJSON appends o as a JSON object.
func AppendOriginJSON(dst []byte, o Origin) []byte {
	dst = append(dst, `{"kind":`...)
	dst = jsonenc.String(dst, o.Kind, false)
	for _, f := range [...]struct{ key, value string }{{`,"file":`, o.File}, {`,"source":`, o.Source}, {`,"function":`, o.Function}} {
		if f.value != "" {
			dst = jsonenc.String(append(dst, f.key...), f.value, false)
		}
	}
	return append(dst, '}')
}

// AppendGroupMembers appends g's members.
func AppendGroupMembers(dst []byte, g Group) []byte {
	dst = jsonenc.String(append(dst, `"name":`...), g.Name, false)
	dst = jsonenc.String(append(dst, `,"display_name":`...), g.DisplayName, false)
	dst = jsonenc.String(append(dst, `,"description":`...), g.Description, false)
	dst = AppendOriginJSON(append(dst, `,"origin":`...), g.Origin)
	if g.Unavailable != "" {
		dst = jsonenc.String(append(dst, `,"unavailable":`...), g.Unavailable, false)
	}
	return dst
}

// AppendToolMembers appends t's members. Parameters that are not JSON are
// refused with the error encoding/json gives.
func AppendToolMembers(dst []byte, t Tool) ([]byte, error) {
	dst = jsonenc.String(append(dst, `"name":`...), t.Name, false)
	dst = jsonenc.String(append(dst, `,"description":`...), t.Description, false)
	dst, err := jsonenc.Raw(append(dst, `,"parameters":`...), t.Parameters, false)
	if err != nil {
		return dst, err
	}
	if len(t.RequiredPermissions) > 0 {
		dst = AppendJSONStrings(append(dst, `,"required_permissions":`...), t.RequiredPermissions)
	}
	dst = jsonenc.Int(append(dst, `,"timeout_seconds":`...), t.TimeoutSeconds)
	if len(t.Env) > 0 {
		dst = AppendJSONStrings(append(dst, `,"env":`...), t.Env)
	}
	if t.Group != "" {
		dst = jsonenc.String(append(dst, `,"group":`...), t.Group, false)
	}
	if len(t.OutputSchema) > 0 {
		if dst, err = jsonenc.Raw(append(dst, `,"output_schema":`...), t.OutputSchema, false); err != nil {
			return dst, err
		}
	}
	return AppendOriginJSON(append(dst, `,"origin":`...), t.Origin), nil
}
