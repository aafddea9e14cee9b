package demo

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
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
			if json.Valid(body) && !strings.Contains(err.Error(), "not a Chat Completions request") && !strings.Contains(err.Error(), "levels of arrays and objects") {
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

// TestRespondDeep: the demo answers every request the module builds, one
// with a tool schema nesting as deep as the registry takes included, and
// refuses a deeper request before reading it (in wasm under V8 it trapped
// at about 5,000 levels).
func TestRespondDeep(t *testing.T) {
	schema := `{"properties":{"p":{"enum":[` + strings.Repeat("[", registry.MaxDepth-4) + strings.Repeat("]", registry.MaxDepth-4) + `]}}}`
	reg, rep := registry.Build(registry.Catalogue{Tools: []registry.Tool{{Name: "deep", Description: "Deep", Parameters: json.RawMessage(schema)}}})
	if !rep.OK() {
		t.Fatal(rep)
	}
	acts, err := session.NewTurn(reg).Handle(session.Event{Type: session.EventStart, User: "What time is it?", Settings: session.Settings{Format: "openai", Model: Model}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Respond(acts[len(acts)-1].Request.Body); err != nil {
		t.Fatalf("the module's request: %v", err)
	}
	// The prefix opens 3: the bracket past 516 is the 514th after it.
	const prefix = `{"messages":[{"role":"user","content":`
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		_, err := Respond([]byte(prefix + strings.Repeat("[", n) + strings.Repeat("]", n) + `}]}`))
		want := "demo: the request nests more than 516 levels of arrays and objects (at byte " + strconv.Itoa(len(prefix)+513) + "), more than the module's requests hold: send the body of a call_model action"
		if err == nil || err.Error() != want {
			t.Errorf("%d levels: %v, want %q", n, err, want)
		}
	}
}
