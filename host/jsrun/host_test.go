package jsrun_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/checktest"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// The built-in JS tools run through the host and the QuickJS runner, as a
// user's turn runs them.
func TestBuiltinToolsThroughTheHost(t *testing.T) {
	ctx := checktest.Context(t)
	now := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	runner, err := jsrun.New(jsrun.Options{SandboxRoot: t.TempDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCalls(
			fakemodel.Call{Name: "write_file", Args: `{"path":"notes/todo.md","content":"- milk"}`},
			fakemodel.Call{Name: "get_current_time", Args: `{"timezone":"Europe/Paris"}`},
		),
		fakemodel.ToolCall("read_file", `{"path":"notes/todo.md"}`),
		fakemodel.ToolCall("read_file", `{"path":"../../etc/passwd"}`),
		fakemodel.Text("Done."),
	)
	defer model.Close()
	h, err := host.New(ctx, host.Options{
		Provider: &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: model.BaseURL(), ModelName: "m"},
		JS:       runner,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	for _, err := range h.Session("s").Send(ctx, "Note milk, then read it back") {
		if err != nil {
			t.Fatal(err)
		}
	}
	msgs, _ := h.Session("s").Messages(ctx)
	var results []string
	for _, m := range msgs {
		if m.Type == session.ToolResult {
			results = append(results, m.ToolName+" "+string(m.Status)+": "+m.Content)
		}
	}
	// The first two ran in parallel: their results come in either order.
	slices.Sort(results[:2])
	want := []string{
		"get_current_time success: 2026-03-01T10:30:00+01:00",
		"write_file success: Wrote 6 characters to notes/todo.md",
		"read_file success: - milk",
		"read_file error: Error (execution_error): Error: Access denied: '../../etc/passwd' is outside the sandbox folder\n    at execute (builtin/read_file.js:4:",
	}
	if len(results) != len(want) {
		t.Fatalf("results = %q", results)
	}
	for i := range want {
		if !strings.HasPrefix(results[i], want[i]) {
			t.Errorf("result %d:\n got %q\nwant %q...", i, results[i], want[i])
		}
	}
	if strings.Contains(results[3], "toolroute prelude") {
		t.Errorf("the runner's own frames reach the model: %q", results[3])
	}
}
