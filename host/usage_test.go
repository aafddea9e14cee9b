package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// With a TokenCountFile, the counts are kept in it, and a new process
// takes them from it rather than counting: a file whose counts were
// changed gives the changed ones.
func TestTokenCountFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cache", "token-counts")
	opts := host.Options{NoBuiltins: true, TokenCountFile: file,
		Groups: []registry.Group{{Name: "clock", Description: "Tell the time in a city"}},
		Tools: []host.NativeTool{{Tool: registry.Tool{Name: "clock_now", Description: "The time now in a city", Group: "clock",
			Parameters: json.RawMessage(`{"properties":{"city":{"type":"string"}}}`)}, Run: runNothing}},
	}
	schema := func() *host.SchemaUsage {
		t.Helper()
		model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hello."))
		defer model.Close()
		h := newHost(t, model, wire.OpenAI, opts)
		for _, ev := range send(t, h.Session("s"), "hi") {
			if ev.Type == host.EventModelCall {
				return ev.Schema
			}
		}
		t.Fatal("no model call")
		return nil
	}
	host.ForgetTokenCounts()
	counted := schema()
	if counted.CoreTools == 0 || counted.GroupListing == 0 {
		t.Fatalf("counted %+v", counted)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("the file holds %q, want the two texts' counts", data)
	}
	for i, l := range lines {
		key, _, _ := strings.Cut(l, " ")
		lines[i] = key + " " + strconv.Itoa(7000+i)
	}
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host.ForgetTokenCounts()
	got := schema()
	if got.CoreTools < 7000 || got.GroupListing < 7000 {
		t.Errorf("a new process counted %+v rather than taking the file's counts", got)
	}
	host.ForgetTokenCounts()
}

// Word vectors are given to the module's instances only when search_tools
// is offered, which alone ranks with them.
func TestWordVectorsOnlyForSearch(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts host.Options
		want bool
	}{
		{"no search_tools", host.Options{}, false},
		{"search_tools", host.Options{SearchTools: true, NoEncoderSearch: true}, true},
		{"search_tools without vectors", host.Options{SearchTools: true, NoEncoderSearch: true, NoWordVectors: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := fakemodel.New(fakemodel.OpenAI)
			defer model.Close()
			tt.opts.NoBuiltins = true
			if got := host.WordVectorsGiven(newHost(t, model, wire.OpenAI, tt.opts)); got != tt.want {
				t.Errorf("word vectors given: %v, want %v", got, tt.want)
			}
		})
	}
}
