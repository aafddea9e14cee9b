package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TaskTime is a scheduled task's time as the host gives it to be read
// (op task_time): a new one-shot At, the task's Cron (new or kept), its
// Timezone ("" or UTC for UTC), the host's clock (Now, RFC 3339) and, once
// the module asked for it, the zone's offsets (Zone).
//
// The module has no tz database (docs/design/checks.md): a task in a zone
// other than UTC is read in two calls. The first answers the window of
// instants whose offsets it needs ({"args": {"zone": {"from", "to"}}},
// Unix seconds); the host reads them from its own zone database and asks
// again with Zone.
type TaskTime struct {
	At       *string `json:"at"`
	Cron     *string `json:"cron"`
	Timezone string  `json:"timezone"`
	Now      string  `json:"now"`
	Zone     *Zone   `json:"zone"`
}

// Zone is what a host's zone database says of a time zone over a window:
// whether it knows the zone (Known), and if it does, the window (From and
// To, Unix seconds) and the offsets in force over it, the first in force
// at From, each after it from its own From on.
type Zone struct {
	Known   bool         `json:"known"`
	From    int64        `json:"from"`
	To      int64        `json:"to"`
	Offsets []ZoneOffset `json:"offsets"`
}

// ZoneOffset is a zone's offset east of UTC in seconds (Offset), in force
// from the Unix second From until the next one's.
type ZoneOffset struct {
	From   int64 `json:"from"`
	Offset int64 `json:"offset"`
}

// Window is the span of instants (Unix seconds) whose offsets the module
// needs to read a task's time in its zone: a cron schedule's first asks
// for about a month ahead, and a second for CronYears when the month has
// no run.
type Window struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// CronYears is how far ahead a cron schedule's next run is looked for;
// a schedule that matches no day in that time never runs.
const CronYears = 5

// cronFirstDays is how far ahead the first window of a zone's offsets a
// cron schedule asks for goes: most schedules run within a month, and a
// host reading offsets from Intl pays for every day of the window, so the
// module asks for the CronYears only when the month has no run.
const cronFirstDays = 40

const day = 24 * 60 * 60

// maxOffset bounds an offset a host may give: no zone is further from UTC
// than a day.
const maxOffset = day

// taskTime reads t: a refusal, the window of the zone's offsets it needs,
// or the task's time: At (a new one-shot time, UTC) and NextRun (when it
// runs next after Now, "" never). An error is the host's mistake.
func (t TaskTime) check() (Answer, error) {
	type out struct {
		At      string `json:"at,omitempty"`
		NextRun string `json:"next_run"`
	}
	now, err := time.Parse(time.RFC3339Nano, t.Now)
	if err != nil {
		return Answer{}, fmt.Errorf("check task_time: now %q is not an RFC 3339 time", t.Now)
	}
	at, cron := trimmed(t.At), trimmed(t.Cron)
	var (
		fixed  time.Time // a new at with its offset
		local  time.Time // a new at without one, its wall clock as UTC
		sched  *schedule
		window = Window{now.Unix(), now.Unix()}
	)
	switch {
	case at != "":
		fixed, local, err = readAt(at, t.Timezone)
		if err != nil {
			return refuse(err.Error()), nil
		}
		if !local.IsZero() {
			window = Window{local.Unix() - 2*day, local.Unix() + 2*day}
		}
	case cron != "":
		if sched, err = readCron(cron); err != nil {
			return refuse(err.Error()), nil
		}
		window = Window{now.Unix() - 3*day, now.Unix() + (cronFirstDays+3)*day}
	}
	z, zoned := utc, t.Timezone != "" && t.Timezone != "UTC"
	if tz := t.Timezone; zoned {
		if strings.HasPrefix(tz, "/") || strings.Contains(tz, "..") || t.Zone != nil && !t.Zone.Known {
			return refuse(fmt.Sprintf("timezone %q is not an IANA time zone: give one such as Europe/Paris or America/New_York, or leave it out for UTC", tz)), nil
		}
		if t.Zone == nil {
			return Answer{Args: struct {
				Zone Window `json:"zone"`
			}{window}}, nil
		}
		if z, err = t.Zone.offsets(window); err != nil {
			return Answer{}, err
		}
	}
	switch {
	case at != "":
		when := fixed
		if !local.IsZero() {
			when = time.Unix(z.instant(local), 0)
		}
		if !when.After(now) {
			return refuse(fmt.Sprintf("at %s is not in the future (it is now %s): give a later time", stampOf(when), stampOf(now))), nil
		}
		s := stampOf(when)
		return Answer{Args: out{At: s, NextRun: s}}, nil
	case sched != nil:
		days := CronYears * 366
		if zoned {
			days = int((t.Zone.To-now.Unix())/day) - 3
		}
		next, done := sched.next(now, z, days)
		if !done {
			return Answer{Args: struct {
				Zone Window `json:"zone"`
			}{Window{now.Unix() - 3*day, now.Unix() + (CronYears*366+3)*day}}}, nil
		}
		return Answer{Args: out{NextRun: stampOf(next)}}, nil
	}
	return Answer{}, nil
}

