package session

import (
	"bytes"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// firstBody starts a turn on reg and returns its first model call's body.
func firstBody(t *testing.T, reg *registry.Registry, history []Message) []byte {
	t.Helper()
	acts, err := NewTurn(reg).Handle(Event{Type: EventStart, User: "hi", History: history,
		Settings: Settings{Format: wire.OpenAI, Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if a.Type == ActionCallModel {
			return a.Request.Body
		}
	}
	t.Fatalf("no model call: %+v", acts)
	return nil
}

// TestSharedFollowsTheRegistry: what turns share through a registry (the
// offered tools, their encoded entries, the prompt) is what a turn on a
// fresh registry sends; a tool changed in place, while a turn that loaded
// it before the change is still open, reaches the next turn as changed.
func TestSharedFollowsTheRegistry(t *testing.T) {
	manifest := func(desc string) registry.Manifest {
		return registry.Manifest{File: "notes.json", Source: "notes.js", Override: true, Text: []byte(
			`[{"_meta":true,"description":"Notes"},{"name":"notes_read","description":"` + desc + `","function":"read"}]`)}
	}
	build := func(desc string) *registry.Registry {
		reg := registry.New()
		if rep := reg.LoadManifest(manifest(desc)); !rep.OK() {
			t.Fatal(rep.Err())
		}
		return reg
	}
	history := []Message{
		{Type: User, Content: "notes?"}, {Type: Assistant},
		loadCall("1", `{"group_name":"notes"}`, registry.StatusSuccess),
		{Type: ToolResult, ToolCallID: "1", ToolName: registry.LoadToolGroupName, Content: "Loaded", Status: registry.StatusSuccess},
		{Type: Assistant, Content: "Loaded."},
	}
	reg := build("Read a note")
	first := firstBody(t, reg, history)
	if again := firstBody(t, reg, history); !bytes.Equal(first, again) {
		t.Fatalf("a second turn sends\n%s\nthe first\n%s", again, first)
	}
	if fresh := firstBody(t, build("Read a note"), history); !bytes.Equal(first, fresh) {
		t.Fatalf("a turn on a fresh registry sends\n%s\nnot\n%s", fresh, first)
	}
	// A turn open across the change, then one after it.
	open := NewTurn(reg)
	if _, err := open.Handle(Event{Type: EventStart, User: "hi", History: history, Settings: Settings{Format: wire.OpenAI, Model: "m"}}); err != nil {
		t.Fatal(err)
	}
	if rep := reg.LoadManifest(manifest("Read a note, changed")); !rep.OK() {
		t.Fatal(rep.Err())
	}
	// Its next call, with the tools it loaded before the change.
	acts, err := open.Handle(Event{Type: EventResponse, Body: Bytes(`{"choices":[{"message":{"tool_calls":[{"id":"c9","type":"function",` +
		`"function":{"name":"load_tool_group","arguments":"{\"group_name\":\"notes\"}"}}]},"finish_reason":"tool_calls"}]}`)})
	if err != nil || acts[len(acts)-1].Type != ActionCallModel {
		t.Fatalf("the open turn after the change: %+v, %v", acts, err)
	}
	after := firstBody(t, reg, history)
	if want := firstBody(t, build("Read a note, changed"), history); !bytes.Equal(after, want) {
		t.Errorf("after the change a turn sends\n%s\nwant\n%s", after, want)
	}
}

// With SchemaText a call's schema carries the text of each part it
// measures, as many bytes long as the part's figure; without, only the
// figures. Turns with and without it share the registry's offers.
func TestSchemaText(t *testing.T) {
	reg := registry.New()
	if rep := reg.LoadManifest(registry.Manifest{File: "notes.json", Source: "notes.js", Text: []byte(
		`[{"_meta":true,"description":"Notes"},{"name":"notes_read","description":"Read a note","function":"read"}]`)}); !rep.OK() {
		t.Fatal(rep.Err())
	}
	history := []Message{
		{Type: User, Content: "notes?"}, {Type: Assistant},
		loadCall("1", `{"group_name":"notes"}`, registry.StatusSuccess),
		{Type: ToolResult, ToolCallID: "1", ToolName: registry.LoadToolGroupName, Content: "Loaded", Status: registry.StatusSuccess},
		{Type: Assistant, Content: "Loaded."},
	}
	schema := func(text bool) *Schema {
		t.Helper()
		acts, err := NewTurn(reg).Handle(Event{Type: EventStart, User: "hi", History: history,
			Settings: Settings{Format: wire.OpenAI, Model: "m", SchemaText: text}})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range acts {
			if a.Type == ActionCallModel {
				return a.Request.Schema
			}
		}
		t.Fatalf("no model call: %+v", acts)
		return nil
	}
	plain, texts, again := schema(false), schema(true), schema(false)
	if plain.CoreToolsText != "" || plain.GroupListingText != "" || len(plain.LoadedGroups) != 1 || plain.LoadedGroups[0].Text != "" {
		t.Errorf("without schema_text the schema has texts: %+v", plain)
	}
	if again.CoreToolsText != "" || again.LoadedGroups[0].Text != "" {
		t.Errorf("a turn after one with schema_text has texts: %+v", again)
	}
	load, _ := reg.Tool(registry.LoadToolGroupName)
	read, _ := reg.Tool("notes_read")
	wantCore, _ := wire.OpenAIToolsJSON(ToolDefs([]registry.Tool{load}))
	wantGroup, _ := wire.OpenAIToolsJSON(ToolDefs([]registry.Tool{read}))
	if texts.CoreToolsText != wantCore || len(wantCore) != texts.CoreTools {
		t.Errorf("core tools text %q (%d bytes counted), want %q", texts.CoreToolsText, texts.CoreTools, wantCore)
	}
	if texts.GroupListingText != reg.GroupListing() || len(texts.GroupListingText) != texts.GroupListing || texts.GroupListing == 0 {
		t.Errorf("listing text %q (%d bytes counted), want %q", texts.GroupListingText, texts.GroupListing, reg.GroupListing())
	}
	if len(texts.LoadedGroups) != 1 || texts.LoadedGroups[0].Text != wantGroup || texts.LoadedGroups[0].Bytes != len(wantGroup) {
		t.Errorf("loaded groups %+v, want notes with text %q", texts.LoadedGroups, wantGroup)
	}
	// The action as the module hands it out.
	b, err := (&Action{Type: ActionCallModel, Request: &ModelRequest{Schema: texts}}).appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"core_tools_text":`, `"group_listing_text":`, `"text":`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the call_model action lacks %s: %s", want, b)
		}
	}
}
