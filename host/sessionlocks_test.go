package host_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/wire"
)

// A session's turn lock lives while a turn holds or waits for it: the
// sessions of days of serve left one lock each behind (issue 34), however
// their turns ended. Turns of one session still run one at a time.
func TestSessionLocksLetGo(t *testing.T) {
	model := fakemodel.NewFunc(fakemodel.OpenAI, func(fakemodel.Request) fakemodel.Reply { return fakemodel.Text("hello") })
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, MaxInstances: 2})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := h.Session(fmt.Sprint("s", i%20)) // two turns a session, at once
			for ev, err := range s.Send(context.Background(), "hi") {
				if err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 && ev.Type == host.EventModelCall {
					break // a client that stopped reading
				}
			}
		}()
	}
	wg.Wait()
	if n := host.LockedSessions(h); n != 0 {
		t.Errorf("after every turn ended, %d sessions keep a lock", n)
	}
	// Two turns of one session: the second waits for the first, whose
	// lock it shares, and the log holds both whole.
	s := h.Session("one")
	var one sync.WaitGroup
	for range 2 {
		one.Add(1)
		go func() {
			defer one.Done()
			for _, err := range s.Send(context.Background(), "hi") {
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	one.Wait()
	msgs, err := s.Messages(context.Background())
	if err != nil || len(msgs) != 4 || msgs[0].Content != "hi" || msgs[1].Content != "hello" || msgs[2].Content != "hi" || msgs[3].Content != "hello" {
		t.Errorf("the log of two turns at once: %+v, %v", msgs, err)
	}
	if n := host.LockedSessions(h); n != 0 {
		t.Errorf("%d sessions keep a lock", n)
	}
}