func trimmed(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// stampOf is a time as a task holds it: UTC, RFC 3339, to the second; ""
// for the zero time.
func stampOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// readAt reads a one-shot time: RFC 3339 with an offset or Z (fixed), or
// a wall-clock time in the task's zone (local, its fields read as UTC),
// which then must be given.
func readAt(s, tz string) (fixed, local time.Time, err error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if local, err = time.Parse(layout, s); err == nil {
			break
		}
	}
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("at %q is not an ISO 8601 time: give one such as 2026-11-28T09:00:00+01:00 or 2026-11-28T08:00:00Z", s)
	}
	if tz == "" {
		return time.Time{}, time.Time{}, fmt.Errorf("at %q has no offset: add one (Z for UTC, +01:00...) or give a timezone", s)
	}
	return time.Time{}, local, nil
}

// zoneRules is a zone's offsets over a window, sorted by From.
type zoneRules []ZoneOffset

var utc = zoneRules{{From: -1 << 62}}

// offsets checks that z covers need and is one a zone database could give.
func (z *Zone) offsets(need Window) (zoneRules, error) {
	switch {
	case len(z.Offsets) == 0 || z.Offsets[0].From > z.From:
		return nil, fmt.Errorf("check task_time: zone.offsets does not start at zone.from: give the offset in force at from first")
	case z.From > need.From || z.To < need.To:
		return nil, fmt.Errorf("check task_time: the zone's window %d..%d does not cover %d..%d: give the offsets of the window the module asked for", z.From, z.To, need.From, need.To)
	}
	for i, o := range z.Offsets {
		if o.Offset < -maxOffset || o.Offset > maxOffset {
			return nil, fmt.Errorf("check task_time: zone offset %d is not within a day of UTC: give seconds east of UTC", o.Offset)
		}
		if i > 0 && o.From <= z.Offsets[i-1].From {
			return nil, fmt.Errorf("check task_time: zone.offsets are not in order of from")
		}
	}
	return zoneRules(z.Offsets), nil
}

// at is the offset in force at the Unix second s.
func (z zoneRules) at(s int64) int64 {
	i, _ := slices.BinarySearchFunc(z, s, func(o ZoneOffset, s int64) int {
		switch {
		case o.From < s:
			return -1
		case o.From > s:
			return 1
		}
		return 0
	})
	if i < len(z) && z[i].From == s {
		return z[i].Offset
	}
	if i == 0 {
		return z[0].Offset
	}
	return z[i-1].Offset
}

// instant is the Unix second of a wall-clock time (its fields read as
// UTC, w) in the zone. A wall time the zone skips (the hour clocks go
// forward) is read with the offset before the jump, so it falls after
// it; one that happens twice is its second.
func (z zoneRules) instant(w time.Time) int64 {
	guess := w.Unix()
	first := guess - z.at(guess)
	return guess - z.at(first)
}

