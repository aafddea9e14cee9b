package host

import (
	"encoding/json"
	"testing"
)

func TestExampleArguments(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"the required ones", `{"type":"object","properties":{"code":{"type":"string"},"secrets":{"type":"array"}},"required":["code"]}`, `{"code":"..."}`},
		{"each type", `{"properties":{"n":{"type":"integer","minimum":3},"x":{"type":"number"},"b":{"type":"boolean"},"a":{"type":"array"},"o":{"type":"object"}},"required":["n","x","b","a","o"]}`, `{"n":3,"x":1,"b":true,"a":[],"o":{}}`},
		{"an enum, a default", `{"properties":{"unit":{"type":"string","enum":["c","f"]},"lang":{"type":"string","default":"en"}},"required":["unit","lang"]}`, `{"unit":"c","lang":"en"}`},
		{"none required: the first property", `{"properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}}}`, `{"zeta":"..."}`},
		{"a type list", `{"properties":{"v":{"type":["integer","null"]}},"required":["v"]}`, `{"v":1}`},
		{"no properties", `{"type":"object","properties":{}}`, `{}`},
		{"not a schema", `[`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExampleArguments(json.RawMessage(tt.schema))
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("%s is not JSON", got)
			}
		})
	}
}
