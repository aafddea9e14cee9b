package session_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

func logsRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg, rep := registry.Build(registry.Catalogue{})
	if !rep.OK() {
		t.Fatal(rep)
	}
	return reg
}

// runTurn runs a turn of session s that the model answers with text, and
// returns its actions.
func runTurn(t *testing.T, logs *session.Logs, reg *registry.Registry, s, fingerprint string, history []session.Message) []session.Action {
	t.Helper()
	turn := session.NewTurn(reg)
	start := session.Event{Type: session.EventStart, User: "hi", Session: s, Fingerprint: fingerprint, History: history,
		Settings: session.Settings{Format: "openai", Model: "m"}}
	acts, ok, err := logs.Start(turn, start)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return acts
	}
	acts, err = turn.Handle(start)
	if err != nil {
		t.Fatal(err)
	}
	end, err := turn.Handle(session.Event{Type: session.EventResponse, Body: []byte(`{"choices":[{"message":{"content":"hello"},"finish_reason":"stop"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	logs.End(s, turn)
	return append(acts, end...)
}

func cacheOf(acts []session.Action) *session.Cache {
	for _, a := range acts {
		if a.Type == session.ActionCache {
			return a.Cache
		}
	}
	return nil
}

func TestLogs(t *testing.T) {
	reg := logsRegistry(t)
	tests := []struct {
		name string
		// run drives turns and returns the last one's actions.
		run      func(t *testing.T, logs *session.Logs) []session.Action
		wantNeed bool
	}{
		{"resumed with the fingerprint handed out", func(t *testing.T, logs *session.Logs) []session.Action {
			c := cacheOf(runTurn(t, logs, reg, "a", "", nil))
			return runTurn(t, logs, reg, "a", c.Fingerprint, nil)
		}, false},
		{"another fingerprint", func(t *testing.T, logs *session.Logs) []session.Action {
			runTurn(t, logs, reg, "a", "", nil)
			return runTurn(t, logs, reg, "a", "2-0", nil)
		}, true},
		{"another session's fingerprint", func(t *testing.T, logs *session.Logs) []session.Action {
			c := cacheOf(runTurn(t, logs, reg, "a", "", nil))
			return runTurn(t, logs, reg, "b", c.Fingerprint, nil)
		}, true},
		{"a fingerprint used once", func(t *testing.T, logs *session.Logs) []session.Action {
			c := cacheOf(runTurn(t, logs, reg, "a", "", nil))
			runTurn(t, logs, reg, "a", c.Fingerprint, nil)
			return runTurn(t, logs, reg, "a", c.Fingerprint, nil)
		}, true},
		{"a turn that never ended", func(t *testing.T, logs *session.Logs) []session.Action {
			c := cacheOf(runTurn(t, logs, reg, "a", "", nil))
			turn := session.NewTurn(reg)
			logs.Start(turn, session.Event{Type: session.EventStart, User: "hi", Session: "a", Fingerprint: c.Fingerprint,
				Settings: session.Settings{Format: "openai", Model: "m"}})
			return runTurn(t, logs, reg, "a", c.Fingerprint, nil)
		}, true},
		{"the least recently used dropped", func(t *testing.T, logs *session.Logs) []session.Action {
			c := cacheOf(runTurn(t, logs, reg, "first", "", nil))
			for i := range session.MaxLogs {
				runTurn(t, logs, reg, fmt.Sprint(i), "", nil)
			}
			if logs.Len() != session.MaxLogs {
				t.Errorf("%d logs kept, want %d", logs.Len(), session.MaxLogs)
			}
			return runTurn(t, logs, reg, "first", c.Fingerprint, nil)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acts := tt.run(t, &session.Logs{})
			need := len(acts) == 1 && acts[0].Type == session.ActionNeedHistory
			if need != tt.wantNeed {
				b, _ := json.Marshal(acts)
				t.Errorf("need_history = %v, want %v: %s", need, tt.wantNeed, b)
			}
			if !need && cacheOf(acts) == nil {
				t.Error("the turn handed out no fingerprint")
			}
		})
	}
}

// A resumed turn's log is the kept one plus the messages given since: the
// cache covers them all.
func TestLogsCount(t *testing.T) {
	reg := logsRegistry(t)
	logs := &session.Logs{}
	c := cacheOf(runTurn(t, logs, reg, "a", "", []session.Message{{Type: session.User, Content: "old"}, {Type: session.Assistant, Content: "reply"}}))
	if c.Messages != 4 {
		t.Fatalf("first turn covers %d messages, want 4", c.Messages)
	}
	added := []session.Message{{Type: session.Assistant, Content: "a reply cut short"}}
	c2 := cacheOf(runTurn(t, logs, reg, "a", c.Fingerprint, added))
	if c2 == nil || c2.Messages != 7 || c2.Fingerprint == c.Fingerprint {
		t.Fatalf("second turn's cache = %+v, want 7 messages and a new fingerprint", c2)
	}
}
