package schedule

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/testwait"
)

// clock is a fake clock the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// turns records the runs and answers each with its prompt, or fails a
// prompt holding "fail".
type turns struct {
	mu   sync.Mutex
	runs []string // id|title|prompt
}

func (r *turns) turn(_ context.Context, id, title, prompt string) (string, error) {
	r.mu.Lock()
	r.runs = append(r.runs, id+"|"+title+"|"+prompt)
	r.mu.Unlock()
	if strings.Contains(prompt, "fail") {
		return "", errors.New("the model could not be reached")
	}
	return "answered: " + prompt, nil
}

func newService(t *testing.T) (*Service, *clock, *turns) {
	t.Helper()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := &clock{t: now}
	r := &turns{}
	return New(db, r.turn, c.now), c, r
}

func str(s string) *string { return &s }

func TestOneShotRunsOnceAtItsTime(t *testing.T) {
	s, c, r := newService(t)
	ctx := opCtx(t)
	task, err := s.Create(ctx, Change{Name: "standup", Prompt: str(" Summarise my day "), At: str("2026-11-27T09:00:00+01:00")})
	if err != nil {
		t.Fatal(err)
	}
	if task.At != "2026-11-27T08:00:00Z" || task.NextRun != task.At || task.Prompt != "Summarise my day" || !task.Enabled {
		t.Fatalf("created %+v", task)
	}
	c.set(time.Date(2026, 11, 27, 7, 59, 59, 0, time.UTC))
	if n, err := s.RunDue(ctx); n != 0 || err != nil {
		t.Fatalf("a second early: ran %d, %v", n, err)
	}
	c.set(time.Date(2026, 11, 27, 8, 0, 30, 0, time.UTC))
	if n, err := s.RunDue(ctx); n != 1 || err != nil {
		t.Fatalf("at its time: ran %d, %v", n, err)
	}
	if n, _ := s.RunDue(ctx); n != 0 {
		t.Fatalf("ran again")
	}
	if want := []string{"task-standup-20261127-080030|Scheduled task: standup|Summarise my day"}; strings.Join(r.runs, ";") != want[0] {
		t.Fatalf("runs = %q", r.runs)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	got := list[0]
	if got.NextRun != "" || got.Runs != 1 || *got.LastRun != (Run{Session: "task-standup-20261127-080030", Started: "2026-11-27T08:00:30Z", Status: StatusDone, Result: "answered: Summarise my day"}) {
		t.Fatalf("after the run: %+v %+v", got, got.LastRun)
	}
}

func TestCronRunsAndAdvances(t *testing.T) {
	s, c, r := newService(t)
	ctx := opCtx(t)
	if _, err := s.Create(ctx, Change{Name: "hourly", Prompt: str("check the news"), Cron: str("0 * * * *")}); err != nil {
		t.Fatal(err)
	}
	// Missed for three hours: one run, then the next hour.
	c.set(time.Date(2026, 11, 27, 2, 10, 0, 0, time.UTC))
	if n, err := s.RunDue(ctx); n != 1 || err != nil {
		t.Fatalf("ran %d, %v", n, err)
	}
	list, _ := s.List(ctx)
	if list[0].NextRun != "2026-11-27T03:00:00Z" || list[0].Runs != 1 {
		t.Fatalf("after a run: %+v", list[0])
	}
	c.set(time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC))
	s.RunDue(ctx)
	if len(r.runs) != 2 {
		t.Fatalf("runs = %q", r.runs)
	}
	// Paused, it does not run; resumed, it runs at the next hour.
	if _, err := s.Update(ctx, Change{Name: "hourly", Enabled: new(bool)}); err != nil {
		t.Fatal(err)
	}
	c.set(time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC))
	if n, _ := s.RunDue(ctx); n != 0 {
		t.Fatal("a paused task ran")
	}
	on := true
	task, err := s.Update(ctx, Change{Name: "hourly", Enabled: &on, Timezone: str("Asia/Kolkata")})
	if err != nil || task.NextRun != "2026-11-27T05:30:00Z" {
		t.Fatalf("resumed in a half-hour zone: %+v, %v", task, err)
	}
}

func TestFailedRunIsRecorded(t *testing.T) {
	s, _, _ := newService(t)
	ctx := opCtx(t)
	s.Create(ctx, Change{Name: "bad", Prompt: str("fail please"), Cron: str("@daily")})
	task, err := s.RunNow(ctx, "bad")
	if err != nil {
		t.Fatal(err)
	}
	if task.LastRun.Status != StatusFailed || task.LastRun.Result != "the model could not be reached" || task.NextRun != "2026-11-27T00:00:00Z" {
		t.Fatalf("%+v %+v", task, task.LastRun)
	}
}

