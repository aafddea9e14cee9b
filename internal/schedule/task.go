// Package schedule holds the scheduled_tasks group's tasks in the Go
// program: what a task is (a prompt, run once at a time or on a cron
// schedule), the checks on what a tool call gives, the store of tasks and
// the runs themselves, each an agent turn in a session of its own (run.go).
// It does not decide when to wake up in a host: serve calls Loop.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/check"
)

// Task is a scheduled task as the hosts keep it and the toolroute bridge's
// schedules.* operations answer it: a name, the prompt its run sends as
// the user's message, and when: once at At, or on the 5-field cron
// schedule Cron in Timezone. Times are UTC, RFC 3339, to the second.
type Task struct {
	Name     string `json:"name"`
	Prompt   string `json:"prompt"`
	At       string `json:"at,omitempty"`
	Cron     string `json:"cron,omitempty"`
	Timezone string `json:"timezone,omitempty"`
	Enabled  bool   `json:"enabled"`
	// NextRun is "" when the task will not run again: a one-shot task
	// that ran, or a disabled one.
	NextRun string `json:"next_run,omitempty"`
	Created string `json:"created"`
	Runs    int    `json:"runs"`
	LastRun *Run   `json:"last_run,omitempty"`
}

// Run is a task's run: the session it ran in, when, how it ended
// (running, done or failed) and its answer or failure, cut to
// MaxResultChars.
type Run struct {
	Session string `json:"session"`
	Started string `json:"started"`
	Status  string `json:"status"`
	Result  string `json:"result"`
}

// The statuses of a run.
const (
	StatusRunning = "running"
	StatusDone    = "done"
	StatusFailed  = "failed"
)

// Bounds on what a task holds.
const (
	MaxResultChars = 2000
	MaxTasks       = check.MaxTasks
)

// Error is a refusal the model reads: Type is the tool result's error type
// (invalid_arguments, not_found).
type Error struct {
	Type, Message string
}

// Error is the message.
func (e *Error) Error() string { return e.Message }

// stamp is a time as a task holds it.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func parseStamp(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// CheckName asks the module whether name may be a task's (ctx's
// module.Checker; wasm/ABI.md, toolroute_check): its refusal is an *Error.
func CheckName(ctx context.Context, name string) error {
	err := module.CheckArgs(ctx, "task_name", struct {
		Name string `json:"name"`
	}{name}, nil)
	var r *module.Refused
	if errors.As(err, &r) {
		return &Error{Type: r.Type, Message: r.Message}
	}
	return err
}

// TimeAnswer is the module's reading of a task's time (task_time): a new
// one-shot time, UTC (At), and when the task runs next after now
// (NextRun, "" never), both RFC 3339 to the second.
type TimeAnswer struct {
	At      string `json:"at"`
	NextRun string `json:"next_run"`
}

// ReadTime has the module read a task's time (wasm/ABI.md, toolroute_check's
// task_time): at, a new one-shot time ("" for none), must be after now;
// cron, the task's schedule ("" for none), gives its next run after now;
// both in the IANA zone tz ("" for UTC). The module has no tz database:
// when it asks for a zone's offsets, ReadTime reads them from this
// program's (time.LoadLocation) and asks again. A refusal is an *Error.
func ReadTime(ctx context.Context, at, cron, tz string, now time.Time) (TimeAnswer, error) {
	type args struct {
		At       string      `json:"at"`
		Cron     string      `json:"cron"`
		Timezone string      `json:"timezone"`
		Now      string      `json:"now"`
		Zone     *check.Zone `json:"zone,omitempty"`
	}
	a := args{At: at, Cron: cron, Timezone: tz, Now: now.UTC().Format(time.RFC3339Nano)}
	for range 3 {
		var out struct {
			TimeAnswer
			Zone *struct{ From, To int64 } `json:"zone"`
		}
		err := module.CheckArgs(ctx, "task_time", a, &out)
		var r *module.Refused
		if errors.As(err, &r) {
			return TimeAnswer{}, &Error{Type: r.Type, Message: r.Message}
		}
		if err != nil {
			return TimeAnswer{}, err
		}
		if out.Zone == nil {
			return out.TimeAnswer, nil
		}
		a.Zone = zoneOffsets(tz, out.Zone.From, out.Zone.To)
	}
	return TimeAnswer{}, fmt.Errorf("schedule: the module asked three times for the offsets of %q", tz)
}

// zoneOffsets reads the offsets of the zone tz from from to to (Unix
// seconds) in this program's tz database: the one in force at from,
// then each change (time.Time.ZoneBounds).
func zoneOffsets(tz string, from, to int64) *check.Zone {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return &check.Zone{}
	}
	z := &check.Zone{Known: true, From: from, To: to}
	add := func(t time.Time) {
		_, off := t.Zone()
		z.Offsets = append(z.Offsets, check.ZoneOffset{From: t.Unix(), Offset: int64(off)})
	}
	t := time.Unix(from, 0).In(loc)
	add(t)
	for {
		_, end := t.ZoneBounds()
		if end.IsZero() || end.Unix() > to || !end.After(t) {
			return z
		}
		t = end
		add(t)
	}
}

// Next is when t runs next after now, the zero time if never: its At if
// that is after now, or its cron schedule's next time after now as the
// module reads it. A disabled task never runs.
func (t Task) Next(ctx context.Context, now time.Time) time.Time {
	if !t.Enabled {
		return time.Time{}
	}
	if t.Cron != "" {
		a, err := ReadTime(ctx, "", t.Cron, t.Timezone, now)
		if err != nil {
			return time.Time{}
		}
		return parseStamp(a.NextRun)
	}
	if at := parseStamp(t.At); at.After(now) {
		return at
	}
	return time.Time{}
}

// When says when a task runs, for the model and the user.
func (t Task) When() string {
	if t.Cron != "" {
		tz := t.Timezone
		if tz == "" {
			tz = "UTC"
		}
		return "on the cron schedule " + t.Cron + " (" + tz + ")"
	}
	return "once at " + t.At
}
