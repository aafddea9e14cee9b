package jsondec

import (
	"encoding/json"
	"reflect"
	"testing"
)

// same fails t unless the hand-read v and err are what encoding/json gives
// (want, wantErr) for data.
func same(t *testing.T, what string, data []byte, v any, err error, want any, wantErr error) {
	t.Helper()
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) || !reflect.DeepEqual(v, want) {
		t.Fatalf("%s %q: %#v, %v; encoding/json %#v, %v", what, data, v, err, want, wantErr)
	}
}

// FuzzRawMap: the Unmarshal functions give what json.Unmarshal gives, for
// every input: a tool call's arguments and a schema read into a map or a
// list of raw values, a manifest's fields read into a string, a list of
// strings or an int (over a value already there, which a null keeps), and
// Valid is json.Valid.
func FuzzRawMap(f *testing.F) {
	for _, s := range []string{`{"path":"a.pdf","n":[1, {"x" : null}]}`, `{"a":1,"a":2}`, `{}`, `null`, `[]`, `[1,"x",null, {"a":[]}]`, `"x"`, `{"a":1} x`,
		`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, ``, ` { "a" : null } `, `{"\u00e9":"\ud800"}`,
		` "a\nb" `, `["send", "read"]`, `["a", null, 1]`, `30`, ` -7 `, `1.5`, `1e3`, `99999999999999999999`, `"30"`, `[`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if TooDeep(data, 10000) >= 0 {
			return // a Reader reads on, without recursion, where encoding/json stops
		}
		var got, want map[string]json.RawMessage
		err := UnmarshalRawMap(data, &got)
		same(t, "map", data, got, err, want, json.Unmarshal(data, &want))

		var gotL, wantL []json.RawMessage
		err = UnmarshalRawList(data, &gotL)
		same(t, "list", data, gotL, err, wantL, json.Unmarshal(data, &wantL))

		gotS, wantS := "before", "before"
		err = UnmarshalString(data, &gotS)
		same(t, "string", data, gotS, err, wantS, json.Unmarshal(data, &wantS))

		var gotSs, wantSs []string
		err = UnmarshalStrings(data, &gotSs)
		same(t, "strings", data, gotSs, err, wantSs, json.Unmarshal(data, &wantSs))

		gotN, wantN := 42, 42
		err = UnmarshalInt(data, &gotN)
		same(t, "int", data, gotN, err, wantN, json.Unmarshal(data, &wantN))

		if Valid(data) != json.Valid(data) {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", data, Valid(data), json.Valid(data))
		}
	})
}