func TestRefusals(t *testing.T) {
	s, _, _ := newService(t)
	ctx := opCtx(t)
	s.Create(ctx, Change{Name: "one", Prompt: str("x"), Cron: str("@daily")})
	for _, c := range []struct {
		name string
		do   func() error
		want string
	}{
		{"bad name", func() error {
			_, err := s.Create(ctx, Change{Name: "Daily Summary", Prompt: str("x"), Cron: str("@daily")})
			return err
		}, `"Daily Summary" is not a task name`},
		{"no prompt", func() error { _, err := s.Create(ctx, Change{Name: "two", Cron: str("@daily")}); return err }, "the prompt is missing"},
		{"no time", func() error { _, err := s.Create(ctx, Change{Name: "two", Prompt: str("x")}); return err }, "give at, an ISO 8601 time"},
		{"both", func() error {
			_, err := s.Create(ctx, Change{Name: "two", Prompt: str("x"), Cron: str("@daily"), At: str("2027-01-01T00:00:00Z")})
			return err
		}, "not both"},
		{"taken", func() error {
			_, err := s.Create(ctx, Change{Name: "one", Prompt: str("x"), Cron: str("@daily")})
			return err
		}, `a task "one" exists`},
		{"unknown", func() error { _, err := s.Delete(ctx, "nope"); return err }, `no task "nope": the tasks are one`},
		{"run unknown", func() error { _, err := s.RunNow(ctx, "nope"); return err }, `no task "nope"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			if _, ok := IsError(err); !ok || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want a refusal with %q", err, c.want)
			}
		})
	}
}

// Loop runs a task at its time on the real clock, and a task added while
// it waits wakes it. The task is made a second ahead of a clock held still
// until it is made: a busy machine that takes longer to make it than that
// (it did) would otherwise make a task already past, which never runs.
func TestLoop(t *testing.T) {
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done := make(chan string, 1)
	start := time.Now()
	var made atomic.Bool
	now := func() time.Time {
		if made.Load() {
			return time.Now()
		}
		return start
	}
	s := New(db, func(_ context.Context, id, _, _ string) (string, error) { done <- id; return "ok", nil }, now)
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() { s.Loop(ctx, t.Logf); close(stopped) }()
	at := start.Add(time.Second).UTC().Format(time.RFC3339Nano)
	if _, err := s.Create(opCtx(t), Change{Name: "soon", Prompt: str("hi"), At: str(at)}); err != nil {
		t.Fatal(err)
	}
	made.Store(true)
	s.Wake() // the clock moved: look again
	select {
	case id := <-done:
		if !strings.HasPrefix(id, "task-soon-") {
			t.Errorf("session %q", id)
		}
	case <-time.After(testwait.Failsafe):
		t.Fatal("the task did not run")
	}
	cancel()
	<-stopped
}

// Two processes sharing one database, each with its own Service (and its
// own connections), that find the same task due at once: it runs once.
func TestSharedStoreRunsADueTaskOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	c := &clock{t: time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)}
	r := &turns{}
	var services []*Service
	for range 2 {
		db, err := store.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		services = append(services, New(db, r.turn, c.now))
	}
	ctx := opCtx(t)
	if _, err := services[0].Create(ctx, Change{Name: "hourly", Prompt: str("check the news"), Cron: str("0 * * * *")}); err != nil {
		t.Fatal(err)
	}
	for round, at := range []time.Time{
		time.Date(2026, 11, 27, 9, 0, 5, 0, time.UTC),
		time.Date(2026, 11, 27, 10, 0, 5, 0, time.UTC),
	} {
		c.set(at)
		// Both list the task as due before either claims it.
		for _, s := range services {
			due, err := s.store.DueTasks(ctx, at)
			if err != nil || len(due) != 1 {
				t.Fatalf("round %d: due %v, %v", round, due, err)
			}
		}
		var wg sync.WaitGroup
		ran := make([]int, len(services))
		for i, s := range services {
			wg.Go(func() {
				n, err := s.RunDue(ctx)
				if err != nil {
					t.Errorf("service %d: %v", i, err)
				}
				ran[i] = n
			})
		}
		wg.Wait()
		if ran[0]+ran[1] != 1 {
			t.Fatalf("round %d: the services ran %v times, want once in all", round, ran)
		}
	}
	if len(r.runs) != 2 {
		t.Fatalf("runs = %q, want one at 09:00 and one at 10:00", r.runs)
	}
	task, err := services[1].named(ctx, "hourly")
	if err != nil || task.Runs != 2 || task.NextRun != "2026-11-27T11:00:00Z" || task.LastRun.Status != StatusDone {
		t.Fatalf("after two rounds: %+v, %v", task, err)
	}
}

// A task listed as due that another process ran since (its next run now
// later) is not run again.
func TestDueTaskRunElsewhereIsSkipped(t *testing.T) {
	s, c, r := newService(t)
	ctx := opCtx(t)
	if _, err := s.Create(ctx, Change{Name: "hourly", Prompt: str("check the news"), Cron: str("0 * * * *")}); err != nil {
		t.Fatal(err)
	}
	c.set(time.Date(2026, 11, 27, 9, 0, 5, 0, time.UTC))
	task, err := s.named(ctx, "hourly")
	if err != nil {
		t.Fatal(err)
	}
	// As another process would: claim and advance it first.
	if _, ok, err := s.start(ctx, task, true); err != nil || !ok {
		t.Fatalf("the first claim: %v, %v", ok, err)
	}
	if _, ok, err := s.start(ctx, task, true); err != nil || ok {
		t.Fatalf("a second claim of the same run: %v, %v; want refused", ok, err)
	}
	if len(r.runs) != 0 {
		t.Fatalf("runs = %q", r.runs)
	}
}
