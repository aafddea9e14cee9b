package host_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// One session's slow calls cannot hold every tool slot of the process:
// four 30 s JS calls in one turn once made every other session of a serve
// process wait for them. The session runs at most MaxParallelTools-1 at
// once, and another session's call takes the slot left.
func TestSessionCannotTakeEverySlot(t *testing.T) {
	var calls []fakemodel.Call
	for range 4 {
		calls = append(calls, fakemodel.Call{Name: "stuck", Args: `{}`})
	}
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCalls(calls...),     // session a
		fakemodel.ToolCall("quick", `{}`), // session b
		fakemodel.Text("b done"),          // session b
		fakemodel.Text("a done"))          // session a, once released
	defer model.Close()
	release := make(chan struct{})
	var running atomic.Int32
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, MaxParallelTools: 4, Tools: []host.NativeTool{
		{Tool: registry.Tool{Name: "stuck", Description: "Waits", TimeoutSeconds: 120}, Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
			running.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "ok", nil
		}},
		{Tool: registry.Tool{Name: "quick", Description: "Answers", TimeoutSeconds: 5}, Run: func(context.Context, json.RawMessage) (string, error) {
			return "quick", nil
		}},
	}})
	a := make(chan []host.Event, 1)
	go func() { a <- send(t, h.Session("a"), "Wait") }()
	for deadline := time.Now().Add(testwait.Failsafe); running.Load() < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("session a's calls never ran")
		}
	}
	time.Sleep(100 * time.Millisecond) // a's fourth call, if it could run
	if n := running.Load(); n != 3 {
		t.Errorf("session a runs %d calls at once, want 3 of the 4 slots", n)
	}
	b := make(chan []host.Event, 1)
	go func() { b <- send(t, h.Session("b"), "Quick") }()
	select {
	case evs := <-b:
		if ev := last(evs); ev.Type != host.EventDone || ev.Text != "b done" {
			t.Errorf("session b ended with %+v", ev)
		}
	case <-time.After(testwait.Failsafe): // a's calls run until released
		t.Error("session b's call waited for session a's")
		close(release)
		<-b
		release = nil
	}
	if release != nil {
		close(release)
	}
	if ev := last(<-a); ev.Type != host.EventDone {
		t.Errorf("session a ended with %+v", ev)
	}
	if n := running.Load(); n != 4 {
		t.Errorf("session a ran %d of its 4 calls", n)
	}
}
