package store

import (
	"testing"
	"time"
)

// Tasks are kept by name; the due ones come earliest first, and a task
// that will not run again is never due.
func TestTasks(t *testing.T) { forBackends(t, testTasks) }

func testTasks(t *testing.T, be testBackend) {
	ctx := t.Context()
	db := openAt(t, be.where(t))
	at := func(h int) time.Time { return time.Date(2026, 11, 27, h, 0, 0, 0, time.UTC) }
	for _, task := range []Task{
		{Name: "later", NextRun: at(10), JSON: `{"n":1}`},
		{Name: "done", JSON: `{"n":2}`},
		{Name: "early", NextRun: at(8), JSON: `{"n":3}`},
	} {
		if err := db.PutTask(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PutTask(ctx, Task{Name: "later", NextRun: at(9), JSON: `{"n":4}`}); err != nil {
		t.Fatal(err)
	}
	names := func(ts []Task, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range ts {
			out = append(out, x.Name+":"+x.JSON)
		}
		return out
	}
	if got := names(db.Tasks(ctx)); len(got) != 3 || got[0] != `done:{"n":2}` || got[1] != `early:{"n":3}` || got[2] != `later:{"n":4}` {
		t.Errorf("Tasks = %q", got)
	}
	if got := names(db.DueTasks(ctx, at(9))); len(got) != 2 || got[0] != `early:{"n":3}` || got[1] != `later:{"n":4}` {
		t.Errorf("DueTasks at 9 = %q", got)
	}
	if next, ok, err := db.NextTaskRun(ctx); !ok || err != nil || !next.Equal(at(8)) {
		t.Errorf("NextTaskRun = %v %v %v", next, ok, err)
	}
	if task, ok, err := db.Task(ctx, "done"); !ok || err != nil || !task.NextRun.IsZero() {
		t.Errorf("Task(done) = %+v %v %v", task, ok, err)
	}
	if ok, err := db.DeleteTask(ctx, "early"); !ok || err != nil {
		t.Errorf("DeleteTask = %v %v", ok, err)
	}
	if ok, _ := db.DeleteTask(ctx, "early"); ok {
		t.Error("deleted twice")
	}
	if _, ok, _ := db.Task(ctx, "early"); ok {
		t.Error("still there")
	}
}

// ClaimTask replaces a task's record only while its next run is the one
// the caller found due: a second claim of the same run, or a claim of a
// task that will not run, changes nothing.
func TestClaimTask(t *testing.T) { forBackends(t, testClaimTask) }

func testClaimTask(t *testing.T, be testBackend) {
	ctx := t.Context()
	db := openAt(t, be.where(t))
	at := func(h int) time.Time { return time.Date(2026, 11, 27, h, 0, 0, 0, time.UTC) }
	if err := db.PutTask(ctx, Task{Name: "hourly", NextRun: at(9), JSON: `{"runs":0}`}); err != nil {
		t.Fatal(err)
	}
	claim := func(json string, next, due time.Time) bool {
		t.Helper()
		ok, err := db.ClaimTask(ctx, Task{Name: "hourly", NextRun: next, JSON: json}, due)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !claim(`{"runs":1}`, at(10), at(9)) {
		t.Fatal("the first claim of the 9 o'clock run was refused")
	}
	if claim(`{"runs":1,"again":true}`, at(10), at(9)) {
		t.Fatal("the 9 o'clock run was claimed twice")
	}
	if claim(`{"runs":1}`, at(10), at(8)) {
		t.Fatal("a run that was never due was claimed")
	}
	if !claim(`{"runs":2}`, time.Time{}, at(10)) {
		t.Fatal("the 10 o'clock run was refused")
	}
	got, ok, err := db.Task(ctx, "hourly")
	if err != nil || !ok || got.JSON != `{"runs":2}` || !got.NextRun.IsZero() {
		t.Fatalf("after the claims: %+v %v %v", got, ok, err)
	}
	if ok, err := db.ClaimTask(ctx, Task{Name: "hourly", JSON: `{}`}, time.Time{}); ok || err == nil {
		t.Errorf("claiming no run: %v, %v; want an error", ok, err)
	}
	if claim(`{}`, at(11), at(10)) {
		t.Error("a task that will not run again was claimed")
	}
}
