package check

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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
	f.Add("task_time", `{"cron":"*/5 1-3 ? jan-mar mon","timezone":"Europe/Paris","now":"2026-03-01T00:00:00Z","zone":{"known":true,"from":0,"to":99999999999,"offsets":[{"from":0,"offset":3600},{"from":1774746000,"offset":-86400}]}}`)
	f.Add("task_time", `{"at":"2026-03-29 02:30","timezone":"X","now":"2026-03-01T00:00:00Z","zone":{"known":true,"from":5,"to":1,"offsets":[{"from":9,"offset":1},{"from":9,"offset":2}]}}`)
	f.Add("task_time", `{"cron":"0 0 31 2 *","now":"0001-01-01T00:00:00Z"}`)
	f.Add("task_time", `{"at":"9999-12-31T23:59","timezone":"A/B","now":"2026-03-01T00:00:00Z"}`)
	f.Add("mcp_catalogue", `{"authorize":"headers","config":"","servers":[{"key":"a b","state":"needs_authorization"},{"key":"a_b","state":"down","why":""}]}`)
	f.Add("mcp_result", `{"key":"'","authorize":"headers","unavailable":{"needs_authorization":true}}`)
	f.Add("mcp_result", `{"key":"k","authorize":5}`)
	f.Add("mcp_refusal", `{"status":403,"challenge":"Bearer error=\"insufficient_scope\", scope=\"a\\\\\"","token":true}`)
	f.Add("model_list", `{"format":"gemini","url":"u","status":200,"body":"{\"models\":[{\"name\":7}]}"}`)
	f.Add("model_list", `{"format":"anthropic","url":"u","status":500,"body":"\u00e9\u00e9\u00e9"}`)
	f.Add("provider_record", `{"name":"w","format":"openai","base_url":"http://[::1:80","key_secret":"1"}`)
	f.Add("tool_secrets", `{"name":"w","replace":true,"env":["A"],"required_permissions":["x"],"granted":["google"]}`)
	f.Add("nope", `{}`)
	f.Add("tool_name", `null`)
	f.Fuzz(func(t *testing.T, op, args string) {
		a, err := Run(Request{Op: op, Args: json.RawMessage(args)})
		if err == nil && a.Error != nil && a.Error.Message == "" {
			t.Errorf("an empty refusal for %q %q", op, args)
		}
	})
}

// TestZoneRules: an offset is the last in force at an instant, the first
// before them all; a wall time is read as the zone's next one when it is
// skipped and its second when it happens twice.
func TestZoneRules(t *testing.T) {
	z := zoneRules{{From: 100, Offset: 3600}, {From: 10000, Offset: 7200}, {From: 20000, Offset: 3600}}
	for _, tt := range []struct {
		name     string
		at, want int64
	}{
		{"before the first", 0, 3600},
		{"at a change", 10000, 7200},
		{"just before a change", 9999, 3600},
		{"after the last", 1 << 40, 3600},
	} {
		if got := z.at(tt.at); got != tt.want {
			t.Errorf("%s: at(%d) = %d, want %d", tt.name, tt.at, got, tt.want)
		}
	}
	// 10000+3600 .. 10000+7200 (wall) is skipped; it falls an hour later.
	if got := z.instant(time.Unix(10000+5000, 0).UTC()); got != 10000+5000-3600 {
		t.Errorf("a skipped wall time: %d", got)
	}
	// 20000+3600 .. 20000+7200 (wall) happens twice: the second.
	if got := z.instant(time.Unix(20000+5000, 0).UTC()); got != 20000+5000-3600 {
		t.Errorf("a wall time twice: %d", got)
	}
}

// TestAPIRoot: the addresses a provider's base_url may be.
func TestAPIRoot(t *testing.T) {
	for _, tt := range []struct {
		url string
		ok  bool
	}{
		{"https://api.openai.com/v1", true},
		{"HTTP://localhost:8080/v1/", true},
		{"http://127.0.0.1", true},
		{"http://[::1]:11434/v1", true},
		{"http://[::1]", true},
		{"https://api.example.com:/v1", true},
		{"https://", false},
		{"https:///v1", false},
		{"ftp://api.example.com", false},
		{"api.example.com", false},
		{"https://u:p@api.example.com", false},
		{"https://api.example.com/v1?x=1", false},
		{"https://api.example.com/v1#top", false},
		{"https://api.example.com:80a", false},
		{"https://exa mple.com", false},
		{"https://api.example.com/v1\n", false},
		{"https://[zz]/v1", false},
		{"https://a\\b/v1", false},
	} {
		if got := apiRoot(tt.url); got != tt.ok {
			t.Errorf("apiRoot(%q) = %v, want %v", tt.url, got, tt.ok)
		}
	}
}
