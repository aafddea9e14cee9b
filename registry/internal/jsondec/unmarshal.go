package jsondec

import "encoding/json"

// The Unmarshal functions are json.Unmarshal(data, v) for one type of v
// each, read by hand in the plain case and by encoding/json otherwise, so
// that they give exactly its results and errors. data is one JSON value
// (surrounding space allowed), as json.Unmarshal takes it.

// UnmarshalRawMap is json.Unmarshal into a map of raw values that is nil:
// a tool call's arguments, a schema, a manifest's entries.
func UnmarshalRawMap(data []byte, m *map[string]json.RawMessage) error {
	r := NewReader(data)
	if r.Null() {
		if r.Done() {
			return nil
		}
	} else if r.IsObject() {
		out := map[string]json.RawMessage{}
		r.Members(func(key string) {
			if raw := r.Raw(); raw != nil {
				out[key] = append(json.RawMessage(nil), raw...)
			}
		})
		if r.Done() {
			*m = out
			return nil
		}
	}
	return json.Unmarshal(data, m)
}

// UnmarshalRawList is json.Unmarshal into a nil slice of raw values.
func UnmarshalRawList(data []byte, l *[]json.RawMessage) error {
	r := NewReader(data)
	out := []json.RawMessage{}
	if r.IsArray() {
		r.Array(func() {
			if raw := r.Raw(); raw != nil {
				out = append(out, append(json.RawMessage(nil), raw...))
			}
		})
		if r.Done() {
			*l = out
			return nil
		}
	}
	return json.Unmarshal(data, l)
}

// UnmarshalString is json.Unmarshal into a string: a null leaves it as it
// is.
func UnmarshalString(data []byte, s *string) error {
	r := NewReader(data)
	if r.IsString() {
		v := r.String()
		if r.Done() {
			*s = v
			return nil
		}
	}
	return json.Unmarshal(data, s)
}

// UnmarshalStrings is json.Unmarshal into a nil slice of strings: a null
// leaves it nil.
func UnmarshalStrings(data []byte, l *[]string) error {
	r := NewReader(data)
	if r.IsArray() {
		v := r.Strings()
		if r.Done() {
			*l = v
			return nil
		}
	}
	return json.Unmarshal(data, l)
}

// UnmarshalInt is json.Unmarshal into an int: a null leaves it as it is.
func UnmarshalInt(data []byte, n *int) error {
	r := NewReader(data)
	if !r.Null() {
		v := r.Int()
		if r.Done() {
			*n = v
			return nil
		}
	}
	return json.Unmarshal(data, n)
}

// Valid reports whether data is one JSON value, as json.Valid does but
// for nesting past encoding/json's 10,000 levels, which it takes; a false
// is for encoding/json to explain.
func Valid(data []byte) bool {
	r := NewReader(data)
	r.Skip()
	return r.Done() || json.Valid(data)
}
