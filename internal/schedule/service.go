package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/module"
)

// Turn runs a task's prompt as the user's message of a new session, named
// id and titled title, with no one there to answer approval questions,
// and gives the model's answer, or an error saying why there is none.
type Turn func(ctx context.Context, id, title, prompt string) (answer string, err error)

// Service keeps the tasks in the store and runs them. It is safe for
// concurrent use; Loop is what runs them at their time.
type Service struct {
	store *store.DB
	turn  Turn
	now   func() time.Time
	wake  chan struct{}
	mu    sync.Mutex // orders the read-change-write of a task's record
}

// New is a Service over db that runs tasks with turn; now is the clock
// (time.Now when nil).
func New(db *store.DB, turn Turn, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: db, turn: turn, now: now, wake: make(chan struct{}, 1)}
}

// Change is what schedule_task and update_scheduled_task give: nil leaves
// a field as it is (update) or empty (create).
type Change struct {
	Name     string  `json:"name"`
	Prompt   *string `json:"prompt"`
	At       *string `json:"at"`
	Cron     *string `json:"cron"`
	Timezone *string `json:"timezone"`
	Enabled  *bool   `json:"enabled"`
}

func (s *Service) get(ctx context.Context, name string) (Task, bool, error) {
	rec, ok, err := s.store.Task(ctx, name)
	if err != nil || !ok {
		return Task{}, ok, err
	}
	var t Task
	if err := json.Unmarshal([]byte(rec.JSON), &t); err != nil {
		return Task{}, false, fmt.Errorf("schedule: task %q's record: %w", name, err)
	}
	return t, true, nil
}

func (s *Service) put(ctx context.Context, t Task) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return s.store.PutTask(ctx, store.Task{Name: t.Name, NextRun: parseStamp(t.NextRun), JSON: string(b)})
}

// checkChange has the module check c, a task's creation or change, as
// far as it can whatever the tasks are (wasm/ABI.md, toolroute_check's
// task_change: the prompt, and at or cron), and gives c its prompt, at
// and cron trimmed; scheduled says the task changed has a time already.
func checkChange(ctx context.Context, c *Change, create, scheduled bool) error {
	var out struct {
		Prompt   *string `json:"prompt"`
		At, Cron string
	}
	err := module.CheckArgs(ctx, "task_change", struct {
		Prompt    *string `json:"prompt"`
		At        *string `json:"at"`
		Cron      *string `json:"cron"`
		Create    bool    `json:"create"`
		Scheduled bool    `json:"scheduled"`
	}{c.Prompt, c.At, c.Cron, create, scheduled}, &out)
	var r *module.Refused
	if errors.As(err, &r) {
		return &Error{Type: r.Type, Message: r.Message}
	}
	if err != nil {
		return err
	}
	c.Prompt, c.At, c.Cron = out.Prompt, &out.At, &out.Cron
	return nil
}

