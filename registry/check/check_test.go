package check

import (
	"encoding/json"
	"strings"
	"testing"
)

// The cases every host replays are testdata/checks/cases.json (internal/abi,
// internal/module, web/packages/toolroute/test); these are the rules' edges.
func TestNames(t *testing.T) {
	for _, tt := range []struct {
		name, op, arg string
		ok            bool
	}{
		{"record name of 40", "agent_name", strings.Repeat("a", 40), true},
		{"record name of 41", "agent_name", strings.Repeat("a", 41), false},
		{"record name with a digit after the first", "provider_name", "p2", true},
		{"non-ASCII letter in a variable", "variable_name", "café", false},
		{"tool name with a hyphen", "tool_name", "a-b", false},
		{"task name with a hyphen", "task_name", "a-b", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"name": tt.arg})
			a, err := Run(Request{Op: tt.op, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if (a.Error == nil) != tt.ok {
				t.Errorf("%s %q: %+v, want ok %v", tt.op, tt.arg, a.Error, tt.ok)
			}
			if a.Error != nil && (a.Error.Type != "invalid_arguments" || !strings.Contains(a.Error.Message, ": use ")) {
				t.Errorf("refusal %+v does not say what to use", a.Error)
			}
		})
	}
}

// FuzzRun: any request gets an answer or an error, never a panic, and a
// refusal always says something.
func FuzzRun(f *testing.F) {
	for _, op := range Ops {
		f.Add(op, `{"name":"x"}`)
		f.Add(op, `{"name":""}`)
		f.Add(op, `{"name":5}`)
	}
	f.Add("approval_answers", `{"calls":[{"id":"a","secrets":["K"]}],"given":[],"answers":[{"id":"a","answer":"x","grant":["L"]}]}`)
	f.Add("approval_answers", `{"calls":null,"answers":[{"id":"a"}]}`)
	f.Add("api_body", `{"route":"POST /api/sessions/{id}/approvals","body":"{\"approvals\":[{\"id\":1},null,[]]}"}`)
	f.Add("api_body", `{"route":"PATCH /api/sessions/{id}","body":"nul"}`)
	f.Add("model_proxy", `{"provider":"gemini","format":"gemini","path":"/v1beta/models/:x","headers":{"A":"1"},"body":true}`)
	f.Add("js_bridge", `{"code":"timeout","tool":"t","timeout_ms":-1e308,"pending":true}`)
	f.Add("js_bridge", `{"code":"body_cut","max":-1025,"total":-5}`)
	f.Add("js_bridge", `{"code":"fetch_method","method":"\u0000"}`)
	f.Add("js_bridge", `{"code":5}`)
	f.Add("nope", `{}`)
	f.Add("tool_name", `null`)
	f.Fuzz(func(t *testing.T, op, args string) {
		a, err := Run(Request{Op: op, Args: json.RawMessage(args)})
		if err == nil && a.Error != nil && a.Error.Message == "" {
			t.Errorf("an empty refusal for %q %q", op, args)
		}
	})
}
