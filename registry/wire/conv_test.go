package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// convCases are conversations with what makes incremental encoding hard:
// turns of one role merged (Anthropic, Gemini), a leading response the
// formats drop, tool searches found by id (Responses), images, loads.
func convCases() map[string][]Message {
	group := &Group{Name: "pdf", Description: "PDF tools", Tools: []ToolDef{{Name: "pdf_info", Description: "Pages", Parameters: []byte(`{"type":"object"}`)}}}
	png := []Image{{MIMEType: "image/png", Data: "iVBORw0KGgo="}}
	return map[string][]Message{
		"plain": {
			{Role: RoleUser, Text: "hi"}, {Role: RoleAssistant, Text: "hello"},
			{Role: RoleUser, Text: "again <&>"}, {Role: RoleAssistant, Text: "yes"},
		},
		"tools": {
			{Role: RoleUser, Text: "pages?"},
			{Role: RoleAssistant, Calls: []Call{{ID: "c1", Name: "load_tool_group", Input: `{"group_name":"pdf"}`, Search: true}}},
			{Role: RoleTool, Results: []Result{{CallID: "c1", Name: "load_tool_group", Content: "Loaded", Loaded: group}}},
			{Role: RoleAssistant, Text: "checking", Calls: []Call{{ID: "c2", Name: "pdf_info", Input: `{"path": "a.pdf"}`, Namespace: "pdf", Signature: "sig"}, {ID: "c3", Name: "x", Input: ""}}},
			{Role: RoleTool, Results: []Result{{CallID: "c2", Name: "pdf_info", Content: "3 [image image/png, 8 bytes]", Images: png}, {CallID: "c3", Name: "x", Content: "no", IsError: true}}},
			{Role: RoleUser, Text: "and then?"},
			{Role: RoleAssistant, Calls: []Call{{ID: "c4", Name: "load_tool_group", Input: `{"group_name":"nope"}`, Search: true}}},
			{Role: RoleTool, Results: []Result{{CallID: "c4", Name: "load_tool_group", Content: "no such group", IsError: true}}},
			{Role: RoleAssistant, Text: "3 pages"},
		},
		"leading and merged": {
			{Role: RoleAssistant, Text: "dropped by some"},
			{Role: RoleUser, Text: "a"}, {Role: RoleUser, Text: "b"},
			{Role: RoleAssistant, Text: "  "},
			{Role: RoleAssistant, Text: "c", Calls: []Call{{ID: "c1", Name: "t", Input: `{}`}}},
			{Role: RoleTool, Results: []Result{{CallID: "c1", Name: "t", Content: "ok"}}},
			{Role: RoleUser, Text: "d"},
			{Role: RoleAssistant, Calls: []Call{{ID: "c1", Name: "t", Input: `{"x":1}`}}},
			{Role: RoleTool, Results: []Result{{CallID: "c1", Name: "t", Content: ""}}},
		},
	}
}

// TestConvEncode: a conversation appended in any batches and encoded with
// any tail gives the body the whole conversation gives, in every format.
func TestConvEncode(t *testing.T) {
	temp := 0.5
	for name, msgs := range convCases() {
		for _, f := range Formats {
			for _, system := range []string{"", "Be brief."} {
				r := Request{Model: "m", System: system, Messages: msgs, MaxTokens: 100, Temperature: &temp,
					Tools: []ToolDef{{Name: "t", Description: "a tool", Parameters: []byte(`{"type":"object","properties":{}}`)}}}
				want, err := Encode(f, r)
				if err != nil {
					t.Fatal(err)
				}
				// Every split into appended batches of up to 3 and a tail.
				for split := 0; split <= len(msgs); split++ {
					for batch := 1; batch <= 3; batch++ {
						t.Run(fmt.Sprintf("%s/%s/%q/split%d/batch%d", name, f, system, split, batch), func(t *testing.T) {
							c, err := NewConv(f)
							if err != nil {
								t.Fatal(err)
							}
							for i := 0; i < split; i += batch {
								if err := c.Append(msgs[i:min(i+batch, split)]); err != nil {
									t.Fatal(err)
								}
							}
							tail := r
							tail.Messages = msgs[split:]
							// Three times: encoding leaves the conversation as
							// it was, and a body given back is built again
							// in the same memory when it is spliced.
							var last []byte
							for i := range 3 {
								got, err := c.Encode(tail)
								if err != nil {
									t.Fatal(err)
								}
								if !bytes.Equal(got.Body, want.Body) || got.Path != want.Path {
									t.Fatalf("body\n%s\nwant\n%s", got.Body, want.Body)
								}
								if i == 2 && c.Size() > 0 && &got.Body[0] != &last[0] {
									t.Error("the body given back was not reused")
								}
								last = got.Body
								if i == 1 {
									c.Reuse(got.Body)
								}
							}
						})
					}
				}
			}
		}
	}
}

func TestNewConvUnknownFormat(t *testing.T) {
	if _, err := NewConv("nope"); err == nil {
		t.Fatal("NewConv(nope) gave no error")
	}
}

