package fakegoogle

import (
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Google Tasks API v1: https://developers.google.com/workspace/tasks/reference/rest

const (
	scopeTasks         = "https://www.googleapis.com/auth/tasks"
	scopeTasksReadonly = "https://www.googleapis.com/auth/tasks.readonly"
)

var (
	tasksRead  = []string{scopeTasks, scopeTasksReadonly}
	tasksWrite = []string{scopeTasks}
)

// TaskList is a tasks#taskList resource.
type TaskList struct {
	Kind     string `json:"kind"`
	ID       string `json:"id"`
	ETag     string `json:"etag"`
	Title    string `json:"title"`
	Updated  string `json:"updated"`
	SelfLink string `json:"selfLink"`
}

// Task is a tasks#task resource.
type Task struct {
	Kind        string `json:"kind"`
	ID          string `json:"id"`
	ETag        string `json:"etag"`
	Title       string `json:"title"`
	Updated     string `json:"updated"`
	SelfLink    string `json:"selfLink"`
	Parent      string `json:"parent,omitempty"`
	Position    string `json:"position"`
	Notes       string `json:"notes,omitempty"`
	Status      string `json:"status"`
	Due         string `json:"due,omitempty"`
	Completed   string `json:"completed,omitempty"`
	Deleted     bool   `json:"deleted,omitempty"`
	Hidden      bool   `json:"hidden,omitempty"`
	WebViewLink string `json:"webViewLink"`
}

// TasksState is the Tasks service's data.
type TasksState struct {
	Lists []*TaskList
	Tasks map[string][]*Task // by list id, in position order
}

// Tasks returns the Tasks service's state.
func (s *Server) Tasks() *TasksState {
	return State(s, "tasks", func() *TasksState {
		now := "2026-11-20T09:00:00.000Z"
		st := &TasksState{Tasks: map[string][]*Task{}}
		for _, l := range []struct{ id, title string }{{"MDk5NTc0ODk0NDU2NzY3NDQ4NzM6MDow", "My Tasks"}, {"UFJPSkVDVFM6MTow", "Projects"}} {
			st.Lists = append(st.Lists, &TaskList{Kind: "tasks#taskList", ID: l.id, ETag: `"LTExNjQ1NTk0MDI"`, Title: l.title, Updated: now,
				SelfLink: "https://www.googleapis.com/tasks/v1/users/@me/lists/" + l.id})
		}
		def := st.Lists[0].ID
		st.Tasks[def] = []*Task{
			task(def, "dGFzay0x", "Renew passport", "Photos are in the drawer", "needsAction", "2026-11-28T00:00:00.000Z", "00000000000000000000"),
			task(def, "dGFzay0y", "Book dentist", "", "needsAction", "", "00000000000000000001"),
			task(def, "dGFzay0z", "Pay electricity bill", "", "completed", "2026-11-15T00:00:00.000Z", "00000000000000000002"),
		}
		st.Tasks[def][2].Completed = "2026-11-14T18:22:10.000Z"
		st.Tasks[st.Lists[1].ID] = []*Task{task(st.Lists[1].ID, "dGFzay00", "Draft the Q1 plan", "", "needsAction", "", "00000000000000000000")}
		return st
	})
}

func task(list, id, title, notes, status, due, pos string) *Task {
	return &Task{Kind: "tasks#task", ID: id, ETag: `"MTcxNjQ1NTk0MDI"`, Title: title, Updated: "2026-11-20T09:00:00.000Z",
		SelfLink: "https://www.googleapis.com/tasks/v1/lists/" + list + "/tasks/" + id, Position: pos, Notes: notes,
		Status: status, Due: due, WebViewLink: "https://tasks.google.com/task/" + id}
}

func (st *TasksState) list(id string) *TaskList {
	if id == "@default" {
		return st.Lists[0]
	}
	return first(st.Lists, func(l *TaskList) bool { return l.ID == id })
}

func (st *TasksState) task(list, id string) *Task {
	return first(st.Tasks[list], func(t *Task) bool { return t.ID == id && !t.Deleted })
}

// taskInput is the writable part of a task, as insert and patch take it.
type taskInput struct {
	Title  *string `json:"title"`
	Notes  *string `json:"notes"`
	Status *string `json:"status"`
	Due    *string `json:"due"`
}

func (c *Call) applyTask(t *Task, in taskInput) bool {
	if in.Title != nil {
		t.Title = *in.Title
	}
	if in.Notes != nil {
		t.Notes = *in.Notes
	}
	if in.Due != nil {
		if *in.Due != "" {
			if _, err := time.Parse(time.RFC3339, *in.Due); err != nil {
				return c.Bad("due %q is not an RFC 3339 timestamp", *in.Due)
			}
		}
		t.Due = *in.Due
	}
	if in.Status != nil {
		switch *in.Status {
		case "completed":
			if t.Status != "completed" {
				t.Completed = "2026-11-21T10:00:00.000Z"
			}
		case "needsAction":
			t.Completed = ""
		default:
			return c.Bad("status %q is not needsAction or completed", *in.Status)
		}
		t.Status = *in.Status
	}
	t.Updated = "2026-11-21T10:00:00.000Z"
	return true
}

func init() {
	register("tasks.googleapis.com", func(s *Server, r *Router) {
		st := s.Tasks()
		r.Handle("GET /tasks/v1/users/@me/lists", tasksRead, func(c *Call) {
			if !c.Params(nil, "maxResults", "pageToken") {
				return
			}
			c.JSON(map[string]any{"kind": "tasks#taskLists", "etag": `"LTE1MDg"`, "items": st.Lists})
		})
		r.Handle("POST /tasks/v1/users/@me/lists", tasksWrite, func(c *Call) {
			var in struct {
				Title string `json:"title"`
			}
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			if in.Title == "" {
				c.Invalid("Invalid value for: title must not be empty")
				return
			}
			id := s.NewID("TElTVC")
			l := &TaskList{Kind: "tasks#taskList", ID: id, ETag: `"new"`, Title: in.Title, Updated: "2026-11-21T10:00:00.000Z",
				SelfLink: "https://www.googleapis.com/tasks/v1/users/@me/lists/" + id}
			st.Lists = append(st.Lists, l)
			c.JSON(l)
		})
		r.Handle("GET /tasks/v1/lists/{list}/tasks", tasksRead, func(c *Call) {
			if !c.Params(nil, "completedMax", "completedMin", "dueMax", "dueMin", "maxResults", "pageToken",
				"showCompleted", "showDeleted", "showHidden", "updatedMin", "showAssigned") {
				return
			}
			l := st.list(c.Path("list"))
			if l == nil {
				c.NotFound()
				return
			}
			max := 20
			if v := c.Query.Get("maxResults"); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 100 {
					c.Bad("maxResults %q is not 1 to 100", v)
					return
				}
				max = n
			}
			showCompleted := c.Query.Get("showCompleted") != "false"
			dueMax := c.Query.Get("dueMax")
			items := []*Task{}
			for _, t := range st.Tasks[l.ID] {
				if t.Deleted || !showCompleted && t.Status == "completed" || dueMax != "" && (t.Due == "" || t.Due > dueMax) {
					continue
				}
				items = append(items, t)
			}
			out := map[string]any{"kind": "tasks#tasks", "etag": `"LTE2NDU"`, "items": items}
			if len(items) > max {
				out["items"], out["nextPageToken"] = items[:max], "page2"
			}
			c.JSON(out)
		})
		r.Handle("GET /tasks/v1/lists/{list}/tasks/{task}", tasksRead, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			l := st.list(c.Path("list"))
			if l == nil || st.task(l.ID, c.Path("task")) == nil {
				c.NotFound()
				return
			}
			c.JSON(st.task(l.ID, c.Path("task")))
		})
		r.Handle("POST /tasks/v1/lists/{list}/tasks", tasksWrite, func(c *Call) {
			var in taskInput
			if !c.Params(nil, "parent", "previous") || !c.Decode(&in) {
				return
			}
			l := st.list(c.Path("list"))
			if l == nil {
				c.NotFound()
				return
			}
			t := task(l.ID, s.NewID("dGFzay1"), "", "", "needsAction", "", "")
			if parent := c.Query.Get("parent"); parent != "" {
				if st.task(l.ID, parent) == nil {
					c.NotFound()
					return
				}
				t.Parent = parent
			}
			if !c.applyTask(t, in) {
				return
			}
			// New tasks go first, as Google puts them.
			t.Position = "00000000000000000000"
			for i, other := range st.Tasks[l.ID] {
				other.Position = strconv.Itoa(100000000 + i + 1)
			}
			st.Tasks[l.ID] = slices.Insert(st.Tasks[l.ID], 0, t)
			c.JSON(t)
		})
		r.Handle("PATCH /tasks/v1/lists/{list}/tasks/{task}", tasksWrite, func(c *Call) {
			var in taskInput
			if !c.Params(nil) || !c.Decode(&in) {
				return
			}
			l := st.list(c.Path("list"))
			if l == nil || st.task(l.ID, c.Path("task")) == nil {
				c.NotFound()
				return
			}
			t := st.task(l.ID, c.Path("task"))
			if c.applyTask(t, in) {
				c.JSON(t)
			}
		})
		r.Handle("DELETE /tasks/v1/lists/{list}/tasks/{task}", tasksWrite, func(c *Call) {
			if !c.Params(nil) {
				return
			}
			l := st.list(c.Path("list"))
			if l == nil || st.task(l.ID, c.Path("task")) == nil {
				c.NotFound()
				return
			}
			st.task(l.ID, c.Path("task")).Deleted = true
			c.W.WriteHeader(http.StatusNoContent)
		})
	})
}
