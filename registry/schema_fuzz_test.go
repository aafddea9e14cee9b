package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// schemaSeeds are schemas of every shape NormalizeSchema meets: real ones,
// repeated keywords and names, escapes in keys, wrong types, broken JSON,
// deep nesting.
var schemaSeeds = []string{
	``, `null`, ` null `, `{}`, ` { } `, `{"type":"object"}`, `{"properties":{}}`,
	`{"type":"object","properties":{"id":{"type":"string","description":"The id"},"n":{"type":"integer","minimum":1}},"required":["id"]}`,
	"{\n  \"properties\" : {\n    \"q\" : { \"type\" : \"string\" }\n  },\n  \"required\" : [ \"q\" ]\n}",
	`{"type":"array"}`, `{"type":1}`, `{"type":null}`, `{"typ\u0065":"object"}`, `{"type":"obj\u0065ct"}`,
	`{"type":"object","type":"array"}`, `{"type":"array","type":"object"}`,
	`{"properties":[]}`, `{"properties":null}`, `{"properties":{"a":1}}`, `{"properties":{"b":[],"a":"x"}}`,
	`{"properties":{"a":null}}`, `{"properties":{"a":1,"a":{}}}`, `{"properties":{"a":{},"a":1}}`,
	`{"properties":{"a":{}},"properties":5}`, `{"properties":5,"properties":{"a":{}}}`,
	`{"properties":{"\u0061":1}}`, `{"properties":{"\xff":1,"\xfe":{}}}`,
	`{"required":"id"}`, `{"required":[1]}`, `{"required":null}`, `{"required":[null,"a"]}`, `{"required":["a\u00e9"]}`,
	`{"required":[]}`, `{"required":["a","b"]}`, `{"required":["a\"b"]}`, `{"required":["\xff"]}`, `{"required":["a",]}`,
	`{"required":["a",1]}`, `{"required":["a"],"required":["b","c"]}`,
	`[]`, `"x"`, `1`, `true`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1}x`, `{"a":01}`, `{"a":1.}`, `{"a":-}`,
	`{"a":1e}`, `{"a":1e+5,"b":-0.5E-3}`, `{"a":"\x01"}`, `{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":tru}`,
	`{"a":[1,[2,{"b":[]}],"c"]}`, `{"a":[1 2]}`, `{"a":[,]}`, `{"a":"<&>\u2028"}`, "{\"a\":\"\xe2\x80\xa8\"}",
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

// deep is an object nesting n levels: NormalizeSchema refuses past
// MaxDepth, encoding/json past 10,000.
func deep(n int) string {
	return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1)
}

// sameAsMaps checks NormalizeSchema against the decoding it replaced,
// which a schema nesting past MaxDepth never reaches.
func sameAsMaps(t *testing.T, in string) {
	t.Helper()
	got, gotReq, gotErr := NormalizeSchema(json.RawMessage(in))
	if CheckDepth([]byte(in)) != nil {
		var deep *DepthError
		if !errors.As(gotErr, &deep) || got != nil {
			t.Fatalf("NormalizeSchema(%.200q) = %.100s, %v; want a *DepthError", in, got, gotErr)
		}
		return
	}
	want, wantReq, wantErr := normalizeSchemaMaps(json.RawMessage(in))
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !bytes.Equal(got, want) || fmt.Sprintf("%q", gotReq) != fmt.Sprintf("%q", wantReq) {
		t.Fatalf("NormalizeSchema(%.200q):\n got %.300s %q %v\nwant %.300s %q %v", in, got, gotReq, gotErr, want, wantReq, wantErr)
	}
}

func TestNormalizeSchemaAsMaps(t *testing.T) {
	for _, s := range schemaSeeds {
		sameAsMaps(t, s)
		sameAsMaps(t, `{"properties":{"x":`+s+`}}`)
	}
	for _, n := range []int{MaxDepth, MaxDepth + 1, 10000, 10001} {
		sameAsMaps(t, deep(n))
	}
}

func FuzzNormalizeSchemaAsMaps(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sameAsMaps(t, in)
	})
}
