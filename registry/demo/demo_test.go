package demo

import (
	"encoding/json"
	"strings"
	"testing"
)

// Whatever the request, the demo answers a Chat Completions response that
// says it is a demo, or an error for a body that is not JSON; it never
// panics.
func FuzzRespond(f *testing.F) {
	for _, s := range []string{
		``, `null`, `[]`, `{}`, `{"messages":null}`, `{"messages":[{"role":"user","content":[{"type":"text","text":"load the"}]}]}`,
		`{"messages":[{"role":"system","content":"## Available Tool Groups\n\n- mail: Mail\n- : x"},{"role":"user","content":"search mail"}],"tools":[{"function":{"name":"load_tool_group"}}]}`,
		`{"messages":[{"role":"user","content":"mail"},{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"mail\"}"}}]},{"role":"tool","tool_call_id":"1","content":"Loaded 1 tools\n- mail_list: x"}],"tools":[{"function":{"name":"mail_list","parameters":{"required":"x"}}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := Respond(body)
		if err != nil {
			if json.Valid(body) && !strings.Contains(err.Error(), "not a Chat Completions request") {
				t.Fatalf("error %v for valid JSON", err)
			}
			return
		}
		var resp struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if json.Unmarshal(out, &resp) != nil || len(resp.Choices) != 1 || !strings.HasPrefix(resp.Choices[0].Message.Content, Tag) {
			t.Fatalf("response %s", out)
		}
	})
}

func TestLoadRequest(t *testing.T) {
	for in, want := range map[string]string{
		"Load the PDF tools":          "PDF",
		"load google calendar":        "google calendar",
		"Please load the mail group.": "mail",
	} {
		if got, ok := loadRequest(in); !ok || got != want {
			t.Errorf("loadRequest(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := loadRequest("What time is it?"); ok {
		t.Error("a question about the time is a load request")
	}
}
