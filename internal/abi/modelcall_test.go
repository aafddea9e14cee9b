package abi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/registry/session"
)

// modelCallCatalogue has a core tool, a group's tool that writes (asks
// first) and a disabled one.
const modelCallCatalogue = `{"groups":[{"name":"notes","display_name":"Notes","description":"Notes","origin":{"kind":"host"}}],
"tools":[
 {"name":"clock","description":"the time","parameters":{"type":"object","properties":{}},"timeout_seconds":5,"origin":{"kind":"host"}},
 {"name":"note_write","description":"writes a note","group":"notes","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},"required_permissions":["write"],"timeout_seconds":5,"origin":{"kind":"host"}},
 {"name":"note_wipe","description":"wipes","group":"notes","parameters":{"type":"object","properties":{}},"required_permissions":["delete"],"timeout_seconds":5,"origin":{"kind":"host"}}],
"disabled":["note_wipe"]}`

// TestModelCall: the model_call check decides an MCP client's call as a
// turn decides a tool call, so that `toolroute mcp` runs only what the
// module lets through: refusals with the texts the model reads, and the
// call to run, asked about or not, with its tool's run data.
func TestModelCall(t *testing.T) {
	g := &Guest{}
	ask := func(args string) string {
		return string(g.Check([]byte(`{"op":"model_call","args":` + args + `}`)))
	}
	if got := ask(`{"id":"c1","tool":"clock"}`); !strings.Contains(got, `"code":"no_catalogue"`) {
		t.Fatalf("before a catalogue: %s, want no_catalogue", got)
	}
	if out := g.Load([]byte(modelCallCatalogue)); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
		t.Fatalf("load: %s", out)
	}
	for _, c := range []struct{ args, want string }{
		{`{"id":"c1","tool":"nope"}`, `"type":"unknown_tool","message":"Tool 'nope' does not exist.`},
		{`{"id":"c1","tool":"note_wipe"}`, `"type":"tool_disabled"`},
		{`{"id":"c1","tool":"note_write","input":{"txt":"a"}}`, `"type":"invalid_arguments"`},
		{`{"id":"c1","tool":"note_write","input":[1]}`, `"type":"invalid_arguments"`},
		{`{"id":"c1","tool":"note_write","input":{"text":"a"},"loaded":[]}`, `"type":"tool_not_loaded","message":"Tool 'note_write' is not loaded: it belongs to tool group 'notes'.`},
		{`{"id":"c1","tool":"made_up","loaded":["notes"]}`, `"type":"unknown_tool","message":"Tool 'made_up' is not one of your tools.`},
		{`{"id":"c1","tool":"load_tool_group","input":{"group_name":"nope"},"loaded":[]}`, `"result":{"status":"error","error_type":"not_found","message":"Tool group 'nope' not found. Available groups: notes"}`},
		{`{"id":"c1","tool":"load_tool_group","input":{"group_name":"notes"},"loaded":[]}`, `"loaded":["notes"]`},
		{`{"id":"c1","tool":"load_skill","input":null,"loaded":[]}`, `"type":"unknown_tool","message":"Tool 'load_skill' is not one of your tools.`}, // no skills: not offered
		{`{"id":"c1","tool":"note_write","input":{"text":"a"},"policies":[{"group":"notes","decision":"deny"}]}`, `"type":"denied"`},
		{`{"id":"c1","tool":"load_tool_group"}`, `"code":"bad_json"`},
		{`{"id":"c1"}`, `"code":"bad_json"`},
		{`null`, `"code":"bad_json"`},
		{`[1,2]`, `"code":"bad_json"`},
		{`{"tool":"clock","input":` + strings.Repeat("[", 600) + `}`, `"code":"bad_json"`},
	} {
		if got := ask(c.args); !strings.Contains(got, c.want) {
			t.Errorf("%.80s: %s, want %s", c.args, got, c.want)
		}
	}

	decision := func(args string) session.ModelCallDecision {
		t.Helper()
		var a struct {
			OK struct {
				Args session.ModelCallDecision `json:"args"`
			} `json:"ok"`
		}
		out := ask(args)
		if err := json.Unmarshal([]byte(out), &a); err != nil || a.OK.Args.Call.Tool == "" {
			t.Fatalf("%s: %s (%v), want a call", args, out, err)
		}
		return a.OK.Args
	}
	d := decision(`{"id":"c7","tool":"note_write","input":{"text":"a"}}`)
	if !d.Ask || d.Call.ID != "c7" || string(d.Call.Input) != `{"text":"a"}` || d.Call.TimeoutSeconds != 5 || d.Call.Origin.Kind != "host" {
		t.Errorf("a write: %+v, want the call, asked about first", d)
	}
	if d := decision(`{"id":"c8","tool":"clock","input":null}`); d.Ask {
		t.Errorf("a core tool with no permissions asks first: %+v", d)
	}
	// The user's "session" answer lets the tool run unasked afterwards.
	d = decision(`{"id":"c9","tool":"note_write","input":{"text":"b"},"answers":[{"type":"approval","tool_call_id":"c7","tool_name":"note_write","content":"session"}]}`)
	if d.Ask {
		t.Errorf("after the user's session answer: %+v, want it unasked", d)
	}
}

// TestOffer: the offer op lists what an MCP client with its loaded groups
// lists: the core tools, then the loaded groups', load_tool_group's
// description carrying the listing; groups that do not exist are dropped.
func TestOffer(t *testing.T) {
	g := &Guest{}
	if out := g.Load([]byte(modelCallCatalogue)); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
		t.Fatalf("load: %s", out)
	}
	offer := func(loaded string) session.Offer {
		t.Helper()
		var a struct {
			OK struct {
				Args session.Offer `json:"args"`
			} `json:"ok"`
		}
		out := g.Check([]byte(`{"op":"offer","args":{"loaded":` + loaded + `}}`))
		if err := json.Unmarshal(out, &a); err != nil || a.OK.Args.Instructions == "" {
			t.Fatalf("offer %s: %s (%v)", loaded, out, err)
		}
		return a.OK.Args
	}
	names := func(o session.Offer) string {
		var n []string
		for _, t := range o.Tools {
			n = append(n, t.Name)
		}
		return strings.Join(n, ",")
	}
	o := offer(`[]`)
	if got := names(o); got != "load_tool_group,clock" {
		t.Errorf("none loaded lists %s, want load_tool_group,clock", got)
	}
	if !strings.Contains(o.Tools[0].Description, "notes") || !strings.Contains(o.Instructions, "load_tool_group") {
		t.Errorf("the listing is missing: %+v", o)
	}
	o = offer(`["gone","notes","notes"]`)
	if got := names(o); got != "load_tool_group,clock,note_write" || strings.Join(o.Loaded, ",") != "notes" {
		t.Errorf("notes loaded lists %s (loaded %v), want load_tool_group,clock,note_write (notes)", got, o.Loaded)
	}
	for _, bad := range []string{`null`, `5`, `{"loaded":5}`} {
		if out := g.Check([]byte(`{"op":"offer","args":` + bad + `}`)); !bytes.Contains(out, []byte(`"code":"bad_json"`)) {
			t.Errorf("offer %s: %s, want bad_json", bad, out)
		}
	}
	if out := (&Guest{}).Check([]byte(`{"op":"offer","args":{"loaded":[]}}`)); !bytes.Contains(out, []byte(`"code":"no_catalogue"`)) {
		t.Errorf("offer without a catalogue: %s", out)
	}
}
