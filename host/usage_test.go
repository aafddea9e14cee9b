package host_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Each model call's schema usage counts, in o200k_base tokens, the OpenAI
// tools JSON of the core tools and of each loaded group and the group
// listing: what `toolroute tokens` counts for the same tools. The
// reference here is built from the catalogue with registry/ directly.
func TestSchemaUsage(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"clock"}`),
		fakemodel.ToolCall("clock_now", `{"city":"Paris"}`),
		fakemodel.Text("It is 09:00 in Paris."))
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{
		NoBuiltins: true,
		Groups: []registry.Group{
			{Name: "clock", DisplayName: "Clock", Description: "Tell the time in a city"},
			{Name: "notes", DisplayName: "Notes", Description: "Keep notes"},
		},
		Tools: []host.NativeTool{
			{Tool: registry.Tool{Name: "echo", Description: "Say the text again",
				Parameters: json.RawMessage(`{"properties":{"text":{"type":"string"}}}`)}, Run: runNothing},
			{Tool: registry.Tool{Name: "clock_now", Description: "The time now in a city", Group: "clock",
				Parameters: json.RawMessage(`{"properties":{"city":{"type":"string"}},"required":["city"]}`)}, Run: runNothing},
			{Tool: registry.Tool{Name: "notes_add", Description: "Add a note", Group: "notes",
				Parameters: json.RawMessage(`{"properties":{"text":{"type":"string"}}}`)}, Run: runNothing},
		},
	})
	reg, _ := registry.Build(h.Catalogue())
	count := func(names ...string) int {
		t.Helper()
		var defs []registry.Tool
		for _, n := range names {
			tool, ok := reg.Tool(n)
			if !ok {
				t.Fatalf("no tool %q", n)
			}
			defs = append(defs, tool)
		}
		text, err := wire.OpenAIToolsJSON(session.ToolDefs(defs))
		if err != nil {
			t.Fatal(err)
		}
		n, err := tokens.Count(tokens.O200kBase, text)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	listing, err := tokens.Count(tokens.O200kBase, reg.GroupListing())
	if err != nil || listing == 0 {
		t.Fatalf("the listing counts %d tokens, %v", listing, err)
	}
	core := count("echo", "load_tool_group")
	loaded := &host.SchemaUsage{CoreTools: core, GroupListing: listing,
		LoadedGroups: []host.GroupUsage{{Group: "clock", Tokens: count("clock_now")}}}
	want := []*host.SchemaUsage{{CoreTools: core, GroupListing: listing}, loaded, loaded}

	var got []*host.SchemaUsage
	var done []host.CallUsage
	for _, ev := range send(t, h.Session("usage"), "What time is it in Paris?") {
		switch ev.Type {
		case host.EventModelCall:
			got = append(got, ev.Schema)
		case host.EventDone:
			done = ev.ModelCalls
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the model_call events' schemas (-want +got):\n%s", diff)
	}
	if len(done) != len(want) {
		t.Fatalf("done has %d model calls, want %d", len(done), len(want))
	}
	for i, c := range done {
		if diff := cmp.Diff(want[i], c.Schema); diff != "" {
			t.Errorf("done's call %d schema (-want +got):\n%s", c.Call, diff)
		}
	}
}

func runNothing(context.Context, json.RawMessage) (string, error) { return "done", nil }
