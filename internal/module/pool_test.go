package module

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
)

var poolStart = []byte(`{"type":"start","user":"hi","session":"s1","settings":{"format":"openai","model":"m"}}`)

// TestTurnBody: the body of a call_model action is handed out once, raw,
// and never in the action.
func TestTurnBody(t *testing.T) {
	ctx := context.Background()
	inst := loadedInstance(t, []byte(memCatalogue))
	h, err := inst.TurnNew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if body, err := inst.TurnBody(ctx, h); body != nil || err != nil {
		t.Fatalf("before any model call: %q, %v", body, err)
	}
	acts, err := inst.TurnActions(ctx, h, poolStart)
	if err != nil {
		t.Fatal(err)
	}
	if r := acts[len(acts)-1].Request; r == nil || r.Body != nil {
		t.Fatalf("the call_model action: %+v", acts[len(acts)-1])
	}
	body, err := inst.TurnBody(ctx, h)
	if err != nil || len(body) == 0 || body[0] != '{' {
		t.Fatalf("the body: %q, %v", body, err)
	}
	if again, err := inst.TurnBody(ctx, h); again != nil || err != nil {
		t.Fatalf("the body again: %q, %v", again, err)
	}
	if other, err := inst.TurnBody(ctx, h+100); other != nil || err != nil {
		t.Fatalf("an unknown turn's body: %q, %v", other, err)
	}
}

