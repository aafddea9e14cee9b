package host_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/pgtest"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// sendAll runs a turn and returns its events and the host error, if any.
func sendAll(s *host.Session, text string) ([]host.Event, error) {
	var evs []host.Event
	for ev, err := range s.Send(context.Background(), text) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// Two Hosts on two handles of one database, as two toolroute serve
// processes (or serve and chat) are: a session made by one is listed and
// continued by the other; while one runs a turn of a session, the other's
// turn is refused at once with a TurnRunningError and writes nothing;
// turns of one Host wait for each other as before. The same with a SQLite
// file and a PostgreSQL database (two connection pools).
func TestTurnLockAcrossHosts(t *testing.T) {
	for _, backend := range []struct {
		name  string
		where func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "toolroute.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(backend.name, func(t *testing.T) { testTurnLockAcrossHosts(t, backend.where(t)) })
	}
}

func testTurnLockAcrossHosts(t *testing.T, where string) {
	open := func() *store.DB {
		db, err := store.Open(context.Background(), where)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	hold := make(chan struct{})
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.Reply{Text: "one done", Hold: hold},
		fakemodel.Text("three done"),
		fakemodel.Text("two done"),
	)
	defer model.Close()
	secondDB := open()
	first := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Store: open()})
	second := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Store: secondDB})

	var wg sync.WaitGroup
	results := make([]error, 2)
	ends := make([]host.EventType, 2)
	run := func(i int, text string) {
		defer wg.Done()
		evs, err := sendAll(first.Session("s"), text)
		results[i] = err
		if len(evs) > 0 {
			ends[i] = last(evs).Type
		}
	}
	wg.Add(1)
	go run(0, "one")
	for deadline := time.Now().Add(testwait.Failsafe); len(model.Requests()) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first turn never called the model")
		}
	}
	wg.Add(1)
	go run(1, "three") // the same Host: waits for "one"

	evs, err := sendAll(second.Session("s"), "two")
	var busy *host.TurnRunningError
	if !errors.As(err, &busy) || busy.Session != "s" || len(evs) != 0 {
		t.Fatalf("the other Host's turn gave %d events and %v; want only a TurnRunningError", len(evs), err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, `host: session "s" has a turn running in another process`) {
		t.Errorf("the error says %q", msg)
	}

	close(hold)
	wg.Wait()
	for i, err := range results {
		if err != nil || ends[i] != host.EventDone {
			t.Errorf("turn %d of the first Host ended with %q, %v", i, ends[i], err)
		}
	}
	if evs, err := sendAll(second.Session("s"), "two"); err != nil || last(evs).Type != host.EventDone {
		t.Fatalf("the other Host's turn once the first ended: %v", err)
	}

	msgs, err := second.Session("s").Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Type)+" "+m.Content)
	}
	want := []string{"user one", "assistant one done", "user three", "assistant three done", "user two", "assistant two done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the log (-want +got):\n%s", diff)
	}
	list, err := secondDB.Sessions(context.Background())
	if err != nil || len(list) != 1 || list[0].ID != "s" || list[0].Title != "one" || list[0].Messages != len(want) {
		t.Errorf("the other handle lists %+v, %v; want session s, titled one, with %d messages", list, err, len(want))
	}
}

// lockingStore is a MemoryStore with a scripted turn lock.
type lockingStore struct {
	*host.MemoryStore
	busy     bool
	err      error
	locks    int
	unlocked int
}

func (s *lockingStore) LockTurn(context.Context, string) (func(), bool, error) {
	s.locks++
	if s.err != nil || s.busy {
		return nil, false, s.err
	}
	return func() { s.unlocked++ }, true, nil
}

func TestSendUsesTheTurnLocker(t *testing.T) {
	tests := []struct {
		name    string
		store   *lockingStore
		wantErr string // "" for a turn that ran
	}{
		{"free", &lockingStore{}, ""},
		{"busy", &lockingStore{busy: true}, `host: session "s" has a turn running in another process (toolroute serve or chat); try again when it ends`},
		{"failing", &lockingStore{err: errors.New("disk I/O error")}, `host: locking session "s" for a turn: disk I/O error`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("hi"))
			defer model.Close()
			tt.store.MemoryStore = host.NewMemoryStore()
			h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Store: tt.store})
			evs, err := sendAll(h.Session("s"), "hello")
			msgs, _ := tt.store.Messages(context.Background(), "s")
			if tt.wantErr == "" {
				if err != nil || last(evs).Type != host.EventDone || tt.store.unlocked != 1 {
					t.Errorf("the turn ended with %v, %d unlocks; want done and 1", err, tt.store.unlocked)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
			if len(evs) != 0 || len(msgs) != 0 || len(model.Requests()) != 0 || tt.store.unlocked != 0 {
				t.Errorf("a refused turn gave %d events, stored %d messages, made %d model calls, unlocked %d times",
					len(evs), len(msgs), len(model.Requests()), tt.store.unlocked)
			}
		})
	}
}

// endingStore is a lockingStore that can end a turn in its last append,
// and records which messages came that way.
type endingStore struct {
	lockingStore
	ended []string
}

func (s *endingStore) AppendUnlock(ctx context.Context, id string, msgs ...session.Message) error {
	for _, m := range msgs {
		s.ended = append(s.ended, string(m.Type)+" "+m.Content)
	}
	return s.Append(ctx, id, msgs...)
}

// A store that is a TurnEnder gets the turn's last append through
// AppendUnlock, the ones before it through Append; the lock's unlock is
// still called, for a store whose AppendUnlock did not release it.
func TestSendEndsTheTurnInItsLastAppend(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("hi"), fakemodel.Text("bye"))
	defer model.Close()
	st := &endingStore{lockingStore: lockingStore{MemoryStore: host.NewMemoryStore()}}
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Store: st})
	for _, text := range []string{"hello", "goodbye"} {
		if evs, err := sendAll(h.Session("s"), text); err != nil || last(evs).Type != host.EventDone {
			t.Fatalf("the turn %q ended with %v", text, err)
		}
	}
	if diff := cmp.Diff([]string{"assistant hi", "assistant bye"}, st.ended); diff != "" {
		t.Errorf("the messages appended with the unlock (-want +got):\n%s", diff)
	}
	msgs, _ := st.Messages(context.Background(), "s")
	if len(msgs) != 4 || st.locks != 2 || st.unlocked != 2 {
		t.Errorf("%d messages logged, %d locks, %d unlocks; want 4, 2, 2", len(msgs), st.locks, st.unlocked)
	}
}