// apply sets t's prompt and time from c, which checkChange checked, as the
// module reads them (ReadTime); when changes.
func apply(ctx context.Context, t *Task, c Change, now time.Time) error {
	if c.Prompt != nil {
		t.Prompt = *c.Prompt
	}
	at, cr := deref(c.At), deref(c.Cron)
	if c.Timezone != nil {
		t.Timezone = strings.TrimSpace(*c.Timezone)
	}
	switch {
	case at != "":
		cr = ""
	case cr == "":
		// the schedule it has, read again in a new timezone
		cr = t.Cron
	}
	a, err := ReadTime(ctx, at, cr, t.Timezone, now)
	if err != nil {
		return err
	}
	switch {
	case at != "":
		t.At, t.Cron = a.At, ""
	case cr != "":
		t.Cron, t.At = cr, ""
	}
	if c.Enabled != nil {
		t.Enabled = *c.Enabled
	}
	t.NextRun = ""
	switch {
	case !t.Enabled:
	case t.Cron != "":
		t.NextRun = a.NextRun
	case parseStamp(t.At).After(now):
		t.NextRun = t.At
	}
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Create stores a new task.
func (s *Service) Create(ctx context.Context, c Change) (Task, error) {
	if err := CheckName(ctx, c.Name); err != nil {
		return Task{}, err
	}
	if err := checkChange(ctx, &c, true, false); err != nil {
		return Task{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkNames(ctx, c.Name, true); err != nil {
		return Task{}, err
	}
	now := s.now()
	t := Task{Name: c.Name, Enabled: true, Created: stamp(now)}
	if err := apply(ctx, &t, c, now); err != nil {
		return Task{}, err
	}
	if err := s.put(ctx, t); err != nil {
		return Task{}, err
	}
	s.Wake()
	return t, nil
}

// Update changes a task; what c leaves out stays.
func (s *Service) Update(ctx context.Context, c Change) (Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.named(ctx, c.Name)
	if err != nil {
		return Task{}, err
	}
	if err := checkChange(ctx, &c, false, t.At != "" || t.Cron != ""); err != nil {
		return Task{}, err
	}
	if err := apply(ctx, &t, c, s.now()); err != nil {
		return Task{}, err
	}
	if err := s.put(ctx, t); err != nil {
		return Task{}, err
	}
	s.Wake()
	return t, nil
}

// Delete removes a task and gives it as it was. The sessions of its runs
// stay.
func (s *Service) Delete(ctx context.Context, name string) (Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.named(ctx, name)
	if err != nil {
		return Task{}, err
	}
	if _, err := s.store.DeleteTask(ctx, name); err != nil {
		return Task{}, err
	}
	return t, nil
}

// List gives every task, by name.
func (s *Service) List(ctx context.Context) ([]Task, error) {
	recs, err := s.store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Task, 0, len(recs))
	for _, r := range recs {
		var t Task
		if err := json.Unmarshal([]byte(r.JSON), &t); err != nil {
			return nil, fmt.Errorf("schedule: task %q's record: %w", r.Name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// named is the task of that name, or the module's not_found refusal
// naming those there are.
func (s *Service) named(ctx context.Context, name string) (Task, error) {
	t, ok, err := s.get(ctx, name)
	if err != nil || ok {
		return t, err
	}
	if err := s.checkNames(ctx, name, false); err != nil {
		return Task{}, err
	}
	return Task{}, fmt.Errorf("schedule: task %q is listed but has no record", name)
}

// checkNames has the module check name against the tasks there are
// (wasm/ABI.md, toolroute_check's task_names): for a new task (create),
// that it is not taken and not one too many; else that it is there.
func (s *Service) checkNames(ctx context.Context, name string, create bool) error {
	recs, err := s.store.Tasks(ctx)
	if err != nil {
		return err
	}
	names := make([]string, len(recs))
	for i, r := range recs {
		names[i] = r.Name
	}
	err = module.CheckArgs(ctx, "task_names", struct {
		Name   string   `json:"name"`
		Names  []string `json:"names"`
		Create bool     `json:"create"`
	}{name, names, create}, nil)
	var r *module.Refused
	if errors.As(err, &r) {
		return &Error{Type: r.Type, Message: r.Message}
	}
	return err
}

// RunNow runs a task at once, whatever its schedule (which it keeps), and
// gives it with the run's outcome.
func (s *Service) RunNow(ctx context.Context, name string) (Task, error) {
	s.mu.Lock()
	t, err := s.named(ctx, name)
	if err != nil {
		s.mu.Unlock()
		return Task{}, err
	}
	run, _, err := s.start(ctx, t, false)
	s.mu.Unlock()
	if err != nil {
		return Task{}, err
	}
	return s.finish(ctx, t, run)
}

// start records that t runs now, in a new session: a task due advances to
// its next time (a one-shot task to none) before it runs, so a run that
// dies is not repeated at every start. A due run is claimed in the store
// (store.DB.ClaimTask): when several processes share it, the one that
// advanced the task first runs it, and start reports false to the others,
// as it does when the task is no longer due.
func (s *Service) start(ctx context.Context, t Task, due bool) (Run, bool, error) {
	now := s.now()
	run := Run{Session: "task-" + t.Name + "-" + now.UTC().Format("20060102-150405"), Started: stamp(now), Status: StatusRunning}
	was := parseStamp(t.NextRun)
	if due {
		if was.IsZero() || was.After(now) {
			return Run{}, false, nil // run by another process since it was listed
		}
		t.NextRun = stamp(t.Next(ctx, now))
	}
	t.Runs++
	t.LastRun = &run
	if !due {
		return run, true, s.put(ctx, t)
	}
	b, err := json.Marshal(t)
	if err != nil {
		return Run{}, false, err
	}
	claimed, err := s.store.ClaimTask(ctx, store.Task{Name: t.Name, NextRun: parseStamp(t.NextRun), JSON: string(b)}, was)
	return run, claimed, err
}

// finish runs the turn of run and records how it ended in the task, if it
// is still there.
func (s *Service) finish(ctx context.Context, t Task, run Run) (Task, error) {
	answer, err := s.turn(ctx, run.Session, "Scheduled task: "+t.Name, t.Prompt)
	run.Status, run.Result = StatusDone, answer
	if err != nil {
		run.Status, run.Result = StatusFailed, err.Error()
	}
	if r := []rune(run.Result); len(r) > MaxResultChars {
		run.Result = string(r[:MaxResultChars]) + " [cut: the session has it all]"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The record is read again: it may have changed while the turn ran.
	now, ok, gerr := s.get(context.WithoutCancel(ctx), t.Name)
	if gerr != nil {
		return Task{}, gerr
	}
	if !ok { // deleted while it ran
		t.LastRun = &run
		return t, nil
	}
	if now.LastRun == nil || now.LastRun.Session == run.Session {
		now.LastRun = &run
		if err := s.put(context.WithoutCancel(ctx), now); err != nil {
			return Task{}, err
		}
	}
	return now, nil
}

// RunDue runs the tasks due now, one after another, and says how many ran.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	due, err := s.store.DueTasks(ctx, s.now())
	if err != nil {
		return 0, err
	}
	ran := 0
	for _, rec := range due {
		if ctx.Err() != nil {
			break
		}
		s.mu.Lock()
		t, ok, err := s.get(ctx, rec.Name)
		var run Run
		if err == nil && ok {
			run, ok, err = s.start(ctx, t, true)
		}
		s.mu.Unlock()
		if err != nil {
			return ran, err
		}
		if !ok {
			continue
		}
		if _, err := s.finish(ctx, t, run); err != nil {
			return ran, err
		}
		ran++
	}
	return ran, nil
}

// MaxSleep bounds Loop's wait between looks at the tasks, so that one
// another process sharing the store adds is run near its time.
const MaxSleep = time.Minute

// Loop runs the tasks at their times until ctx ends. A task missed while
// nothing ran it runs once at the start, then on its schedule. Errors
// (the store's) go to logf, and Loop goes on.
func (s *Service) Loop(ctx context.Context, logf func(format string, a ...any)) {
	for {
		if _, err := s.RunDue(ctx); err != nil && ctx.Err() == nil {
			logf("scheduled tasks: %v", err)
		}
		wait := MaxSleep
		if next, ok, err := s.store.NextTaskRun(ctx); err == nil && ok {
			wait = min(max(next.Sub(s.now()), 0), MaxSleep)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-s.wake:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// Wake makes Loop look at the tasks again now: one was added or changed.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// IsError reports whether err is a refusal for the model (an *Error).
func IsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