// poolTurn runs a turn of session on p to its end and returns the
// instance it ran on.
func poolTurn(t *testing.T, p *Pool, sessionID string) *pooled {
	t.Helper()
	ctx := context.Background()
	tr, err := p.OpenTurn(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Free(ctx)
	start := []byte(`{"type":"start","user":"hi","session":"` + sessionID + `","settings":{"format":"openai","model":"m"}}`)
	if fp, _ := tr.Fingerprint(); fp != "" {
		start = []byte(`{"type":"start","user":"hi","session":"` + sessionID + `","fingerprint":"` + fp + `","settings":{"format":"openai","model":"m"}}`)
	}
	acts, err := tr.Event(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if acts[0].Type == session.ActionNeedHistory {
		t.Fatalf("session %s: the instance that kept it asked for the history", sessionID)
	}
	tr.Remember(nil)
	if _, err := tr.Body(ctx); err != nil {
		t.Fatal(err)
	}
	end, err := tr.Event(ctx, []byte(`{"type":"response","body":{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range end {
		if a.Type == session.ActionCache {
			tr.Remember(a.Cache)
		}
	}
	return tr.inst
}

// TestPoolSessionAffinity: a session's turns go to the instance that
// kept its state, which then resumes it, even while another turn is open
// there; a turn holds its instance only during a call.
func TestPoolSessionAffinity(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 2})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	a := poolTurn(t, p, "a")
	// A turn left open on a's instance, waiting on its model.
	open, err := p.OpenTurn(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer open.Free(ctx)
	if _, err := open.Event(ctx, poolStart); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := poolTurn(t, p, "a"); got != a {
			t.Fatal("session a's turn went to another instance")
		}
	}
	// A new session goes to the least busy instance: a second one, as the
	// first has an open turn.
	if b := poolTurn(t, p, "b"); b == a {
		t.Error("session b went to the busy instance while there was room for another")
	}
}

// TestPoolTurnsShareAnInstance: with one instance, turns open at once all
// run: none holds the instance between its calls.
func TestPoolTurnsShareAnInstance(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 1})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	var turns []*Turn
	for range 5 {
		tr, err := p.OpenTurn(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Free(ctx)
		if _, err := tr.Event(ctx, poolStart); err != nil {
			t.Fatal(err)
		}
		turns = append(turns, tr)
	}
	for _, tr := range turns[1:] {
		if tr.inst != turns[0].inst {
			t.Fatal("a second instance past MaxInstances")
		}
	}
	if got := poolTurn(t, p, "c"); got != turns[0].inst {
		t.Error("a turn did not run beside the open ones")
	}
}

// openBusy opens a turn on p and starts it, so that its instance has an
// open turn, and returns it with the body of its model call.
func openBusy(t *testing.T, p *Pool) (*Turn, []byte) {
	t.Helper()
	ctx := context.Background()
	tr, err := p.OpenTurn(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Free(ctx) })
	if _, err := tr.Event(ctx, poolStart); err != nil {
		t.Fatal(err)
	}
	body, err := tr.Body(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tr, body
}

// TestPoolCopiesTheCatalogue: the pool's first two instances load the
// catalogue; the next ones are copies of the second, which serve turns as
// it does without loading the catalogue again.
func TestPoolCopiesTheCatalogue(t *testing.T) {
	if !runtime(t).clonable {
		t.Fatal("the module's globals were not exported: its instances cannot be copied")
	}
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 4})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	first, want := openBusy(t, p)
	seen := map[*pooled]bool{first.inst: true}
	for range 3 {
		tr, body := openBusy(t, p)
		if seen[tr.inst] {
			t.Fatal("a turn went to a busy instance while there was room for another")
		}
		seen[tr.inst] = true
		if string(body) != string(want) {
			t.Errorf("a copy's request body differs from the first instance's:\n%s\n%s", body, want)
		}
	}
	if p.loads != 2 || p.copies != 2 {
		t.Errorf("%d loads and %d copies of the catalogue, want 2 and 2", p.loads, p.copies)
	}
	// The copies keep working on their own: a whole turn with a session.
	for inst := range seen {
		if inst.Broken() != nil {
			t.Fatal(inst.Broken())
		}
	}
	poolTurn(t, p, "s")
	poolTurn(t, p, "s")
}

// TestPoolOneInstanceKeepsNoSnapshot: a pool that never needs a second
// instance keeps no copy of its instance's memory.
func TestPoolOneInstanceKeepsNoSnapshot(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	for _, s := range []string{"a", "b", "a"} {
		poolTurn(t, p, s)
	}
	if p.snap != nil || len(p.all) != 1 || p.loads != 1 {
		t.Errorf("after three turns one at a time: snapshot kept %v, %d instances, %d loads; want none, 1, 1", p.snap != nil, len(p.all), p.loads)
	}
}

// TestPoolCopiesOnlyTheCurrentCatalogue: after a new catalogue, an
// instance made is not a copy of the old one's snapshot: the first new
// instance loads the new catalogue, and later ones copy that.
func TestPoolCopiesOnlyTheCurrentCatalogue(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 3})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	openBusy(t, p) // the first instance, which loads it and is kept
	p.SetCatalogue([]byte(`{"groups":[{"name":"mail","description":"Mail tools"}],"tools":[{"name":"mail_send","description":"Send mail","group":"mail"}]}`))
	for range 2 {
		_, body := openBusy(t, p)
		if !strings.Contains(string(body), "mail") || strings.Contains(string(body), "pdf") {
			t.Fatalf("a new instance serves the old catalogue: %s", body)
		}
	}
	if p.loads != 2 || p.copies != 1 {
		t.Errorf("%d loads and %d copies, want 2 (the first catalogue, then the second once) and 1", p.loads, p.copies)
	}
}

// TestPoolRecyclesAnInstancePastItsLimit: an instance whose memory grew
// past the pool's RecycleMemory takes no new turn and is closed once its
// turns are freed (wasm/ABI.md's Lifecycle); the session whose state it
// kept goes to a new instance, which hands out no fingerprint for it,
// so the host sends the whole log, and the model reads the history
// intact: the very request a new instance given that log makes.
func TestPoolRecyclesAnInstancePastItsLimit(t *testing.T) {
	ctx := context.Background()
	const limit = 8 << 20
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 2, RecycleMemory: limit})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	// A log whose start takes an instance past the limit: 3.7 MB of JSON.
	log := benchHistory(40000)
	answer := []byte(`{"type":"response","body":{"choices":[{"message":{"content":"Done."},"finish_reason":"stop"}]}}`)

	// turn runs one turn of session s as host/session.go does and
	// answers its instance and the body of its model call.
	turn := func(user string) (*pooled, []byte) {
		tr, err := p.OpenTurn(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Free(ctx)
		start := session.Event{Type: session.EventStart, User: user, Session: "s",
			Settings: session.Settings{Format: "openai", Model: "m"}}
		if fp, covered := tr.Fingerprint(); fp != "" {
			start.Fingerprint, start.History = fp, log[covered:]
		} else {
			start.History = log
		}
		ev, err := Marshal(start)
		if err != nil {
			t.Fatal(err)
		}
		acts, err := tr.Event(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		tr.Remember(nil)
		body, err := tr.Body(ctx)
		if err != nil {
			t.Fatal(err)
		}
		end, err := tr.Event(ctx, answer)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range append(acts, end...) {
			log = append(log, a.Messages...)
			if a.Type == session.ActionCache {
				tr.Remember(a.Cache)
			}
		}
		if last := end[len(end)-1]; last.Type != session.ActionDone {
			t.Fatalf("the turn ended with %+v", last)
		}
		return tr.inst, body
	}

	first, _ := turn("How many pages has the last report?")
	if first.MemorySize() <= limit {
		t.Fatalf("the start took the instance to %d bytes, not past the %d-byte limit: give it a longer history", first.MemorySize(), limit)
	}
	if !first.closed {
		t.Fatal("the instance past the limit was not closed once its turn was freed")
	}
	if _, kept := p.sessions["s"]; kept {
		t.Fatal("the pool still sends session s to the closed instance")
	}

	next, body := turn("And the one before?")
	if next == first {
		t.Fatal("the next turn went to the instance past the limit")
	}
	// The request a new instance makes from the whole log.
	fresh := loadedInstance(t, []byte(memCatalogue))
	defer fresh.Close(ctx)
	whole, err := Marshal(session.Event{Type: session.EventStart, User: "And the one before?",
		Settings: session.Settings{Format: "openai", Model: "m"}, History: log[:len(log)-2]})
	if err != nil {
		t.Fatal(err)
	}
	h, err := fresh.TurnNew(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.TurnActions(ctx, h, whole); err != nil {
		t.Fatal(err)
	}
	want, err := fresh.TurnBody(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != string(want) {
		t.Fatalf("the next turn's request (%d bytes) is not the one the whole log makes (%d bytes)", len(body), len(want))
	}
}

// TestPoolTrim: Trim closes the instances with no open turn, forgetting
// the sessions they kept, and leaves the busy ones; the next turns get
// copies of the catalogue's snapshot, and a session whose state was kept
// starts over with its whole history.
func TestPoolTrim(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 3})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	busy, _ := openBusy(t, p)
	kept := poolTurn(t, p, "s")
	if kept == busy.inst {
		t.Fatal("session s went to the busy instance while there was room for another")
	}
	if n := p.Trim(ctx); n != 1 || !kept.closed || busy.inst.closed || len(p.all) != 1 {
		t.Fatalf("Trim closed %d instances (s's closed: %v, the busy one's: %v), %d left; want s's alone closed", n, kept.closed, busy.inst.closed, len(p.all))
	}
	tr, err := p.OpenTurn(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if fp, _ := tr.Fingerprint(); fp != "" {
		t.Errorf("session s kept fingerprint %q on a closed instance", fp)
	}
	tr.Free(ctx)
	poolTurn(t, p, "s")
	// The busy turn still runs to its end.
	if _, err := busy.Event(ctx, []byte(`{"type":"response","body":{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}]}}`)); err != nil {
		t.Fatal(err)
	}
	busy.Free(ctx)
	if n := p.Trim(ctx); n == 0 || len(p.all) != 0 {
		t.Fatalf("Trim of a quiet pool closed %d instances and left %d", n, len(p.all))
	}
	copies := p.copies
	poolTurn(t, p, "s")
	if p.copies != copies+1 {
		t.Errorf("the turn after Trim made %d copies of the snapshot, want 1", p.copies-copies)
	}
}

// TestPoolTrimKeepsOneWithoutSnapshot: with no snapshot of the current
// catalogue, Trim keeps one idle instance, so the next turn does not load
// the catalogue again.
func TestPoolTrimKeepsOneWithoutSnapshot(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 2})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(memCatalogue))
	a := poolTurn(t, p, "a")
	p.mu.Lock()
	p.snap = nil
	p.mu.Unlock()
	if n := p.Trim(ctx); n != 0 || a.closed {
		t.Fatalf("Trim closed %d instances, the only one among them: %v", n, a.closed)
	}
	loads := p.loads
	if got := poolTurn(t, p, "a"); got != a || p.loads != loads {
		t.Errorf("the next turn went to another instance (%v) or loaded the catalogue (%d loads)", got != a, p.loads-loads)
	}
}

// TestPoolKeepsTheLoadsReport: Report is the module's answer to loading
// the current catalogue, given again without another load while the
// catalogue stays, and the instance that loaded it serves the next turn;
// a new catalogue's report is its own.
func TestPoolKeepsTheLoadsReport(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 2})
	defer p.Close(ctx)
	p.SetCatalogue([]byte(`{"manifests":[{"file":"solo.json","text":"[{\"name\":\"solo\"","source":"solo.js"}]}`))
	for range 2 {
		rep, err := p.Report(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Manifests) != 1 || len(rep.Manifests[0].Skipped) != 1 || !strings.Contains(rep.Manifests[0].Skipped[0].Reason, "invalid JSON") {
			t.Fatalf("the report: %+v, want solo.json skipped as invalid JSON", rep)
		}
	}
	poolTurn(t, p, "s")
	if p.loads != 1 || len(p.all) != 1 {
		t.Errorf("%d loads and %d instances after two reports and a turn, want 1 and 1", p.loads, len(p.all))
	}
	p.SetCatalogue([]byte(`{"tools":[{"name":"bad name","description":"d"}]}`))
	rep, err := p.Report(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Manifests) != 0 || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "bad name") {
		t.Errorf("the new catalogue's report: %+v, want its refused tool alone", rep)
	}
}

// TestPoolCloseWaitsForCalls: Close closes an instance only once the call
// that holds it returns, and a turn left open fails at its next call with
// an error. Closing an instance under a running call unmapped the memory
// the call was using, and the process died with a fault (a program closing
// while an MCP server's change reloaded its catalogue on another
// goroutine).
func TestPoolCloseWaitsForCalls(t *testing.T) {
	ctx := context.Background()
	p := NewPool(runtime(t), PoolConfig{MaxInstances: 1})
	p.SetCatalogue([]byte(memCatalogue))
	open, err := p.OpenTurn(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open.Event(ctx, poolStart); err != nil {
		t.Fatal(err)
	}
	// A lent instance is held as a call holds it.
	l, err := p.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		p.Close(ctx)
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a call held the pool's instance")
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := l.Describe(ctx, abi.DescribeRequest{}); err != nil {
		t.Fatalf("the lent instance, before it is given back: %v", err)
	}
	p.Release(ctx, l)
	select {
	case <-closed:
	case <-time.After(testwait.Failsafe):
		t.Fatal("Close did not return once the instance was given back")
	}
	if _, err := open.Event(ctx, poolStart); err == nil {
		t.Error("a turn left open ran a call on a closed instance")
	}
	open.Free(ctx)
	if _, err := p.Check(ctx, "session_title", map[string]string{"title": "x"}); err == nil {
		t.Error("a closed pool answered a check")
	}
}
