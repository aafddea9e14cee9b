package module

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/registry/session"
)

// FuzzTurnEvent feeds the module's toolroute_turn_event any bytes after a
// turn's start: the module never traps, and what encoding/json refuses as
// an event it refuses with encoding/json's words (the hand-written decoder
// of session.UnmarshalEvent accepts exactly the same inputs).
func FuzzTurnEvent(f *testing.F) {
	for _, ev := range turnEvents {
		f.Add([]byte(ev))
	}
	for _, s := range []string{`{"type":"response","body":"not json"}`, `{"type":"tool_results","results":[{"id":"c1","status":"success","output":"\ud800<&>\u2028"}]}`,
		`{"type":"response","body":{"choices":[{"message":{"content":[{"type":"text","text":"a"}]}}]}}`, `{"TYPE":"response"}`,
		`{"type":"response","type":"start"}`, `{"status":1.5}`, `{"now":"yesterday"}`, `[]`, `"x"`, `null`, ``, `{`, "{\"error\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	start := startEvent(f, nil)
	ctx := context.Background()
	// The instance is made at the first input, in the processes that fuzz:
	// the coordinator runs this body too, but never an input, and compiling
	// the module there took the seconds a short -fuzztime has.
	var (
		once sync.Once
		inst *Instance
	)
	f.Cleanup(func() {
		if inst != nil {
			inst.Close(ctx)
		}
	})
	f.Fuzz(func(t *testing.T, event []byte) {
		once.Do(func() {
			var err error
			if inst, err = runtime(t).Instantiate(ctx); err != nil {
				t.Fatal(err)
			}
			if rep, err := inst.Load(ctx, []byte(memCatalogue)); err != nil || !rep.OK() {
				t.Fatalf("load: %+v, %v", rep, err)
			}
		})
		if inst == nil {
			t.Fatal("no instance: see the first input's failure")
		}
		h := startTurn(t, inst, start)
		defer inst.TurnFree(ctx, h)
		_, err := inst.TurnEvent(ctx, h, event)
		if inst.Broken() != nil {
			t.Fatalf("%q broke the instance: %v", event, inst.Broken())
		}
		var e session.Event
		if jerr := json.Unmarshal(event, &e); jerr != nil {
			var ae *abi.Error
			want := "the event is not a JSON event object: " + jerr.Error()
			if !errors.As(err, &ae) || ae.Code != abi.CodeBadJSON || ae.Message != want {
				t.Fatalf("%q: error %v, want %s", event, err, want)
			}
		}
	})
}

// FuzzOKPayload: an envelope's payload taken without reflection is what
// json.Unmarshal takes for it, with no error in the envelope.
func FuzzOKPayload(f *testing.F) {
	for _, s := range []string{`{"ok":[{"type":"done"}]}`, `{"ok":{"turn":1}}`, `{"ok":1,"error":{"code":"x"}}`, `{"ok": 1}`,
		`{"ok":"}`, `{"ok":[]} `, `{"ok":null}`, `{"error":{"code":"bad_json","message":"m"}}`, `{"ok":{"a":1}}}`, `{"ok":}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		payload, ok := okPayload(data)
		if !ok {
			return
		}
		var env struct {
			OK    json.RawMessage `json:"ok"`
			Error *abi.Error      `json:"error"`
		}
		if err := json.Unmarshal(data, &env); err != nil || env.Error != nil || !bytes.Equal(env.OK, payload) {
			t.Fatalf("%q: payload %q; json.Unmarshal %q, %v, %v", data, payload, env.OK, env.Error, err)
		}
	})
}
