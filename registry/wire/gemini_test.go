package wire

import (
	"encoding/base64"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncodeGemini(t *testing.T) {
	temp := 0.5
	got, err := Encode(Gemini, Request{Model: "gemini-test", System: "Be brief.", Messages: conversation, Tools: tools, MaxTokens: 1000, Temperature: &temp})
	if err != nil {
		t.Fatal(err)
	}
	skip := "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="
	want := `{"contents":[` +
		`{"role":"user","parts":[{"text":"Read report.pdf <today> & summarise"}]},` +
		// The first call of a response without a thought signature gets the
		// documented stand-in; the others go without.
		`{"role":"model","parts":[{"text":"Loading the PDF tools."},` +
		`{"functionCall":{"id":"call_1","name":"load_tool_group","args":{"group_name":"pdf"}},"thoughtSignature":"` + skip + `"},` +
		`{"functionCall":{"id":"call_2","name":"get_current_time"}}]},` +
		// Results by id and name, failures under "error".
		`{"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"load_tool_group","response":{"output":"Loaded 1 tools from group 'PDF':\n- pdf_info: Info"}}},` +
		`{"functionResponse":{"id":"call_2","name":"get_current_time","response":{"error":"Error (timeout): too slow"}}}]},` +
		// Malformed arguments become {}: args is an object.
		`{"role":"model","parts":[{"functionCall":{"id":"call.3","name":"pdf_info"},"thoughtSignature":"` + skip + `"}]},` +
		// The last results and the next user text share one user turn, results first.
		`{"role":"user","parts":[{"functionResponse":{"id":"call.3","name":"pdf_info","response":{"output":""}}},{"text":"Thanks"}]}],` +
		`"systemInstruction":{"parts":[{"text":"Be brief."}]},` +
		`"tools":[{"functionDeclarations":[` +
		`{"name":"load_tool_group","description":"Load a group","parametersJsonSchema":{"type":"object","properties":{"group_name":{"type":"string"}},"required":["group_name"]}},` +
		`{"name":"pdf_info","description":"PDF info","parametersJsonSchema":{"type":"object","properties":{}}}]}],` +
		`"generationConfig":{"maxOutputTokens":1000,"temperature":0.5}}`
	if diff := cmp.Diff(want, string(got.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if got.Path != "/v1beta/models/gemini-test:generateContent" || !cmp.Equal(got.Headers, map[string]string{"content-type": "application/json"}) {
		t.Errorf("path %q headers %v", got.Path, got.Headers)
	}
	if b, _ := base64.StdEncoding.DecodeString(skip); string(b) != "skip_thought_signature_validator" {
		t.Errorf("the stand-in signature decodes to %q", b)
	}
}

func TestEncodeGeminiPaths(t *testing.T) {
	tests := []struct {
		model  string
		stream bool
		want   string
	}{
		{"gemini-3.5-flash", false, "/v1beta/models/gemini-3.5-flash:generateContent"},
		{"gemini-3.5-flash", true, "/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse"},
		{"models/gemini-3.5-flash", false, "/v1beta/models/gemini-3.5-flash:generateContent"},
		// A model name names a model, never another path or query.
		{"../../files?x=1#y", false, "/v1beta/models/..%2F..%2Ffiles%3Fx%3D1%23y:generateContent"},
		{"a:b", true, "/v1beta/models/a%3Ab:streamGenerateContent?alt=sse"},
	}
	for _, tt := range tests {
		got, err := Encode(Gemini, Request{Model: tt.model, Stream: tt.stream})
		if err != nil {
			t.Fatal(err)
		}
		if got.Path != tt.want {
			t.Errorf("model %q stream %v: path %q, want %q", tt.model, tt.stream, got.Path, tt.want)
		}
		if !GeminiPath(got.Path) {
			t.Errorf("GeminiPath(%q) = false for a path Encode made", got.Path)
		}
	}
	for _, p := range []string{"", "/v1/messages", "/v1beta/models/:generateContent", "/v1beta/models/g:countTokens",
		"/v1beta/models/g/../../x:generateContent", "/v1beta/models/g:streamGenerateContent", "/v1beta/models/g:generateContent?key=x"} {
		if GeminiPath(p) {
			t.Errorf("GeminiPath(%q) = true", p)
		}
	}
}

func TestEncodeGeminiSignatures(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Text: "go"},
		{Role: RoleAssistant, Calls: []Call{{ID: "a", Name: "one", Input: "{}", Signature: "c2lnMQ=="}, {ID: "b", Name: "two", Input: "{}"}}},
		{Role: RoleTool, Results: []Result{{CallID: "a", Name: "one", Content: "1"}, {CallID: "b", Name: "two", Content: "2"}}},
		{Role: RoleAssistant, Calls: []Call{{ID: "c", Name: "three", Input: "{}"}, {ID: "d", Name: "four", Input: "{}", Signature: "c2lnMg=="}}},
		{Role: RoleTool, Results: []Result{{CallID: "c", Name: "three", Content: "3"}, {CallID: "d", Name: "four", Content: "4"}}},
	}
	got, err := Encode(Gemini, Request{Model: "g", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"contents":[{"role":"user","parts":[{"text":"go"}]},` +
		`{"role":"model","parts":[{"functionCall":{"id":"a","name":"one"},"thoughtSignature":"c2lnMQ=="},{"functionCall":{"id":"b","name":"two"}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"a","name":"one","response":{"output":"1"}}},{"functionResponse":{"id":"b","name":"two","response":{"output":"2"}}}]},` +
		`{"role":"model","parts":[{"functionCall":{"id":"c","name":"three"},"thoughtSignature":"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="},` +
		`{"functionCall":{"id":"d","name":"four"},"thoughtSignature":"c2lnMg=="}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"c","name":"three","response":{"output":"3"}}},{"functionResponse":{"id":"d","name":"four","response":{"output":"4"}}}]}]}`
	if diff := cmp.Diff(want, string(got.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestEncodeGeminiTurns(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{
			name: "blank model text is dropped and the user turns merge",
			msgs: []Message{{Role: RoleUser, Text: "a"}, {Role: RoleAssistant, Text: " "}, {Role: RoleUser, Text: "b"}},
			want: `[{"role":"user","parts":[{"text":"a"},{"text":"b"}]}]`,
		},
		{
			name: "a conversation starts with the user",
			msgs: []Message{{Role: RoleAssistant, Text: "hello"}, {Role: RoleUser, Text: "hi"}},
			want: `[{"role":"user","parts":[{"text":"hi"}]}]`,
		},
		{
			name: "no messages",
			want: `[]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Encode(Gemini, Request{Model: "m", Messages: tt.msgs})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"contents":` + tt.want + `}`
			if string(got.Body) != want {
				t.Errorf("body:\n got %s\nwant %s", got.Body, want)
			}
		})
	}
}

func TestEncodeGeminiSchema(t *testing.T) {
	defs := []ToolDef{{Name: "fs_read", Description: "Read", Parameters: []byte(
		`{"type":"object","$schema":"http://json-schema.org/draft-07/schema#","properties":{"path":{"type":"string","$schema":"kept"}},"additionalProperties":false,"required":["path"]}`)}}
	got, err := Encode(Gemini, Request{Model: "m", Tools: defs})
	if err != nil {
		t.Fatal(err)
	}
	// The top-level $schema goes; everything else, additionalProperties too,
	// stays as written, in order.
	want := `{"contents":[],"tools":[{"functionDeclarations":[{"name":"fs_read","description":"Read","parametersJsonSchema":` +
		`{"type":"object","properties":{"path":{"type":"string","$schema":"kept"}},"additionalProperties":false,"required":["path"]}}]}]}`
	if string(got.Body) != want {
		t.Errorf("body:\n got %s\nwant %s", got.Body, want)
	}
}

func TestWithoutSchemaKeyword(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"object"}`, `{"type":"object"}`},
		{`{"$schema":"x","type":"object"}`, `{"type":"object"}`},
		{`{"type":"object","$schema":"x"}`, `{"type":"object"}`},
		{`{ "$schema" : "x" , "a" : [1, {"$schema":2}] }`, `{"a":[1,{"$schema":2}]}`},
		{`{"description":"a \"$schema\", {quoted}","$schema":"x"}`, `{"description":"a \"$schema\", {quoted}"}`},
		{`{"k\"ey":"$schema","$schema":"x"}`, `{"k\"ey":"$schema"}`},
		{`{"$schema":"x"}`, `{}`},
		{`{"properties":{"$schema":{"type":"string"}}}`, `{"properties":{"$schema":{"type":"string"}}}`},
		{`["$schema"]`, `["$schema"]`},
		{`{"$schema":`, `{"$schema":`},
	}
	for _, tt := range tests {
		if got := string(withoutSchemaKeyword([]byte(tt.in))); got != tt.want {
			t.Errorf("withoutSchemaKeyword(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