// TestOpenAIToolsJSON: the tools value is the request body's, byte for byte.
func TestOpenAIToolsJSON(t *testing.T) {
	defs := []ToolDef{
		{Name: "a", Description: "<b> & \"c\"", Parameters: []byte(`{ "type": "object", "properties": {"x": {"type": "string"}} }`)},
		{Name: "b", Description: "", Parameters: []byte(`{}`)},
	}
	got, err := OpenAIToolsJSON(defs)
	if err != nil {
		t.Fatal(err)
	}
	req, err := Encode(OpenAI, Request{Tools: defs})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if got != string(body.Tools) {
		t.Errorf("OpenAIToolsJSON = %s\nthe body's tools = %s", got, body.Tools)
	}
	if empty, err := OpenAIToolsJSON(nil); empty != "" || err != nil {
		t.Errorf("no tools: %q, %v", empty, err)
	}
}

// TestConvToolsChange: a Conv reuses the tools it encoded only for the
// very same definitions (a tool at a time, as a load adds tools); a
// catalogue changed under the same names is encoded anew.
func TestConvToolsChange(t *testing.T) {
	msgs := []Message{{Role: RoleUser, Text: "hi"}, {Role: RoleAssistant, Text: "hello"}, {Role: RoleUser, Text: "again"}}
	def := func(desc, schema string) []ToolDef {
		return []ToolDef{{Name: "t", Description: desc, Parameters: []byte(schema)}}
	}
	for _, f := range Formats {
		c, err := NewConv(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Append(msgs[:2]); err != nil {
			t.Fatal(err)
		}
		core := def("core", `{"type":"object","properties":{"a":{"type":"string"}}}`)
		loaded := append(core[:1:1], ToolDef{Name: "g", Description: "loaded", Parameters: []byte(`{"type":"object"}`)})
		for _, tools := range [][]ToolDef{def("one", `{"type":"object"}`), def("one", `{"type":"object"}`), def("two", `{"type":"object"}`),
			def("two", `{"type":"object","properties":{}}`), nil, core, loaded, core, loaded[1:]} {
			sameBody(t, c, f, Request{Model: "m", Messages: msgs[2:], Tools: tools}, msgs, fmt.Sprintf("tools %+v", tools))
		}
	}
}

// TestConvShareCache: Convs sharing a Cache, as a catalogue's turns do,
// give the bodies Encode gives, whatever the other Convs encoded into it
// before (other tools, another system prompt).
func TestConvShareCache(t *testing.T) {
	msgs := []Message{{Role: RoleUser, Text: "hi"}, {Role: RoleAssistant, Text: "hello"}, {Role: RoleUser, Text: "again"}}
	a := ToolDef{Name: "a", Description: "first", Parameters: []byte(`{"type":"object"}`)}
	b := ToolDef{Name: "b", Description: "second <&>", Parameters: []byte(`{"type": "object", "properties": {}}`)}
	requests := []Request{
		{Model: "m", System: "Be brief.", Tools: []ToolDef{a}},
		{Model: "m", System: "Be brief.", Tools: []ToolDef{a, b}},
		{Model: "m", System: "Be long.", Tools: []ToolDef{b}},
		{Model: "m", Tools: []ToolDef{a, b}},
	}
	for _, f := range Formats {
		cache := NewCache()
		for round := range 2 {
			for i, r := range requests {
				c, err := NewConv(f)
				if err != nil {
					t.Fatal(err)
				}
				c.Share(cache)
				if err := c.Append(msgs[:2]); err != nil {
					t.Fatal(err)
				}
				r.Messages = msgs[2:]
				sameBody(t, c, f, r, msgs, fmt.Sprintf("round %d, request %d", round, i))
			}
		}
	}
}

// TestConvAppendTail: a conversation whose encoded newer messages are
// taken as they were encoded (AppendTail), in the formats that keep them,
// or appended otherwise, gives the body the whole conversation gives.
func TestConvAppendTail(t *testing.T) {
	for name, msgs := range convCases() {
		for _, f := range Formats {
			for _, system := range []string{"", "Be brief."} {
				r := Request{Model: "m", System: system, Messages: msgs}
				want, err := Encode(f, r)
				if err != nil {
					t.Fatal(err)
				}
				// Encoded in steps of every size: each step's messages are
				// the newer messages of one model call, then close.
				for step := 1; step <= 3; step++ {
					t.Run(fmt.Sprintf("%s/%s/%q/step%d", name, f, system, step), func(t *testing.T) {
						c, err := NewConv(f)
						if err != nil {
							t.Fatal(err)
						}
						for i := 0; i < len(msgs); i += step {
							newer := r
							newer.Messages = msgs[i:min(i+step, len(msgs))]
							if _, err := c.Encode(newer); err != nil {
								t.Fatal(err)
							}
							if took := c.AppendTail(); took != (f == OpenAI) {
								t.Fatalf("AppendTail took the newer messages: %v", took)
							} else if !took {
								if err := c.Append(newer.Messages); err != nil {
									t.Fatal(err)
								}
							}
							if c.AppendTail() {
								t.Fatal("AppendTail took the newer messages twice")
							}
						}
						whole := r
						whole.Messages = nil
						got, err := c.Encode(whole)
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got.Body, want.Body) {
							t.Fatalf("body\n%s\nwant\n%s", got.Body, want.Body)
						}
					})
				}
			}
		}
	}
}

// sameBody checks that c encodes r, its newer messages, into the body
// Encode gives for r with the whole conversation, all.
func sameBody(t *testing.T, c *Conv, f Format, r Request, all []Message, label string) {
	t.Helper()
	got, err := c.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	r.Messages = all
	want, err := Encode(f, r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Body, want.Body) {
		t.Errorf("%s, %s:\n%s\nwant\n%s", f, label, got.Body, want.Body)
	}
}
