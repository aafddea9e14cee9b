package fakemodel

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/registry/wire"
)

func post(t *testing.T, s *Server, path, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The server refuses what the real APIs refuse, in their words, and does
// not spend a scripted reply on it.
func TestChecks(t *testing.T) {
	tests := []struct {
		name   string
		format Format
		path   string
		body   string
		want   string
	}{
		{"openai unknown field", OpenAI, "/v1/chat/completions", `{"model":"m","messages":[],"tool_config":{}}`, "Unrecognized request argument supplied: tool_config"},
		{"anthropic unknown field", Anthropic, "/v1/messages", `{"model":"m","max_tokens":1,"messages":[],"store":false}`, "store: Extra inputs are not permitted"},
		{"responses unknown field", Responses, "/v1/responses", `{"model":"m","input":"hi","messages":[]}`, "Unknown parameter: 'messages'."},
		{"gemini unknown field", Gemini, "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"model":"m"}`, `Unknown name \"model\"`},
		{"responses output without its call", Responses, "/v1/responses",
			`{"model":"m","input":[{"type":"function_call_output","call_id":"c1","output":"x"}]}`, "No tool call found for function call output with call_id c1."},
		{"responses call with an id that is not an item id", Responses, "/v1/responses",
			`{"model":"m","input":[{"type":"function_call","id":"call_1","call_id":"call_1","name":"n","arguments":"{}"}]}`, "Expected an ID that begins with 'fc'."},
		{"gemini responses fewer than calls", Gemini, "/v1beta/models/m:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"a"},"thoughtSignature":"AA=="},{"functionCall":{"name":"b"}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"a","response":{}}}]}]}`, "the number of function response parts is equal to the number of function call parts"},
		{"gemini current turn call without signature", Gemini, "/v1beta/models/m:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"a"}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"a","response":{}}}]}]}`, "Function call is missing a thought_signature"},
		{"gemini no contents", Gemini, "/v1beta/models/m:generateContent", `{"contents":[]}`, "contents is not specified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.format, Text("ok"))
			defer s.Close()
			status, body := post(t, s, tt.path, tt.body)
			if status != 400 || !strings.Contains(body, tt.want) {
				t.Errorf("HTTP %d %s, want 400 with %q", status, body, tt.want)
			}
			if msg := wire.ErrorMessage(status, []byte(body)); !strings.HasPrefix(msg, "HTTP 400: ") || strings.Contains(msg, "{") {
				t.Errorf("the provider's message is not read: %s", msg)
			}
			if status, _ := post(t, s, tt.path, okBody[tt.format]); status != 200 {
				t.Errorf("the scripted reply was spent: then HTTP %d", status)
			}
		})
	}
	// Calls of earlier turns need no signature, as Gemini 3 checks only the
	// current turn.
	s := New(Gemini, Text("ok"))
	defer s.Close()
	status, body := post(t, s, "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"a"}}]},`+
		`{"role":"user","parts":[{"functionResponse":{"name":"a","response":{}}}]},{"role":"model","parts":[{"text":"done"}]},{"role":"user","parts":[{"text":"again"}]}]}`)
	if status != 200 {
		t.Errorf("an earlier turn's call without a signature: HTTP %d %s", status, body)
	}
}

var okBody = map[Format]string{
	OpenAI:    `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
	Anthropic: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`,
	Responses: `{"model":"m","input":"hi"}`,
	Gemini:    `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
}

// Every reply, whole and streamed, reads back with the wire package: the
// same text and calls in each format.
func TestRepliesDecode(t *testing.T) {
	reply := Reply{Text: "Hello there", Calls: []Call{{"one", `{"a":1}`}, {"two", ""}}}
	for _, f := range Formats {
		for _, stream := range []bool{false, true} {
			s := New(f, reply)
			req, err := wire.Encode(wire.Format(f), wire.Request{Model: "m", Stream: stream, Messages: []wire.Message{{Role: wire.RoleUser, Text: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.Post(s.BaseURL()+req.Path, "application/json", bytes.NewReader(req.Body))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			s.Close()
			var got wire.Response
			if stream {
				st, _ := wire.NewStream(wire.Format(f))
				if _, err = st.Write(body); err == nil {
					got, _, err = st.Close()
				}
			} else {
				got, err = wire.Decode(wire.Format(f), body)
			}
			if err != nil {
				t.Fatalf("%s stream=%v: %v\n%s", f, stream, err, body)
			}
			if got.Text != "Hello there" || len(got.Calls) != 2 || got.Calls[0].Name != "one" || got.Calls[0].Input != `{"a":1}` || got.Calls[1].Input != "{}" {
				t.Errorf("%s stream=%v: %+v", f, stream, got)
			}
			if f == Gemini && got.Calls[0].Signature == "" {
				t.Errorf("%s stream=%v: the first call has no signature", f, stream)
			}
		}
	}
}

// NewFunc answers each request with what respond says of it, and keeps
// none of them: a load of many sessions, each asking in its own order.
func TestNewFunc(t *testing.T) {
	s := NewFunc(OpenAI, func(r Request) Reply {
		var body struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(r.Body, &body)
		return Text("echo " + body.Messages[len(body.Messages)-1].Content)
	})
	defer s.Close()
	for _, text := range []string{"one", "two", "one"} {
		req, err := wire.Encode(wire.OpenAI, wire.Request{Model: "m", Messages: []wire.Message{{Role: wire.RoleUser, Text: text}}})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(s.BaseURL()+req.Path, "application/json", bytes.NewReader(req.Body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got, err := wire.Decode(wire.OpenAI, body)
		if err != nil || got.Text != "echo "+text {
			t.Errorf("%s: %+v, %v", text, got, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("it kept %d requests", n)
	}
}
