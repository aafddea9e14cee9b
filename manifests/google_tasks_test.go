package manifests_test

import (
	"encoding/json"
	"testing"

	"github.com/toolroute/toolroute/internal/fakegoogle"
)

func init() {
	errorProbes = append(errorProbes, errorProbe{"google_tasks", "tasks_list", `{}`})
}

func TestGoogleTasks(t *testing.T) {
	g := newGoogle(t)
	const def = "MDk5NTc0ODk0NDU2NzY3NDQ4NzM6MDow"

	g.Call("tasks_list_task_lists", `{}`, "2 task lists:", "- My Tasks (id: "+def+") [default]", "- Projects (id: UFJPSkVDVFM6MTow)")
	out := g.Call("tasks_create_task_list", `{"title":"Groceries"}`, `Created the task list "Groceries" (id: `)
	if body := string(g.Last().Body); body != `{"title":"Groceries"}` {
		t.Errorf("create list body = %s", body)
	}
	_ = out

	// Open tasks only by default; the query says so.
	g.Call("tasks_list", `{}`, "2 tasks:", "- [ ] Renew passport (id: dGFzay0x, due 2026-11-28)\n  Photos are in the drawer", "- [ ] Book dentist (id: dGFzay0y)")
	if q := g.Last().Query; q.Get("showCompleted") != "false" || q.Get("maxResults") != "20" || g.Last().Path != "/tasks/v1/lists/@default/tasks" {
		t.Errorf("list request: %s %v", g.Last().Path, q)
	}
	g.Call("tasks_list", `{"show_completed":true,"due_before":"2026-11-20"}`, "1 task:", "- [x] Pay electricity bill (id: dGFzay0z, due 2026-11-15, completed 2026-11-14)")
	if q := g.Last().Query; q.Get("dueMax") != "2026-11-20T23:59:59.999Z" || q.Get("showHidden") != "true" {
		t.Errorf("list query: %v", q)
	}
	g.Call("tasks_list", `{"tasklist_id":"UFJPSkVDVFM6MTow"}`, "Draft the Q1 plan")
	g.Fail("tasks_list", `{"tasklist_id":"nope"}`, "HTTP 404", "No task list nope: find its id with tasks_list_task_lists")

	g.Call("tasks_get", `{"task_id":"dGFzay0x"}`, "Title: Renew passport", "Due: 2026-11-28", "Status: needs action", "Notes: Photos are in the drawer", "Link: https://tasks.google.com/task/dGFzay0x")
	g.Fail("tasks_get", `{"task_id":"gone"}`, "HTTP 404", "No task gone in the default list: find the id with tasks_list")

	out = g.Call("tasks_create", `{"title":"Buy milk","notes":"2 litres","due":"2026-11-22"}`, `Created the task "Buy milk" (id: `, "due 2026-11-22")
	var body map[string]any
	json.Unmarshal(g.Last().Body, &body)
	if body["title"] != "Buy milk" || body["notes"] != "2 litres" || body["due"] != "2026-11-22T00:00:00.000Z" {
		t.Errorf("create body = %v", body)
	}
	g.Call("tasks_create", `{"title":"Bring ID","parent_task_id":"dGFzay0x"}`, `Created the task "Bring ID"`)
	if g.Last().Query.Get("parent") != "dGFzay0x" {
		t.Errorf("subtask query = %v", g.Last().Query)
	}
	g.Fail("tasks_create", `{"title":"x","due":"next friday"}`, "due must be a date as YYYY-MM-DD")
	g.Fail("tasks_create", `{"title":"  "}`, "Missing title")

	g.Call("tasks_update", `{"task_id":"dGFzay0y","title":"Book dentist for Tuesday","due":""}`, "Updated:", "- [ ] Book dentist for Tuesday (id: dGFzay0y)")
	json.Unmarshal(g.Last().Body, &body)
	if g.Last().Method != "PATCH" || body["due"] != "" {
		t.Errorf("update: %s %s", g.Last().Method, g.Last().Body)
	}
	g.Fail("tasks_update", `{"task_id":"dGFzay0y"}`, "Nothing to change")

	g.Call("tasks_complete", `{"task_id":"dGFzay0x"}`, "Completed: Renew passport (id: dGFzay0x).")
	if string(g.Last().Body) != `{"status":"completed"}` {
		t.Errorf("complete body = %s", g.Last().Body)
	}
	g.Call("tasks_complete", `{"task_id":"dGFzay0x","undo":true}`, "Marked as not done: Renew passport")
	g.Fail("tasks_complete", `{"task_id":"nope"}`, "HTTP 404", "find the id with tasks_list")

	g.Call("tasks_delete", `{"task_id":"dGFzay0y"}`, "Deleted the task dGFzay0y.")
	if g.Last().Method != "DELETE" {
		t.Errorf("delete method = %s", g.Last().Method)
	}
	g.Fail("tasks_get", `{"task_id":"dGFzay0y"}`, "HTTP 404")

	// Read-only access lists but cannot change.
	g.Token(g.G.TokenWith("https://www.googleapis.com/auth/tasks.readonly"))
	g.Call("tasks_list", `{}`, "Renew passport")
	g.Fail("tasks_create", `{"title":"x"}`, "HTTP 403", "https://www.googleapis.com/auth/tasks,")
	g.Token(fakegoogle.Token)
}
