package wire

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUserImages: a user message's images go in each format's own image
// form, before its text; Gemini, which reads no GIF, gets the others.
func TestUserImages(t *testing.T) {
	png := Image{MIMEType: "image/png", Data: "iVBORw0KGgo="}
	gif := Image{MIMEType: "image/gif", Data: "R0lGODlh"}
	msgs := []Message{{Role: RoleUser, Text: "What is this?", Images: []Image{png, gif}}}
	tests := []struct {
		name   string
		format Format
		path   func(body map[string]any) any
		want   string
	}{
		{"openai", OpenAI, func(b map[string]any) any { return b["messages"].([]any)[0].(map[string]any)["content"] },
			`[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lGODlh"}},{"type":"text","text":"What is this?"}]`},
		{"anthropic", Anthropic, func(b map[string]any) any { return b["messages"].([]any)[0].(map[string]any)["content"] },
			`[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGODlh"}},{"type":"text","text":"What is this?","cache_control":{"type":"ephemeral"}}]`},
		{"responses", Responses, func(b map[string]any) any { return b["input"].([]any)[0].(map[string]any)["content"] },
			`[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="},{"type":"input_image","image_url":"data:image/gif;base64,R0lGODlh"},{"type":"input_text","text":"What is this?"}]`},
		{"gemini", Gemini, func(b map[string]any) any { return b["contents"].([]any)[0].(map[string]any)["parts"] },
			`[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"text":"What is this?"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := Encode(tt.format, Request{Model: "m", Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatalf("%v: %s", err, req.Body)
			}
			var want any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, tt.path(body)); diff != "" {
				t.Errorf("user content (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUserNoImages: a user message without images is sent as before: a
// string for OpenAI, one text block or part elsewhere.
func TestUserNoImages(t *testing.T) {
	req, err := Encode(OpenAI, Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`; string(req.Body) != want {
		t.Errorf("body %s, want %s", req.Body, want)
	}
}
