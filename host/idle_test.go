package host_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// cachingStore is a Store with caches to release.
type cachingStore struct {
	host.Store
	released atomic.Int32
}

func (s *cachingStore) ReleaseCaches() { s.released.Add(1) }

// With ReleaseIdle, the memory a burst of work freed goes back to the
// system once the host is quiet (issue 34: serve idle after a load kept
// the load's size), the store's caches emptied first: once per quiet spell, never while a turn, a tool call
// or the program's own work (Busy) runs.
func TestReleaseIdle(t *testing.T) {
	hold := make(chan struct{})
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Reply{Text: "Held.", Hold: hold}, fakemodel.Text("Quick."))
	defer model.Close()
	const quiet = 50 * time.Millisecond
	store := &cachingStore{Store: host.NewMemoryStore()}
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Store: store, ReleaseIdle: quiet, Tools: []host.NativeTool{
		{Tool: registry.Tool{Name: "echo", Description: "Echoes"}, Run: func(ctx context.Context, in json.RawMessage) (string, error) {
			time.Sleep(6 * quiet) // longer than the quiet time: a call runs
			return string(in), nil
		}},
	}})
	releases := host.CountReleases(h)
	eventually := func(want int, what string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); releases() != want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d releases, want %d", what, releases(), want)
			}
		}
		time.Sleep(6 * quiet) // no second release without new work
		if got := releases(); got != want {
			t.Fatalf("%s: %d releases, want %d: one per quiet spell", what, got, want)
		}
		// Each release empties the store's caches first.
		if got := store.released.Load(); got != int32(want) {
			t.Fatalf("%s: the store's caches were released %d times, want %d", what, got, want)
		}
	}

	done := make(chan []host.Event)
	go func() { done <- send(t, h.Session("s"), "Wait") }()
	for deadline := time.Now().Add(30 * time.Second); len(model.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the model was never called")
		}
	}
	time.Sleep(6 * quiet)
	if n := releases(); n != 0 {
		t.Fatalf("%d releases while a turn ran", n)
	}
	close(hold)
	if ev := last(<-done); ev.Type != host.EventDone {
		t.Fatalf("the turn ended with %+v", ev)
	}
	eventually(1, "after a turn")

	if _, err := h.CallTool(context.Background(), "echo", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	eventually(2, "after a tool call that outlasts the quiet time")

	busy := h.Busy()
	time.Sleep(6 * quiet)
	if n := releases(); n != 2 {
		t.Fatalf("%d releases while the program's own work ran", n)
	}
	busy()
	busy() // twice is once
	eventually(3, "after the program's work")
}
