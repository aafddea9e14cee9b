package check

import (
	"encoding/json"
	"strings"
	"testing"
)

// The bodies of the HTTP API's requests: testdata/checks has the cases
// every host replays; these are the edges.
func TestAPIBody(t *testing.T) {
	for _, tt := range []struct {
		name, route, body string
		want, wantErr     string // want: the answer's args as JSON; wantErr: a part of the refusal
	}{
		{"an empty body is {}", "POST /api/sessions", "  ", `{"agent":""}`, ""},
		{"not JSON", "POST /api/sessions", "{nope", "", NotTheJSON + "invalid character 'n'"},
		{"cut short", "POST /api/sessions/{id}/clear", `{"a":`, "", NotTheJSON + "unexpected end of JSON input"},
		{"an array", "POST /api/sessions/{id}/compact", `[1]`, "", NotTheJSON + "send an object"},
		{"null", "POST /api/sessions", `null`, "", NotTheJSON + "send an object"},
		{"a title for a new session", "POST /api/sessions", `{"title":"x"}`, "", "titled after its first message"},
		{"an empty title for a new session", "POST /api/sessions", `{"title":"","agent":"helper"}`, `{"agent":"helper"}`, ""},
		{"an agent that is a number", "POST /api/sessions", `{"agent":7}`, "", `"agent" is a number, not a string`},
		{"a rename without a title", "PATCH /api/sessions/{id}", `{}`, "", usageTitle},
		{"a title that is a number", "PATCH /api/sessions/{id}", `{"title":7}`, "", NotTheJSON + `"title" is a number, not a string: ` + usageTitle},
		{"a title cleaned", "PATCH /api/sessions/{id}", `{"title":"  a \n b "}`, `{"title":"a b"}`, ""},
		{"a blank title", "PATCH /api/sessions/{id}", `{"title":" "}`, "", "the title is empty"},
		{"a blank message", "POST /api/sessions/{id}/messages", `{"text":" \t"}`, "", usageText},
		{"a message that is an object", "POST /api/sessions/{id}/messages", `{"text":{}}`, "", `"text" is an object, not a string: ` + usageText},
		{"a message", "POST /api/sessions/{id}/messages", `{"text":" hi ","x":1}`, `{"agent":"","text":" hi "}`, ""},
		{"a message with a model", "POST /api/sessions/{id}/messages", `{"text":"hi","model":"gpt-4.1-mini"}`, `{"agent":"","model":"gpt-4.1-mini","text":"hi"}`, ""},
		{"an empty model is the server's", "POST /api/sessions/{id}/messages", `{"text":"hi","model":""}`, `{"agent":"","text":"hi"}`, ""},
		{"a model with a space", "POST /api/sessions/{id}/messages", `{"text":"hi","model":"gpt 4"}`, "", `"gpt 4" is not a model name: give the provider's id of a model`},
		{"a model that is a number", "POST /api/sessions/{id}/messages", `{"text":"hi","model":4}`, "", `"model" is a number, not a string`},
		{"files alone", "POST /api/sessions/{id}/messages", `{"attachments":[{"name":"a.txt","text":"x"},{"name":"b.png","data":"iVBORw0KGgo="}]}`,
			`{"agent":"","attachments":[{"name":"a.txt","text":"x"},{"name":"b.png","data":"iVBORw0KGgo="}],"text":""}`, ""},
		{"attachments that are an object", "POST /api/sessions/{id}/messages", `{"text":"hi","attachments":{}}`, "", `"attachments" is an object, not an array of objects: ` + usageFiles},
		{"a file's name that is a number", "POST /api/sessions/{id}/messages", `{"text":"hi","attachments":[{"name":1}]}`, "", `attachments[0]: "name" is a number, not a string: ` + usageFiles},
		{"a file neither image nor text", "POST /api/sessions/{id}/messages", `{"text":"hi","attachments":[{"name":"x.bin","data":"AAEC"}]}`, "", `attachments[0] "x.bin": the file is neither an image`},
		{"no answers", "POST /api/sessions/{id}/approvals", `{"approvals":[]}`, "", usageAnswers},
		{"an answer without an id", "POST /api/sessions/{id}/approvals", `{"approvals":[{"answer":"once"}]}`, "", "approvals[0] is not"},
		{"an answer that is null", "POST /api/sessions/{id}/approvals", `{"approvals":[null]}`, "", "approvals[0] is not"},
		{"a grant that is a string", "POST /api/sessions/{id}/approvals", `{"approvals":[{"id":"c","answer":"once","grant":"K"}]}`, "", "approvals[0].grant is not an array"},
		{"answers", "POST /api/sessions/{id}/approvals", `{"approvals":[{"id":"c","answer":"once","grant":["K"]},{"id":"d","answer":"deny","grant":[]}]}`,
			`{"approvals":[{"id":"c","answer":"once","grant":["K"]},{"id":"d","answer":"deny"}]}`, ""},
		{"a decision that is a number", "PUT /api/policies", `{"tool":"x","decision":1}`, "", `"decision" is a number, not a string`},
		{"a reset", "PUT /api/policies", `{"group":"g","decision":""}`, `{"decision":"","group":"g"}`, ""},
		{"a tool's input", "POST /api/ui/tools/{name}", `{"input":{"q":1}}`, `{"input":{"q":1}}`, ""},
		{"a model call", "POST /api/model", `{"format":"openai"}`, `{}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(APIBody{Route: tt.route, Body: tt.body})
			a, err := Run(Request{Op: "api_body", Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" {
				if a.Error == nil || !strings.Contains(a.Error.Message, tt.wantErr) || a.Error.Type != "invalid_arguments" {
					t.Fatalf("got %+v, want a refusal with %q", a, tt.wantErr)
				}
				return
			}
			if a.Error != nil {
				t.Fatalf("refused: %s", a.Error.Message)
			}
			if got, _ := json.Marshal(a.Args); string(got) != tt.want {
				t.Errorf("args %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := Run(Request{Op: "api_body", Args: json.RawMessage(`{"route":"GET /api/sessions","body":""}`)}); err == nil || !strings.Contains(err.Error(), "use one of POST /api/sessions") {
		t.Errorf("a route without a body: %v", err)
	}
}

func TestModelProxy(t *testing.T) {
	for _, tt := range []struct {
		name     string
		m        ModelProxy
		want     string // the args as JSON
		wantType string
		wantErr  string
	}{
		{"no body", ModelProxy{Provider: "openai", Format: "openai", Path: "/chat/completions"}, "", "invalid_arguments", "send the module's model request"},
		{"another format", ModelProxy{Provider: "openai", Format: "anthropic", Path: "/v1/messages", Body: true}, "", WrongEndpoint,
			`the proxy's provider speaks the openai format, not "anthropic": set the page's provider to "server" with that format`},
		{"another path", ModelProxy{Provider: "openai", Format: "openai", Path: "/models", Body: true}, "", WrongEndpoint,
			`the proxy forwards only openai requests to /chat/completions, not "/models"`},
		{"a Gemini model's stream", ModelProxy{Provider: "gemini", Format: "gemini", Path: "/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse", Body: true}, `{"headers":{}}`, "", ""},
		{"a Gemini path out of the model", ModelProxy{Provider: "gemini", Format: "gemini", Path: "/v1beta/models/../files:generateContent", Body: true}, "", WrongEndpoint,
			"/v1beta/models/MODEL:generateContent or :streamGenerateContent?alt=sse"},
		{"the wire headers only", ModelProxy{Provider: "anthropic", Format: "anthropic", Path: "/v1/messages", Body: true,
			Headers: map[string]string{"Content-Type": "application/json", "Anthropic-Version": "2023-06-01", "X-Api-Key": "stolen", "Authorization": "Bearer x"}},
			`{"headers":{"anthropic-version":"2023-06-01","content-type":"application/json"}}`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args, _ := json.Marshal(tt.m)
			a, err := Run(Request{Op: "model_proxy", Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" {
				if a.Error == nil || !strings.Contains(a.Error.Message, tt.wantErr) || a.Error.Type != tt.wantType {
					t.Fatalf("got %+v, want a %s refusal with %q", a.Error, tt.wantType, tt.wantErr)
				}
				return
			}
			if a.Error != nil {
				t.Fatalf("refused: %s", a.Error.Message)
			}
			if got, _ := json.Marshal(a.Args); string(got) != tt.want {
				t.Errorf("args %s, want %s", got, tt.want)
			}
		})
	}
}
