package check

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestElicitFieldOrder: a form asks its fields in the order the server
// wrote them, whatever their names and however deep their schemas nest
// (keys that look like JSON, escaped quotes, nested objects and arrays).
func TestElicitFieldOrder(t *testing.T) {
	raw := json.RawMessage(`{"zeta": {"type":"string","description":"a \"quoted\", {tricky} [one]"},
		"a\"b": {"type":"array","items":{"enum":["x","y"]}},
		"mid": {"type":"number","default":2},
		"zeta": {"type":"boolean"}}`)
	if got, want := objectKeys(raw), []string{"zeta", `a"b`, "mid"}; !slices.Equal(got, want) {
		t.Errorf("objectKeys = %q, want %q", got, want)
	}
}

// FuzzElicitation: any question and answer get an answer or an error,
// never a panic, and a refusal always says something.
func FuzzElicitation(f *testing.F) {
	f.Add(`{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":0}}}}`, `{"a":"1"}`)
	f.Add(`{"message":"m","requestedSchema":{"properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]},"minItems":2}}}}`, `{"a":"X, x, 1"}`)
	f.Add(`{"message":"m","requestedSchema":{"properties":{"a":{"type":"string","format":"date","minLength":3,"default":"2026-02-30"}}}}`, `{"a":5}`)
	f.Add(`{"message":"m","requestedSchema":{"properties":{"a":{"enum":["x"],"enumNames":[]}}}}`, `{"a":null}`)
	f.Fuzz(func(t *testing.T, params, content string) {
		args, _ := json.Marshal(map[string]any{"server": "s", "params": json.RawMessage(params),
			"answer": map[string]any{"action": "accept", "content": json.RawMessage(content)}})
		if !json.Valid([]byte(params)) || !json.Valid([]byte(content)) {
			return
		}
		a, err := Run(Request{Op: "elicitation", Args: args})
		if err == nil && a.Error != nil && a.Error.Message == "" {
			t.Errorf("an empty refusal for %s %s", params, content)
		}
	})
}
