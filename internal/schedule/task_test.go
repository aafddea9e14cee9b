package schedule

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 26, 23, 30, 0, 0, time.UTC)

// timeCase is one of testdata/schedules/cases.json: a task's new at or
// its cron, in a zone, read at now, and the module's reading of it (Want)
// or its refusal (Error).
type timeCase struct {
	Name     string      `json:"name"`
	Now      string      `json:"now"`
	At       string      `json:"at"`
	Cron     string      `json:"cron"`
	Timezone string      `json:"timezone"`
	Want     *TimeAnswer `json:"want"`
	Error    string      `json:"error"`
}

// TestTimeCases replays testdata/schedules/cases.json, as
// web/packages/toolroute/test/schedules.test.js does: the module reads the times, with the
// zones' offsets from this program's tz database.
func TestTimeCases(t *testing.T) {
	b, err := os.ReadFile("../../testdata/schedules/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []timeCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	ctx := opCtx(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			now, err := time.Parse(time.RFC3339Nano, c.Now)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadTime(ctx, c.At, c.Cron, c.Timezone, now)
			if c.Error != "" {
				if e, ok := IsError(err); !ok || e.Type != "invalid_arguments" || e.Message != c.Error {
					t.Fatalf("err = %v, want the refusal %q", err, c.Error)
				}
				return
			}
			if err != nil || got != *c.Want {
				t.Fatalf("ReadTime = %+v, %v, want %+v", got, err, *c.Want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	ctx := opCtx(t)
	for _, c := range []struct {
		name string
		task Task
		from time.Time
		want string
	}{
		{name: "cron", task: Task{Cron: "0 9 * * *", Timezone: "Europe/Paris", Enabled: true}, from: now, want: "2026-11-27T08:00:00Z"},
		{name: "once, ahead", task: Task{At: "2026-11-27T09:00:00Z", Enabled: true}, from: now, want: "2026-11-27T09:00:00Z"},
		{name: "once, passed", task: Task{At: "2026-11-26T09:00:00Z", Enabled: true}, from: now, want: ""},
		{name: "once, at its time", task: Task{At: "2026-11-26T23:30:00Z", Enabled: true}, from: now, want: ""},
		{name: "a zone gone from the database", task: Task{Cron: "0 9 * * *", Timezone: "Mars/Olympus", Enabled: true}, from: now, want: ""},
		{name: "paused", task: Task{Cron: "* * * * *"}, from: now, want: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stamp(c.task.Next(ctx, c.from)); got != c.want {
				t.Errorf("Next = %q, want %q", got, c.want)
			}
		})
	}
}

// TestZoneOffsets: the offsets this program gives the module are those of
// its tz database, each change of the window once.
func TestZoneOffsets(t *testing.T) {
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	z := zoneOffsets("Europe/Paris", from, to)
	want := []struct{ from, off int64 }{{from, 3600}, {time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC).Unix(), 7200}, {time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC).Unix(), 3600}}
	if !z.Known || len(z.Offsets) != len(want) {
		t.Fatalf("zoneOffsets = %+v, want %v", z, want)
	}
	for i, w := range want {
		if z.Offsets[i].From != w.from || z.Offsets[i].Offset != w.off {
			t.Errorf("offset %d = %+v, want %v", i, z.Offsets[i], w)
		}
	}
	if z := zoneOffsets("Mars/Olympus", from, to); z.Known {
		t.Errorf("an unknown zone is known: %+v", z)
	}
}
