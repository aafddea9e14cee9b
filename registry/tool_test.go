package registry

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeSchema(t *testing.T) {
	tests := []struct {
		name         string
		input        string
		want         string
		wantRequired []string
		wantErr      bool
	}{
		{name: "absent", input: ``, want: `{"type":"object","properties":{}}`},
		{name: "null", input: `null`, want: `{"type":"object","properties":{}}`},
		{name: "empty object gets a type", input: `{}`, want: `{"type":"object"}`},
		{name: "type added in front, the rest kept", input: `{ "properties": {"b": {"type":"string"}, "a": {"type":"integer","minimum":1}},
			"required": ["b"], "additionalProperties": false }`,
			want:         `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer","minimum":1}},"required":["b"],"additionalProperties":false}`,
			wantRequired: []string{"b"}},
		{name: "type kept where given", input: `{"properties":{},"type":"object"}`, want: `{"properties":{},"type":"object"}`},
		{name: "nested schemas untouched", input: `{"type":"object","properties":{"q":{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}}`,
			want: `{"type":"object","properties":{"q":{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}}`},
		{name: "not an object", input: `[]`, wantErr: true},
		{name: "a string", input: `"object"`, wantErr: true},
		{name: "type not object", input: `{"type":"array"}`, wantErr: true},
		{name: "type not a string", input: `{"type":["object"]}`, wantErr: true},
		{name: "properties not an object", input: `{"properties":[{"a":1}]}`, wantErr: true},
		{name: "a property not an object", input: `{"properties":{"a":true}}`, wantErr: true},
		{name: "required not strings", input: `{"required":[1]}`, wantErr: true},
		{name: "invalid JSON", input: `{"properties":`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, required, err := NormalizeSchema(json.RawMessage(tt.input))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if string(got) != tt.want {
				t.Errorf("schema:\n got %s\nwant %s", got, tt.want)
			}
			if !cmp.Equal(required, tt.wantRequired) {
				t.Errorf("required = %v, want %v", required, tt.wantRequired)
			}
			if !json.Valid(got) {
				t.Errorf("output is not JSON: %s", got)
			}
		})
	}
}

func TestNamePatterns(t *testing.T) {
	tests := []struct {
		name                   string
		tool, function, envVar bool
	}{
		{"gmail_search", true, true, true},
		{"a", true, true, true},
		{"a1_b2", true, true, true},
		{"", false, false, false},
		{"1abc", false, false, false},
		{"_private", false, true, true},
		{"camelCase", false, true, true},
		{"$jq", false, true, false},
		{"API_KEY", false, true, true},
		{"with-dash", false, false, false},
		{"dot.name", false, false, false},
		{"naïve", false, false, false},
		{"x y", false, false, false},
		{"tab\t", false, false, false},
	}
	for _, tt := range tests {
		if got := ValidToolName(tt.name); got != tt.tool {
			t.Errorf("ValidToolName(%q) = %v", tt.name, got)
		}
		if got := ValidFunctionName(tt.name); got != tt.function {
			t.Errorf("ValidFunctionName(%q) = %v", tt.name, got)
		}
		if got := validEnvName(tt.name); got != tt.envVar {
			t.Errorf("validEnvName(%q) = %v", tt.name, got)
		}
	}
}
