package registry

import (
	"encoding/json"
	"testing"
)

// stringArgReflect is stringArg by encoding/json alone.
func stringArgReflect(args json.RawMessage, key string) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return "", false
	}
	raw, ok := obj[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// FuzzStringArg: a call's string argument read by hand is what
// encoding/json reads through a map.
func FuzzStringArg(f *testing.F) {
	for _, s := range []string{`{"group_name":"pdf"}`, `{"group_name":null}`, `{"group_name":1}`, `{"group_name":"a","group_name":"b"}`,
		`{"Group_Name":"a"}`, `{"group_name":"a\u00e9\ud800"}`, `null`, `[]`, `"x"`, `{"a":[1,{"b":2}],"group_name":"x"} `, `{"group_name":"x"} y`, `{`,
		`{"group\u005fname":"esc"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		s, ok := stringArg(args, "group_name")
		ws, wok := stringArgReflect(args, "group_name")
		if s != ws || ok != wok {
			t.Fatalf("stringArg(%q) = %q, %v; encoding/json %q, %v", args, s, ok, ws, wok)
		}
	})
}