// wall is the wall clock in the zone at the Unix second s, as UTC fields.
func (z zoneRules) wall(s int64) time.Time {
	return time.Unix(s+z.at(s), 0).UTC()
}

// schedule is a cron schedule read: the values each field matches, and
// whether each day field starts with * or ?: a day then matches when
// both day fields do if either has one, else when either does.
type schedule struct {
	minutes, hours, doms, months, dows []bool
	domStar, dowStar                   bool
}

type cronField struct {
	name     string
	min, max int
	names    []string
}

var cronFields = []cronField{
	{name: "minute", max: 59},
	{name: "hour", max: 23},
	{name: "day of month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{name: "day of week", max: 6, names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

// descriptor is the 5 fields a descriptor (@daily...) stands for, or "".
// A switch, not a map: a package-level map is filled when the module
// starts (docs/design/startup.md).
func descriptor(expr string) string {
	switch expr {
	case "@yearly", "@annually":
		return "0 0 1 1 *"
	case "@monthly":
		return "0 0 1 * *"
	case "@weekly":
		return "0 0 * * 0"
	case "@daily", "@midnight":
		return "0 0 * * *"
	case "@hourly":
		return "0 * * * *"
	}
	return ""
}

func cronFailure(expr, why string) error {
	return fmt.Errorf("cron %q: %s: give 5 fields, minute hour day-of-month month day-of-week, such as 0 9 * * 1-5 (9:00 on weekdays)", expr, why)
}

// readCron reads the standard 5 fields (minute, hour, day of month, month,
// day of week, with ranges, steps, lists and names) or a descriptor
// (@daily, @hourly...).
func readCron(expr string) (*schedule, error) {
	if strings.HasPrefix(expr, "CRON_TZ=") || strings.HasPrefix(expr, "TZ=") {
		return nil, fmt.Errorf("cron %q: give the time zone in timezone, not in the schedule", expr)
	}
	if strings.HasPrefix(expr, "@every") {
		return nil, fmt.Errorf("cron %q: @every is not a cron schedule: give 5 fields, such as */30 * * * * for every 30 minutes", expr)
	}
	text := expr
	if strings.HasPrefix(expr, "@") {
		if text = descriptor(expr); text == "" {
			return nil, cronFailure(expr, "unknown descriptor")
		}
	}
	parts := strings.Fields(text)
	if len(parts) != 5 {
		return nil, cronFailure(expr, fmt.Sprintf("%d fields", len(parts)))
	}
	sets := make([][]bool, 5)
	for i, p := range parts {
		set, err := cronFields[i].read(p, expr)
		if err != nil {
			return nil, err
		}
		sets[i] = set
	}
	star := func(p string) bool { return strings.HasPrefix(p, "*") || strings.HasPrefix(p, "?") }
	return &schedule{minutes: sets[0], hours: sets[1], doms: sets[2], months: sets[3], dows: sets[4], domStar: star(parts[2]), dowStar: star(parts[4])}, nil
}

// read reads one field into the values it matches (indexed by value).
func (f cronField) read(text, expr string) ([]bool, error) {
	set := make([]bool, f.max+1)
	value := func(v string) (int, error) {
		if i := slices.Index(f.names, strings.ToLower(v)); i >= 0 {
			return i + f.min, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || strings.TrimLeft(v, "0123456789") != "" || n < f.min || n > f.max {
			return 0, cronFailure(expr, fmt.Sprintf("%s %q is not a value from %d to %d", f.name, v, f.min, f.max))
		}
		return n, nil
	}
	for _, part := range strings.Split(text, ",") {
		rs := strings.Split(part, "/")
		if len(rs) > 2 || rs[0] == "" {
			return nil, cronFailure(expr, fmt.Sprintf("%s %q is not a value, range or step", f.name, part))
		}
		rng := rs[0]
		var lo, hi int
		var err error
		switch {
		case rng == "*" || rng == "?":
			lo, hi = f.min, f.max
		case strings.Contains(rng, "-"):
			ab := strings.Split(rng, "-")
			if len(ab) > 2 {
				return nil, cronFailure(expr, fmt.Sprintf("%s %q is not a range", f.name, part))
			}
			if lo, err = value(ab[0]); err != nil {
				return nil, err
			}
			if hi, err = value(ab[1]); err != nil {
				return nil, err
			}
		default:
			if lo, err = value(rng); err != nil {
				return nil, err
			}
			hi = lo
			if len(rs) == 2 {
				hi = f.max
			}
		}
		step := 1
		if len(rs) == 2 {
			step = 0
			if n, err := strconv.Atoi(rs[1]); err == nil && strings.TrimLeft(rs[1], "0123456789") == "" {
				step = n
			}
			if step < 1 {
				return nil, cronFailure(expr, fmt.Sprintf("%s step %q is not a number from 1", f.name, rs[1]))
			}
		}
		if lo > hi {
			return nil, cronFailure(expr, fmt.Sprintf("%s range %q runs backwards", f.name, rng))
		}
		for v := lo; v <= hi; v += step {
			set[v] = true
		}
	}
	return set, nil
}

// next is the schedule's first time after now in the zone, looking
// CronYears ahead from now's day there, or the zero time; done is false
// when it looked only days ahead (the zone's offsets it has) and found
// none.
func (s *schedule) next(now time.Time, z zoneRules, days int) (next time.Time, done bool) {
	w := z.wall(now.Unix())
	days = min(days, CronYears*366)
	for i := 0; i <= days; i++ {
		d := time.Date(w.Year(), w.Month(), w.Day()+i, 0, 0, 0, 0, time.UTC)
		if !s.months[d.Month()] {
			continue
		}
		dom, dow := s.doms[d.Day()], s.dows[d.Weekday()]
		if s.domStar || s.dowStar {
			if !(dom && dow) {
				continue
			}
		} else if !(dom || dow) {
			continue
		}
		for h, ok := range s.hours {
			if !ok {
				continue
			}
			for m, ok := range s.minutes {
				if !ok {
					continue
				}
				t := time.Unix(z.instant(d.Add(time.Duration(h)*time.Hour+time.Duration(m)*time.Minute)), 0)
				if t.After(now) {
					return t, true
				}
			}
		}
	}
	return time.Time{}, days == CronYears*366
}

// TaskNames is a scheduled task's name as an operation gives it (Name),
// with the names of the tasks the host holds (Names, as its store lists
// them), for an operation that creates one (Create) or one that reads,
// changes, runs or deletes it.
type TaskNames struct {
	Name   string   `json:"name"`
	Names  []string `json:"names"`
	Create bool     `json:"create"`
}

// check refuses a new task whose name is taken or that would be one too
// many, and a task that is not there, naming those that are.
func (t TaskNames) check() Answer {
	there := slices.Contains(t.Names, t.Name)
	switch {
	case t.Create && there:
		return refuse(fmt.Sprintf("a task %q exists: update_scheduled_task changes it, or give another name", t.Name))
	case t.Create && len(t.Names) >= MaxTasks:
		return refuse(fmt.Sprintf("there are %d tasks, the most kept: delete_scheduled_task removes one first", len(t.Names)))
	case t.Create || there:
		return Answer{}
	case len(t.Names) == 0:
		return Answer{Error: &Refusal{Type: "not_found", Message: fmt.Sprintf("no task %q: there are no scheduled tasks; schedule_task creates one", t.Name)}}
	}
	return Answer{Error: &Refusal{Type: "not_found", Message: fmt.Sprintf("no task %q: the tasks are %s", t.Name, strings.Join(t.Names, ", "))}}
}

// MaxTasks bounds the scheduled tasks a host keeps.
const MaxTasks = 100
