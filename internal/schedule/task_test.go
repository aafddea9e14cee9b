package schedule

import (
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 26, 23, 30, 0, 0, time.UTC)

func TestParseAt(t *testing.T) {
	for _, c := range []struct {
		name, at, tz string
		want         string
		wantErr      string
	}{
		{name: "UTC", at: "2026-11-27T09:00:00Z", want: "2026-11-27T09:00:00Z"},
		{name: "offset", at: "2026-11-27T09:00:00+01:00", want: "2026-11-27T08:00:00Z"},
		{name: "fraction dropped", at: "2026-11-27T09:00:00.750Z", want: "2026-11-27T09:00:00Z"},
		{name: "no offset, a zone", at: "2026-11-27T09:00", tz: "America/New_York", want: "2026-11-27T14:00:00Z"},
		{name: "no offset, no zone", at: "2026-11-27T09:00", wantErr: "has no offset: add one (Z for UTC, +01:00...) or give a timezone"},
		{name: "past", at: "2026-11-26T09:00:00Z", wantErr: "is not in the future (it is now 2026-11-26T23:30:00Z)"},
		{name: "now", at: "2026-11-26T23:30:00Z", wantErr: "is not in the future"},
		{name: "not a time", at: "tomorrow", wantErr: `at "tomorrow" is not an ISO 8601 time`},
		{name: "bad zone", at: "2026-11-27T09:00", tz: "Mars/Olympus", wantErr: `timezone "Mars/Olympus" is not an IANA time zone`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseAt(c.at, c.tz, now)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				if e, ok := IsError(err); !ok || e.Type != "invalid_arguments" {
					t.Errorf("err %v is not an invalid_arguments refusal", err)
				}
				return
			}
			if err != nil || stamp(got) != c.want {
				t.Fatalf("ParseAt = %v, %v, want %s", got, err, c.want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	for _, c := range []struct {
		name string
		task Task
		from time.Time
		want string
	}{
		{name: "weekdays at 9, Friday night", task: Task{Cron: "0 9 * * 1-5", Enabled: true}, from: time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC), want: "2026-11-30T09:00:00Z"},
		{name: "in a zone", task: Task{Cron: "0 9 * * *", Timezone: "Europe/Paris", Enabled: true}, from: now, want: "2026-11-27T08:00:00Z"},
		{name: "in a zone, summer time", task: Task{Cron: "0 9 * * *", Timezone: "Europe/Paris", Enabled: true}, from: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC), want: "2026-07-02T07:00:00Z"},
		{name: "every 15 minutes", task: Task{Cron: "*/15 * * * *", Enabled: true}, from: now, want: "2026-11-26T23:45:00Z"},
		{name: "descriptor", task: Task{Cron: "@daily", Enabled: true}, from: now, want: "2026-11-27T00:00:00Z"},
		{name: "once, ahead", task: Task{At: "2026-11-27T09:00:00Z", Enabled: true}, from: now, want: "2026-11-27T09:00:00Z"},
		{name: "once, passed", task: Task{At: "2026-11-26T09:00:00Z", Enabled: true}, from: now, want: ""},
		{name: "once, at its time", task: Task{At: "2026-11-26T23:30:00Z", Enabled: true}, from: now, want: ""},
		{name: "paused", task: Task{Cron: "* * * * *"}, from: now, want: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stamp(c.task.Next(c.from)); got != c.want {
				t.Errorf("Next = %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseCronRefuses(t *testing.T) {
	for _, c := range []struct{ expr, tz, want string }{
		{"0 9 * *", "", "give 5 fields, minute hour day-of-month month day-of-week"},
		{"0 9 * * * *", "", "give 5 fields"},
		{"61 * * * *", "", "give 5 fields"},
		{"CRON_TZ=Europe/Paris 0 9 * * *", "", "give the time zone in timezone"},
		{"@every 1h", "", "@every is not a cron schedule"},
		{"0 9 * * *", "../etc/passwd", "is not an IANA time zone"},
	} {
		if _, _, err := ParseCron(c.expr, c.tz); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCron(%q, %q) = %v, want %q", c.expr, c.tz, err, c.want)
		}
	}
}

func FuzzParseCron(f *testing.F) {
	for _, s := range []string{"0 9 * * 1-5", "*/15 * * * *", "@daily", "0 0 31 2 *", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s, loc, err := ParseCron(expr, "Europe/Paris")
		if err != nil {
			if _, ok := IsError(err); !ok {
				t.Fatalf("%q: %v is not a refusal for the model", expr, err)
			}
			return
		}
		if next := s.Next(now.In(loc)); !next.IsZero() && !next.After(now) {
			t.Fatalf("%q: next %v is not after %v", expr, next, now)
		}
	})
}

func FuzzParseAt(f *testing.F) {
	for _, s := range []string{"2026-11-27T09:00:00Z", "2026-11-27T09:00", "2026-11-27 09:00:00", "tomorrow"} {
		f.Add(s, "")
		f.Add(s, "Asia/Tokyo")
	}
	f.Fuzz(func(t *testing.T, at, tz string) {
		got, err := ParseAt(at, tz, now)
		if err != nil {
			if _, ok := IsError(err); !ok {
				t.Fatalf("%q %q: %v is not a refusal for the model", at, tz, err)
			}
			return
		}
		if !got.After(now) || got.Location() != time.UTC {
			t.Fatalf("%q %q gave %v", at, tz, got)
		}
	})
}
