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
