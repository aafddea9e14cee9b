package session_test

import (
	"bytes"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// With NoBody (an app's own loop calls its model, as the AI SDK adapter's
// does) the module builds no request: its call_model actions carry no
// body, and the turn runs as with one: the calls it lets through, their
// results, the answer. A session's later turn that builds one (another
// host's, from the state the module kept) sends the body a turn given the
// whole log sends.
func TestNoBody(t *testing.T) {
	reg, rep := registry.Build(registry.Catalogue{Tools: []registry.Tool{{Name: "get_time", Description: "The time"}}})
	if !rep.OK() {
		t.Fatal(rep)
	}
	logs := &session.Logs{}
	var log []session.Message // the host's log
	// turn runs a turn of session s: the model calls get_time, then
	// answers. It returns the first call's body and the cache.
	turn := func(noBody bool, fingerprint string, history []session.Message, user string) ([]byte, *session.Cache) {
		t.Helper()
		tr := session.NewTurn(reg)
		start := session.Event{Type: session.EventStart, User: user, Session: "s", Fingerprint: fingerprint, History: history,
			Settings: session.Settings{Format: "openai", Model: "m", NoBody: noBody}}
		if _, ok, err := logs.Start(tr, start); err != nil || !ok {
			t.Fatalf("start: ok %v, %v", ok, err)
		}
		var first []byte
		var cache *session.Cache
		calls := 0
		take := func(acts []session.Action, err error) []session.Action {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range acts {
				switch a.Type {
				case session.ActionAppend:
					log = append(log, a.Messages...)
				case session.ActionCallModel:
					if calls++; calls == 1 {
						first = a.Request.Body
					}
					if noBody && len(a.Request.Body) > 0 {
						t.Errorf("call %d has a body with no_body: %s", calls, a.Request.Body)
					}
				case session.ActionCache:
					cache = a.Cache
				}
			}
			return acts
		}
		take(tr.Handle(start))
		acts := take(tr.Handle(session.Event{Type: session.EventResponse, Body: []byte(
			`{"choices":[{"message":{"content":"","tool_calls":[{"id":"c` + user + `","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)}))
		if len(acts) == 0 || acts[len(acts)-1].Type != session.ActionRunTools {
			t.Fatalf("the call does not run: %+v", acts)
		}
		take(tr.Handle(session.Event{Type: session.EventToolResults, Results: []session.Result{{ID: "c" + user, Result: registry.Success("12:00")}}}))
		acts = take(tr.Handle(session.Event{Type: session.EventResponse, Body: []byte(`{"choices":[{"message":{"content":"Noon."},"finish_reason":"stop"}]}`)}))
		if last := acts[len(acts)-1]; last.Type != session.ActionDone || last.Text != "Noon." {
			t.Fatalf("the turn ends with %+v", last)
		}
		if calls != 2 {
			t.Errorf("%d model calls, want 2", calls)
		}
		logs.End("s", tr)
		return first, cache
	}
	_, c := turn(true, "", nil, "1")
	before := len(log)
	body, c := turn(false, c.Fingerprint, nil, "2")
	// A turn from the whole log, on a module that kept nothing.
	fresh := session.NewTurn(reg)
	acts, err := fresh.Handle(session.Event{Type: session.EventStart, User: "2", History: log[:before],
		Settings: session.Settings{Format: "openai", Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := acts[len(acts)-1].Request.Body; !bytes.Equal(body, want) {
		t.Errorf("after a turn with no_body the next builds\n%s\nwant\n%s", body, want)
	}
	if _, c = turn(true, c.Fingerprint, nil, "3"); c == nil {
		t.Error("no cache after a turn with no_body")
	}

	// Hosts give it as JSON.
	e, err := session.ReadEvent([]byte(`{"type":"start","user":"hi","settings":{"format":"openai","model":"m","no_body":true}}`), "")
	if err != nil || !e.Settings.NoBody {
		t.Errorf("no_body read as %v (%v)", e.Settings.NoBody, err)
	}
}
