package session_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// A turn resumed from a kept Log that reloads the catalogue mid-turn in
// native routing (where the conversation's loads are sent with the
// group's tools) sends what a turn given the whole history sends.
func TestResumedTurnReloadsNatively(t *testing.T) {
	build := func(tools ...string) *registry.Registry {
		c := registry.Catalogue{Groups: []registry.Group{{Name: "pdf", DisplayName: "PDF", Description: "PDF tools"}}}
		for _, name := range tools {
			c.Tools = append(c.Tools, registry.Tool{Name: name, Description: "does " + name, Group: "pdf",
				Parameters: json.RawMessage(`{"type":"object","properties":{}}`)})
		}
		reg, rep := registry.Build(c)
		if !rep.OK() {
			t.Fatal(rep)
		}
		return reg
	}
	before, after := build("pdf_info"), build("pdf_info", "pdf_text")
	settings := session.Settings{Format: "anthropic", Model: "m", Routing: session.RoutingNative}
	call := func(id, name string) []byte {
		return []byte(`{"type":"message","content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{"group_name":"pdf"}}],"stop_reason":"tool_use"}`)
	}
	text := []byte(`{"type":"message","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn"}`)
	must := func(acts []session.Action, err error) []session.Action {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return acts
	}
	var log []session.Message
	logged := func(acts []session.Action) []session.Action {
		for _, a := range acts {
			log = append(log, a.Messages...)
		}
		return acts
	}

	// The first turn loads the group; its Log is kept.
	logs := &session.Logs{}
	first := session.NewTurn(before)
	start := session.Event{Type: session.EventStart, User: "hi", Session: "s", Settings: settings}
	logs.Start(first, start)
	logged(must(first.Handle(start)))
	logged(must(first.Handle(session.Event{Type: session.EventResponse, Body: call("t1", "load_tool_group")})))
	var fp string
	for _, a := range logged(must(first.Handle(session.Event{Type: session.EventResponse, Body: text}))) {
		if a.Type == session.ActionCache {
			fp = a.Cache.Fingerprint
		}
	}
	logs.End("s", first)

	// The second turn, resumed and given the whole history, calls the
	// group's tool; the catalogue changes while it runs.
	second := func(resume bool) []byte {
		turn := session.NewTurn(before)
		start := session.Event{Type: session.EventStart, User: "again", Session: "s", Settings: settings, History: log}
		if resume {
			start.Fingerprint, start.History = fp, nil
			if acts, ok, err := logs.Start(turn, start); !ok || err != nil {
				t.Fatalf("not resumed: %+v", acts)
			}
		}
		must(turn.Handle(start))
		must(turn.Handle(session.Event{Type: session.EventResponse, Body: call("t2", "pdf_info")}))
		if err := turn.Reload(after); err != nil {
			t.Fatal(err)
		}
		acts := must(turn.Handle(session.Event{Type: session.EventToolResults,
			Results: []session.Result{{ID: "t2", Result: registry.Result{Status: registry.StatusSuccess, Output: "3 pages"}}}}))
		return acts[len(acts)-1].Request.Body
	}
	whole, resumed := second(false), second(true)
	if !bytes.Equal(whole, resumed) {
		t.Errorf("resumed:\n%s\nfrom the whole history:\n%s", resumed, whole)
	}
	if !bytes.Contains(whole, []byte(`"tool_name":"pdf_text"`)) {
		t.Errorf("the reloaded catalogue's tool is not in the conversation's load: %s", whole)
	}
}
