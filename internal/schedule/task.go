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
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/toolroute/toolroute/internal/module"
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
	MaxTasks       = 100
)

// Error is a refusal the model reads: Type is the tool result's error type
// (invalid_arguments, not_found).
type Error struct {
	Type, Message string
}

// Error is the message.
func (e *Error) Error() string { return e.Message }

func invalid(format string, a ...any) error {
	return &Error{Type: "invalid_arguments", Message: fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) error {
	return &Error{Type: "not_found", Message: fmt.Sprintf(format, a...)}
}

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

// location is the IANA time zone tz, UTC for "".
func location(tz string) (*time.Location, error) {
	if tz == "" || tz == "UTC" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || strings.HasPrefix(tz, "/") || strings.Contains(tz, "..") {
		return nil, invalid("timezone %q is not an IANA time zone: give one such as Europe/Paris or America/New_York, or leave it out for UTC", tz)
	}
	return loc, nil
}

// ParseAt reads a one-shot task's time: ISO 8601 (RFC 3339) with an offset
// or Z; without one, the time in tz, which is then required. It must be
// after now.
func ParseAt(s, tz string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		var local time.Time
		for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
			if local, err = time.Parse(layout, s); err == nil {
				break
			}
		}
		if err != nil {
			return time.Time{}, invalid("at %q is not an ISO 8601 time: give one such as 2026-11-28T09:00:00+01:00 or 2026-11-28T08:00:00Z", s)
		}
		if tz == "" {
			return time.Time{}, invalid("at %q has no offset: add one (Z for UTC, +01:00...) or give a timezone", s)
		}
		loc, err := location(tz)
		if err != nil {
			return time.Time{}, err
		}
		t = time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(), 0, loc)
	}
	if !t.After(now) {
		return time.Time{}, invalid("at %s is not in the future (it is now %s): give a later time", stamp(t), stamp(now))
	}
	return t.UTC().Truncate(time.Second), nil
}

// cronParser reads the standard 5 fields (minute, hour, day of month,
// month, day of week) and the @daily, @hourly... descriptors.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron checks a cron schedule and its time zone.
func ParseCron(expr, tz string) (cron.Schedule, *time.Location, error) {
	expr = strings.TrimSpace(expr)
	if strings.HasPrefix(expr, "CRON_TZ=") || strings.HasPrefix(expr, "TZ=") {
		return nil, nil, invalid("cron %q: give the time zone in timezone, not in the schedule", expr)
	}
	if strings.HasPrefix(expr, "@every") {
		return nil, nil, invalid("cron %q: @every is not a cron schedule: give 5 fields, such as */30 * * * * for every 30 minutes", expr)
	}
	s, err := cronParser.Parse(expr)
	if err != nil {
		return nil, nil, invalid("cron %q: %v: give 5 fields, minute hour day-of-month month day-of-week, such as 0 9 * * 1-5 (9:00 on weekdays)", expr, err)
	}
	loc, err := location(tz)
	if err != nil {
		return nil, nil, err
	}
	return s, loc, nil
}

// Next is when t runs next after now, the zero time if never: its At if
// that is after now, or its cron schedule's next time after now. A
// disabled task never runs.
func (t Task) Next(now time.Time) time.Time {
	if !t.Enabled {
		return time.Time{}
	}
	if t.Cron != "" {
		s, loc, err := ParseCron(t.Cron, t.Timezone)
		if err != nil {
			return time.Time{}
		}
		return s.Next(now.In(loc)).UTC()
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
