package abi

import (
	"bytes"
	"testing"

	"github.com/toolroute/toolroute/registry/session"
)

// TestTurnNewEnvelope: the handle TurnNew writes by hand is the envelope
// encoding/json gives for it, for handles of every length.
func TestTurnNewEnvelope(t *testing.T) {
	g := &Guest{}
	if out := g.Load([]byte(`{"tools":[]}`)); !bytes.HasPrefix(out, []byte(`{"ok":`)) {
		t.Fatalf("load: %s", out)
	}
	for _, next := range []uint32{0, 8, 99, 4294967290} {
		g.next = next
		got := g.TurnNew()
		want := ok(TurnHandle{Turn: g.next})
		if !bytes.Equal(got, want) {
			t.Errorf("handle after %d: %s, want %s", next, got, want)
		}
	}
}

// TestActionsEnvelope: actions encoded in place are the envelope of what
// MarshalActions gives, none and an empty list included.
func TestActionsEnvelope(t *testing.T) {
	for _, acts := range [][]session.Action{nil, {}, {{Type: session.ActionDone, Text: "<b>done</b> & \u2028"}}} {
		b, err := session.MarshalActions(acts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := actions(nil, acts), envelope(b); !bytes.Equal(got, want) {
			t.Errorf("%+v: %s, want %s", acts, got, want)
		}
	}
}
