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
	db, err := Open(ctx, be.where(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
