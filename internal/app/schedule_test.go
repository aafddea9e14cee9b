package app

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
)

// scheduledTools are the scheduled_tasks group's tools, in the order
// docs/reference/routing.md lists them.
var scheduledTools = []string{"schedule_task", "list_scheduled_tasks", "run_scheduled_task", "update_scheduled_task", "delete_scheduled_task"}

// Routing scenario 4, "Schedule a task for tomorrow", in the Go
// program: the model loads scheduled_tasks and calls schedule_task, which
// the user allows; it ends in success (not in not_found, which a missing group
// would give). At its time the task runs as a turn in a session of its own,
// where no one answers questions, so a tool that asks is refused with the
// engine's message; its answer is kept with the task, where
// list_scheduled_tasks shows it in the user's session.
func TestScenario4ScheduleATaskForTomorrow(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		// The user's turn.
		fakemodel.ToolCall("load_tool_group", `{"group_name":"scheduled_tasks"}`),
		fakemodel.ToolCall("schedule_task", `{"name":"morning_news","prompt":"Summarise the news for me.","at":"2026-11-27T09:00:00+01:00"}`),
		fakemodel.Text("Done: morning_news runs tomorrow at 9:00."),
		// The task's run, the next day.
		fakemodel.ToolCall("load_tool_group", `{"group_name":"scheduled_tasks"}`),
		fakemodel.ToolCall("delete_scheduled_task", `{"name":"morning_news"}`),
		fakemodel.Text("Here is your news summary: all quiet."),
		// The user asks how it went.
		fakemodel.ToolCall("list_scheduled_tasks", `{}`),
		fakemodel.Text("It ran."),
	)
	defer model.Close()
	cfg := testConfig(t)
	cfg.Provider, cfg.Model = "openai", "fake-1"
	cfg.Getenv = env(map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "sk-test"})
	clock := &fakeClock{t: time.Date(2026, 11, 26, 20, 0, 0, 0, time.UTC)}
	cfg.Now = clock.now
	var asked []string
	cfg.Approver = host.ApproverFunc(func(_ context.Context, _ string, calls []session.Call) ([]session.Approval, error) {
		out := make([]session.Approval, len(calls))
		for i, c := range calls {
			asked = append(asked, c.Tool)
			out[i] = session.Approval{ID: c.ID, Answer: session.AnswerOnce}
		}
		return out, nil
	})
	a := open(t, cfg)
	ctx := context.Background()

	got := summarize(send(t, a, "s", "Schedule a task for tomorrow: a news summary at 9 in the morning (Paris)"))
	if w := []string{"load_tool_group:success", "schedule_task:success"}; !slices.Equal(got.calls, w) {
		t.Fatalf("calls = %v, want %v", got.calls, w)
	}
	if !slices.Equal(got.loads, []string{"scheduled_tasks"}) || !slices.Equal(asked, []string{"schedule_task"}) {
		t.Fatalf("loads %v, asked about %v", got.loads, asked)
	}
	reqs := model.Requests()
	if after := reqs[1].ToolNames(); !slices.Equal(after, slices.Concat(coreTools, scheduledTools)) {
		t.Errorf("after the load the model is sent %v", after)
	}
	if res := toolResult(t, a, "s", "schedule_task"); res != "Scheduled task 'morning_news': it runs once at 2026-11-27T08:00:00Z as a new session of its own. list_scheduled_tasks shows its answer once it has run." {
		t.Errorf("schedule_task said %q", res)
	}

	// The evening before, nothing is due; the next morning it runs.
	if n, err := a.Tasks.RunDue(ctx); n != 0 || err != nil {
		t.Fatalf("ran %d, %v", n, err)
	}
	clock.set(time.Date(2026, 11, 27, 8, 0, 5, 0, time.UTC))
	if n, err := a.Tasks.RunDue(ctx); n != 1 || err != nil {
		t.Fatalf("ran %d, %v", n, err)
	}
	const run = "task-morning_news-20261127-080005"
	sess, ok, err := a.Store.Session(ctx, run)
	if err != nil || !ok || sess.Title != "Scheduled task: morning_news" {
		t.Fatalf("the run's session: %+v %v %v", sess, ok, err)
	}
	msgs, err := a.Store.Messages(ctx, run)
	if err != nil || msgs[0].Type != session.User || msgs[0].Content != "Summarise the news for me." {
		t.Fatalf("the run's first message: %+v %v", msgs, err)
	}
	if res := toolResult(t, a, run, "delete_scheduled_task"); !strings.HasPrefix(res, "Error (approval_needed): 'delete_scheduled_task' asks the user before it runs, and no one is here to answer") {
		t.Errorf("the run's asking tool: %q", res)
	}
	if len(asked) != 1 {
		t.Errorf("the run asked about %v", asked[1:])
	}

	got = summarize(send(t, a, "s", "Did my task run?"))
	if w := []string{"list_scheduled_tasks:success"}; !slices.Equal(got.calls, w) {
		t.Fatalf("calls = %v", got.calls)
	}
	want := "1 scheduled task:\n- morning_news: runs once at 2026-11-27T08:00:00Z; will not run again; last run 2026-11-27T08:00:05Z in session " + run +
		", done.\n  Prompt: Summarise the news for me.\n  Answer: Here is your news summary: all quiet."
	if res := toolResult(t, a, "s", "list_scheduled_tasks"); res != want {
		t.Errorf("list_scheduled_tasks said\n%s\nwant\n%s", res, want)
	}
}

