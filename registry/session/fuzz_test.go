package session

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

func fuzzRegistry(t testing.TB) *registry.Registry {
	reg, rep := registry.Build(registry.Catalogue{
		Groups: []registry.Group{{Name: "pdf", Description: "PDF"}},
		Tools: []registry.Tool{
			{Name: "pdf_info", Description: "Info", Group: "pdf", Parameters: json.RawMessage(`{"properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "search_history", Description: "Search"},
		},
		Skills: []registry.Skill{{Name: "s", Description: "S", Content: "do it"}},
	})
	if !rep.OK() {
		t.Fatal(rep)
	}
	return reg
}

// FuzzHistory: any stored history, however broken, starts a turn: the scan
// and the request building never panic. Left as JSON, as a module
// instance reads it (ReadEvent), it starts the same turn, request body
// and all.
func FuzzHistory(f *testing.F) {
	f.Add(`[{"type":"tool_call","tool_name":"load_tool_group","tool_input":"{\"group_name\":\"pdf\"}","status":"success"}]`, "openai")
	f.Add(`[{"type":"assistant"},{"type":"tool_call","tool_call_id":"a","tool_name":"x","tool_input":"{","index":-5},{"type":"tool_result","tool_call_id":"a"}]`, "anthropic")
	f.Add(`[{"type":"tool_result"},{"type":"user","content":""},{"type":"tool_call","tool_call_id":"é\u0000"}]`, "anthropic")
	f.Add(`[{"type":"user","content":"a"},{"type":"assistant","content":"b"},{"type":"summary","content":"s","keep":1},{"type":"tool_result","tool_call_id":"c"},{"type":"user","content":"d"}]`, "gemini")
	f.Add(`[{"type":"assistant"},{"type":"tool_call","tool_call_id":"c","tool_name":"load_tool_group","tool_input":"{\"group_name\":\"pdf\"}","status":"success"},{"type":"tool_result","tool_call_id":"c","tool_name":"load_tool_group","content":"ok","status":"success"},{"type":"summary","content":"s","keep":-3}]`, "responses")
	f.Fuzz(func(t *testing.T, history, format string) {
		var msgs []Message
		if json.Unmarshal([]byte(history), &msgs) != nil {
			return
		}
		_ = LoadedGroups(msgs)
		reg := fuzzRegistry(t)
		if _, err := wire.ParseFormat(format); err != nil {
			format = "openai"
		}
		for _, routing := range []Routing{RoutingClassic, RoutingNative} {
			set := Settings{Format: wire.Format(format), Model: "m", Routing: routing}
			acts, err := NewTurn(reg).Handle(Event{Type: EventStart, History: msgs, User: "hi", Settings: set})
			if err != nil {
				t.Fatal(err)
			}
			if acts[len(acts)-1].Type != ActionCallModel || !json.Valid(acts[len(acts)-1].Request.Body) {
				t.Fatalf("no valid model call: %+v", acts)
			}
			settings, _ := json.Marshal(set)
			e, err := ReadEvent([]byte(`{"type":"start","user":"hi","settings":`+string(settings)+`,"history":`+history+`}`), "")
			if err != nil {
				t.Skip("an event encoding/json reads and the depth check refuses") // a history nesting past MaxDepth
			}
			lazy, err := NewTurn(reg).Handle(e)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := MarshalActions(acts)
			got, _ := MarshalActions(lazy)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, %s: read as JSON:\n%s\nas messages:\n%s", format, routing, got, want)
			}
		}
	})
}

// FuzzEvents: any sequence of events, as JSON lines, gives actions or errors,
// never a panic; an event refused leaves the turn able to go on.
func FuzzEvents(f *testing.F) {
	f.Add(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m"}}`,
		`{"type":"response","body":{"choices":[{"message":{"tool_calls":[{"id":"1","function":{"name":"load_tool_group","arguments":"{\"group_name\":\"pdf\"}"}},{"id":"2","function":{"name":"pdf_info","arguments":"{}"}}]}}]}}`,
		`{"type":"response","body":{"choices":[{"message":{"tool_calls":[{"id":"3","function":{"name":"pdf_info","arguments":"{\"path\":\"a\"}"}}]}}]}}`)
	f.Add(`{"type":"start","user":"hi","settings":{"format":"anthropic","model":"m","stream":true}}`,
		`{"type":"chunk","data":"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"search_history\",\"input\":{}}}\n\n"}`,
		`{"type":"chunk","data":"data: {\"type\":\"message_stop\"}\n\n"}`)
	f.Add(`{"type":"start","user":"x","settings":{"format":"openai","model":"m","max_model_calls":1}}`,
		`{"type":"tool_results","results":[{"id":"1","status":"success"}]}`, `{"type":"stream_end"}`)
	f.Fuzz(func(t *testing.T, e1, e2, e3 string) {
		turn := NewTurn(fuzzRegistry(t))
		for _, line := range []string{e1, e2, e3, `{"type":"stream_end"}`, `{"type":"tool_results","results":[{"id":"3","status":"success","output":"ok"}]}`} {
			e, err := UnmarshalEvent([]byte(line))
			if err != nil {
				continue
			}
			acts, err := turn.Handle(e)
			if err != nil {
				continue
			}
			for _, a := range acts {
				if a.Type == ActionCallModel && !json.Valid(a.Request.Body) {
					t.Fatalf("invalid request body: %s", a.Request.Body)
				}
			}
			if _, err := MarshalActions(acts); err != nil {
				t.Fatalf("actions do not encode: %v", err)
			}
		}
	})
}

// FuzzCheckArguments: any schema the registry takes and any arguments give
// an answer, never a panic; arguments passed are the input as given, a JSON
// object.
func FuzzCheckArguments(f *testing.F) {
	f.Add(`{"properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"enum":[1,"x",null]}},"required":["b"]}}},"required":["a"]}`, `{"a":[{"b":1.0},{"b":"y"},{}]}`)
	f.Add(`{"properties":{"n":{"type":["integer","null"]},"s":{"type":"string"}},"additionalProperties":false}`, `{"n":"1e2","s":7,"z":[]}`)
	f.Add(`{"properties":{"d":{"type":"object","properties":{"d":{"type":"object"}}}}}`, `{"d":{"d":{"d":{"d":1}}},"d":2}`)
	f.Fuzz(func(t *testing.T, schema, input string) {
		params, required, err := registry.NormalizeSchema(json.RawMessage(schema))
		if err != nil {
			return
		}
		tool := registry.Tool{Name: "t", Parameters: params, Required: required}
		args, problem := CheckArguments(tool, input)
		if problem != "" {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(args, &obj) != nil || obj == nil {
			t.Fatalf("passed %q, not a JSON object", args)
		}
	})
}

// FuzzStringOrStrings: a schema's type read by hand is what encoding/json
// reads, a string else a list of strings.
func FuzzStringOrStrings(f *testing.F) {
	for _, s := range []string{`"string"`, `["integer","null"]`, `null`, `[]`, `["a",null]`, `["a",1]`, `"\u00e9\ud800"`, ` "x" `, `{}`, ``, `"a"x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := stringOrStrings([]byte(raw))
		var want []string
		var one string
		wantOK := true
		if json.Unmarshal([]byte(raw), &one) == nil {
			want = []string{one}
		} else if json.Unmarshal([]byte(raw), &want) != nil {
			want, wantOK = nil, false
		}
		if ok != wantOK || !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("stringOrStrings(%q) = %q, %v; encoding/json: %q, %v", raw, got, ok, want, wantOK)
		}
	})
}