// run_scheduled_task runs a task now, in the chat's turn, and gives its
// answer; a recurring task keeps its schedule.
func TestRunScheduledTaskNow(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.Text("Weekly report: 3 things done."),
	)
	defer model.Close()
	cfg := testConfig(t)
	cfg.Provider, cfg.Model = "openai", "fake-1"
	cfg.Getenv = env(map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "sk-test"})
	clock := &fakeClock{t: time.Date(2026, 11, 26, 20, 0, 0, 0, time.UTC)}
	cfg.Now = clock.now
	a := open(t, cfg)
	ctx := context.Background()
	call := func(tool, args string) string {
		res, err := a.Host.CallTool(ctx, tool, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return res.Output + res.Message
	}
	if got := call("schedule_task", `{"name":"weekly","prompt":"Write the weekly report.","cron":"0 17 * * 5","timezone":"Europe/London"}`); got != "Scheduled task 'weekly': it runs on the cron schedule 0 17 * * 5 (Europe/London), next at 2026-11-27T17:00:00Z as a new session of its own. list_scheduled_tasks shows its answer once it has run." {
		t.Errorf("schedule_task: %q", got)
	}
	if got := call("run_scheduled_task", `{"name":"weekly"}`); got != "Task 'weekly' ran in session task-weekly-20261126-200000. Its answer:\nWeekly report: 3 things done." {
		t.Errorf("run_scheduled_task: %q", got)
	}
	if got := call("update_scheduled_task", `{"name":"weekly","enabled":false}`); !strings.HasPrefix(got, "Task updated: weekly: runs on the cron schedule 0 17 * * 5 (Europe/London); paused; last run 2026-11-26T20:00:00Z in session task-weekly-20261126-200000, done") {
		t.Errorf("update_scheduled_task: %q", got)
	}
	if got := call("update_scheduled_task", `{"name":"weekly","at":"yesterday"}`); !strings.Contains(got, `at "yesterday" is not an ISO 8601 time`) {
		t.Errorf("a bad time: %q", got)
	}
	if got := call("delete_scheduled_task", `{"name":"weekly"}`); got != "Task 'weekly' deleted; the sessions of its 1 run stay." {
		t.Errorf("delete_scheduled_task: %q", got)
	}
	if got := call("run_scheduled_task", `{"name":"weekly"}`); !strings.Contains(got, `no task "weekly": there are no scheduled tasks; schedule_task creates one`) {
		t.Errorf("run of a deleted task: %q", got)
	}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// toolResult is the content of the last result of tool in a session's log.
func toolResult(t *testing.T, a *App, id, tool string) string {
	t.Helper()
	msgs, err := a.Store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == session.ToolResult && msgs[i].ToolName == tool {
			return msgs[i].Content
		}
	}
	t.Fatalf("no result of %s in %s", tool, id)
	return ""
}
