package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/pgtest"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

var cacheDir string

func TestMain(m *testing.M) {
	code := testcache.Run(m, &cacheDir)
	pgtest.StopShared()
	os.Exit(code)
}

// pdfTools is a host-native group with two tools that record their calls.
func pdfTools(calls *[]string, mu *sync.Mutex) ([]registry.Group, []host.NativeTool) {
	tool := func(name, desc string) host.NativeTool {
		return host.NativeTool{
			Tool: registry.Tool{Name: name, Description: desc, Group: "pdf",
				Parameters: json.RawMessage(`{"properties":{"path":{"type":"string"}},"required":["path"]}`)},
			Run: func(ctx context.Context, in json.RawMessage) (string, error) {
				mu.Lock()
				*calls = append(*calls, name+" "+string(in))
				mu.Unlock()
				return `{"pages":3}`, nil
			},
		}
	}
	return []registry.Group{{Name: "pdf", DisplayName: "PDF Tools", Description: "Read PDF files"}},
		[]host.NativeTool{tool("pdf_info", "PDF page count"), tool("pdf_text", "PDF text")}
}

func newHost(t *testing.T, model *fakemodel.Server, format wire.Format, opts host.Options) *host.Host {
	t.Helper()
	opts.Provider = &host.HTTPProvider{Wire: format, BaseURL: model.BaseURL(), APIKey: "test-key", ModelName: "fake-model"}
	opts.Module.CacheDir = testcache.Module(cacheDir)
	h, err := host.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// send runs a turn and returns its events, failing the test on a host error.
func send(t *testing.T, s *host.Session, text string) []host.Event {
	t.Helper()
	var evs []host.Event
	for ev, err := range s.Send(context.Background(), text) {
		if err != nil {
			t.Fatalf("send %q: %v", text, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func last(evs []host.Event) host.Event { return evs[len(evs)-1] }

// Loaded groups restored from the log across processes: a second Host on the same store (a restarted
// program) restores the group the first loaded, and its first model call
// already sends the group's schemas.
func TestGroupsRestoredAcrossHosts(t *testing.T) {
	for _, format := range []wire.Format{wire.OpenAI, wire.Anthropic} {
		t.Run(string(format), func(t *testing.T) {
			var mu sync.Mutex
			var calls []string
			groups, tools := pdfTools(&calls, &mu)
			store := host.NewMemoryStore()
			model := fakemodel.New(fakemodel.Format(format),
				fakemodel.ToolCall("load_tool_group", `{"group_name":"pdf"}`),
				fakemodel.ToolCall("pdf_info", `{"path":"a.pdf"}`),
				fakemodel.Text("a.pdf has 3 pages."),
				fakemodel.ToolCall("pdf_text", `{"path":"a.pdf"}`),
				fakemodel.Text("It says hello."),
			)
			defer model.Close()

			first := newHost(t, model, format, host.Options{Store: store, Groups: groups, Tools: tools})
			if ev := last(send(t, first.Session("s1"), "How long is a.pdf?")); ev.Type != host.EventDone || ev.Text != "a.pdf has 3 pages." {
				t.Fatalf("turn 1 ended with %+v", ev)
			}
			first.Close(context.Background())

			second := newHost(t, model, format, host.Options{Store: store, Groups: groups, Tools: tools})
			if ev := last(send(t, second.Session("s1"), "What does it say?")); ev.Type != host.EventDone || ev.Text != "It says hello." {
				t.Fatalf("turn 2 ended with %+v", ev)
			}
			reqs := model.Requests()
			if len(reqs) != 5 {
				t.Fatalf("%d model calls, want 5", len(reqs))
			}
			core := []string{"load_tool_group", "get_current_time", "http_request", "js_eval", "read_file", "save_memory", "search_history", "webfetch", "write_file"}
			withPDF := append(append([]string{}, core...), "pdf_info", "pdf_text")
			wantTools := [][]string{core, withPDF, withPDF, withPDF, withPDF}
			for i, r := range reqs {
				if diff := cmp.Diff(wantTools[i], r.ToolNames()); diff != "" {
					t.Errorf("request %d tools (-want +got):\n%s", i, diff)
				}
			}
			if !cmp.Equal(calls, []string{`pdf_info {"path":"a.pdf"}`, `pdf_text {"path":"a.pdf"}`}) {
				t.Errorf("native calls = %v", calls)
			}
			// Authentication went the provider's way.
			h := reqs[0].Header
			if format == wire.OpenAI && h.Get("Authorization") != "Bearer test-key" ||
				format == wire.Anthropic && (h.Get("x-api-key") != "test-key" || h.Get("anthropic-version") != wire.AnthropicVersion) {
				t.Errorf("headers = %v", h)
			}
		})
	}
}

func TestStreaming(t *testing.T) {
	for _, format := range []wire.Format{wire.OpenAI, wire.Anthropic} {
		t.Run(string(format), func(t *testing.T) {
			var mu sync.Mutex
			var calls []string
			groups, tools := pdfTools(&calls, &mu)
			model := fakemodel.New(fakemodel.Format(format),
				fakemodel.Reply{Text: "Loading PDF tools.", Calls: []fakemodel.Call{{Name: "load_tool_group", Args: `{"group_name":"pdf"}`}}},
				fakemodel.ToolCall("pdf_info", `{"path":"b.pdf"}`),
				fakemodel.Text("b.pdf has 3 pages."),
			)
			defer model.Close()
			h := newHost(t, model, format, host.Options{Groups: groups, Tools: tools, Stream: true})
			evs := send(t, h.Session("s"), "Pages of b.pdf?")
			var text strings.Builder
			for _, ev := range evs {
				if ev.Type == host.EventText {
					text.WriteString(ev.Text)
				}
			}
			if got := text.String(); got != "Loading PDF tools.b.pdf has 3 pages." {
				t.Errorf("streamed text = %q", got)
			}
			if ev := last(evs); ev.Type != host.EventDone || ev.Text != "b.pdf has 3 pages." {
				t.Errorf("last event = %+v", ev)
			} else if u := ev.Usage; u == nil || u.InputTokens != 30 || u.OutputTokens != 15 {
				// Each of the 3 streams reports 10 tokens in, 5 out: an
				// OpenAI stream only when the request asks for it.
				t.Errorf("the turn's usage = %+v, want 30 in and 15 out", u)
			}
			if len(calls) != 1 {
				t.Errorf("calls = %v", calls)
			}
			if body := model.Requests()[0].JSON(); body["stream"] != true {
				t.Errorf("request did not ask to stream: %v", body["stream"])
			}
		})
	}
}

// fakeJS is a JSRunner that records its calls.
type fakeJS struct {
	mu    sync.Mutex
	calls []host.JSCall
}

func (f *fakeJS) Run(ctx context.Context, c host.JSCall) host.JSResult {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	return host.JSResult{Result: registry.Success("ran " + c.Function), Logs: []string{"log: hidden from the model"}}
}

func TestJSToolsGoToTheRunner(t *testing.T) {
	folder := fstest.MapFS{
		"weather.json": {Data: []byte(`{"name":"weather","description":"Weather for a city","env":["WEATHER_KEY","MISSING"],"timeoutSeconds":7,
			"parameters":{"properties":{"city":{"type":"string"}},"required":["city"]}}`)},
		"weather.js": {Data: []byte(`async function execute(p) { return "sunny"; }`)},
	}
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("weather", `{"city":"Lyon"}`),
		fakemodel.Text("Sunny in Lyon."),
	)
	defer model.Close()
	js := &fakeJS{}
	env := map[string]string{"WEATHER_KEY": "k-123", "OTHER_SECRET": "no"}
	h := newHost(t, model, wire.OpenAI, host.Options{
		NoBuiltins:  true,
		ToolFolders: []host.ToolFolder{{FS: folder, Label: "user"}},
		JS:          js,
		Env:         func(name string) (string, bool) { v, ok := env[name]; return v, ok },
	})
	send(t, h.Session("s"), "Weather in Lyon?")
	if len(js.calls) != 1 {
		t.Fatalf("runner calls = %d", len(js.calls))
	}
	c := js.calls[0]
	want := host.JSCall{Tool: "weather", SourceRef: "user/weather.js", Source: []byte(`async function execute(p) { return "sunny"; }`),
		Function: "execute", Params: json.RawMessage(`{"city":"Lyon"}`), Env: map[string]string{"WEATHER_KEY": "k-123"}, Timeout: 7 * time.Second}
	if diff := cmp.Diff(want, c, cmpopts.IgnoreFields(host.JSCall{}, "Ops")); diff != "" {
		t.Errorf("JS call (-want +got):\n%s", diff)
	}
	msgs, _ := h.Session("s").Messages(context.Background())
	if got := msgs[3].Content; got != "ran execute" {
		t.Errorf("tool result = %q", got)
	}
}

func TestToolFailuresAreResults(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCalls(
			fakemodel.Call{Name: "boom", Args: `{}`},
			fakemodel.Call{Name: "typed", Args: `{}`},
			fakemodel.Call{Name: "slow", Args: `{}`},
			fakemodel.Call{Name: "late", Args: `{}`},
			fakemodel.Call{Name: "js_tool", Args: `{}`},
		),
		fakemodel.Text("All failed."),
	)
	defer model.Close()
	tool := func(name string, timeout int, run func(context.Context, json.RawMessage) (string, error)) host.NativeTool {
		return host.NativeTool{Tool: registry.Tool{Name: name, Description: name, TimeoutSeconds: timeout}, Run: run}
	}
	h := newHost(t, model, wire.OpenAI, host.Options{
		NoBuiltins:  true,
		ToolFolders: []host.ToolFolder{{FS: fstest.MapFS{"js_tool.json": {Data: []byte(`{"name":"js_tool","description":"JS"}`)}, "js_tool.js": {Data: []byte(``)}}, Label: "user"}},
		Tools: []host.NativeTool{
			tool("boom", 0, func(context.Context, json.RawMessage) (string, error) {
				panic("kaboom at /home/dev/toolroute/host/x.go:12\ngoroutine 7 [running]:\nmain.f()")
			}),
			tool("typed", 0, func(context.Context, json.RawMessage) (string, error) {
				return "", &host.ToolError{Type: "not_found", Message: "no such file: x.pdf"}
			}),
			tool("slow", 1, func(ctx context.Context, _ json.RawMessage) (string, error) { <-ctx.Done(); return "", ctx.Err() }),
			// A tool that says why it ran out of time is believed.
			tool("late", 1, func(ctx context.Context, _ json.RawMessage) (string, error) {
				<-ctx.Done()
				return "", &host.ToolError{Type: "unavailable", Message: "the server did not answer in time"}
			}),
		},
	})
	send(t, h.Session("s"), "Try them")
	msgs, _ := h.Session("s").Messages(context.Background())
	got := map[string]string{}
	for _, m := range msgs {
		if m.Type == session.ToolResult {
			got[m.ToolName] = m.Content
		}
	}
	want := map[string]string{
		"boom":    "Error (execution_error): tool 'boom' failed inside the host (kaboom at): try other arguments, or report it",
		"typed":   "Error (not_found): no such file: x.pdf",
		"slow":    "Error (timeout): tool 'slow' timed out after 1s",
		"late":    "Error (unavailable): the server did not answer in time",
		"js_tool": "Error (execution_error): JS tools cannot run here: no JS runner is configured (tool 'js_tool')",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// A call that reports its progress is not cut at its timeout while it
// does: each report starts its time again, as in the JS hosts. Twelve
// reports half a second apart outlast a 3 s timeout; a call that then
// reports nothing is cut 3 s after its last report.
func TestProgressRestartsTheTimeout(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCalls(fakemodel.Call{Name: "pack", Args: `{}`}, fakemodel.Call{Name: "stall", Args: `{}`}),
		fakemodel.Text("Done."),
	)
	defer model.Close()
	steps := func(ctx context.Context, n int) error {
		for i := range n {
			select {
			case <-time.After(500 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
			host.ReportProgress(ctx, host.Progress{Progress: float64(i + 1), Total: float64(n)})
		}
		return nil
	}
	h := newHost(t, model, wire.OpenAI, host.Options{
		NoBuiltins: true,
		Tools: []host.NativeTool{
			{Tool: registry.Tool{Name: "pack", Description: "packs", TimeoutSeconds: 3}, Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				if err := steps(ctx, 12); err != nil {
					return "", err
				}
				return "packed", nil
			}},
			{Tool: registry.Tool{Name: "stall", Description: "stalls", TimeoutSeconds: 3}, Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				if err := steps(ctx, 2); err != nil {
					return "", err
				}
				<-ctx.Done()
				return "", ctx.Err()
			}},
		},
	})
	send(t, h.Session("s"), "Pack it")
	msgs, _ := h.Session("s").Messages(context.Background())
	got := map[string]string{}
	for _, m := range msgs {
		if m.Type == session.ToolResult {
			got[m.ToolName] = m.Content
		}
	}
	want := map[string]string{"pack": "packed", "stall": "Error (timeout): tool 'stall' timed out after 3s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestModelErrorsEndTheTurn(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.Error(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`))
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true})
	ev := last(send(t, h.Session("s"), "hi"))
	if ev.Type != host.EventFailed || ev.Failure.Code != "model_error" || !strings.Contains(ev.Failure.Message, "HTTP 401: check the API key: Incorrect API key provided") {
		t.Errorf("last event = %+v %+v", ev, ev.Failure)
	}
	// Nothing listens on this port: the call gets no response at all.
	dead := &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "http://127.0.0.1:1/v1", ModelName: "m"}
	h2, err := host.New(context.Background(), host.Options{Provider: dead, NoBuiltins: true, Module: module.Config{CacheDir: testcache.Module(cacheDir)}})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close(context.Background())
	ev = last(send(t, h2.Session("s"), "hi"))
	if ev.Type != host.EventFailed || !strings.Contains(ev.Failure.Message, "the model could not be reached") {
		t.Errorf("unreachable: %+v %+v", ev, ev.Failure)
	}
	msgs, _ := h2.Session("s").Messages(context.Background())
	if len(msgs) != 2 || msgs[0].Content != "hi" || msgs[1].Type != session.TurnEnd || msgs[1].Content != ev.Failure.Message {
		t.Errorf("the user's message and the failure were not kept: %+v", msgs)
	}
}

// A caller that stops reading mid-turn stops the turn; what was committed
// stays committed and the session goes on.
func TestStopReading(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	groups, tools := pdfTools(&calls, &mu)
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"pdf"}`),
		fakemodel.Text("Ready."),
	)
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Groups: groups, Tools: tools})
	s := h.Session("s")
	for ev, err := range s.Send(context.Background(), "load pdf") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == host.EventGroupLoaded {
			break
		}
	}
	msgs, _ := s.Messages(context.Background())
	if len(msgs) != 5 || msgs[4].Type != session.TurnEnd || msgs[4].ErrorType != "stopped" {
		t.Fatalf("committed %+v, want 5 (user, assistant, call, result, the stop)", msgs)
	}
	d, err := h.Describe(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(d.LoadedGroups, []string{"pdf"}) {
		t.Errorf("loaded groups = %v", d.LoadedGroups)
	}
}

// Stopped while the reply streams: the text that came is kept in the log as
// the model's answer so far, and the next turn sends it back.
func TestStopKeepsStreamedText(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Once upon a time there was a long story."), fakemodel.Text("The end."))
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Stream: true})
	s := h.Session("s")
	var got string
	for ev, err := range s.Send(context.Background(), "Tell me a story") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == host.EventText {
			got = ev.Text
			break
		}
	}
	if got == "" {
		t.Fatal("no text streamed")
	}
	msgs, _ := s.Messages(context.Background())
	if n := len(msgs); n != 3 || msgs[1].Type != session.Assistant || msgs[1].Content != got || msgs[2].Type != session.TurnEnd || msgs[2].ErrorType != "stopped" {
		t.Fatalf("the log after Stop: %+v, want the user's message, %q and the stop", msgs, got)
	}
	for _, err := range s.Send(context.Background(), "Go on") {
		if err != nil {
			t.Fatal(err)
		}
	}
	if body := string(model.Requests()[1].Body); !strings.Contains(body, `{"role":"assistant","content":`+strconv.Quote(got)+`}`) {
		t.Errorf("the next turn does not send the kept text back:\n%s", body)
	}
}

func TestManySessionsAtOnce(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	const n = 24
	for range n {
		model.Add(fakemodel.Text("hello"))
	}
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, MaxInstances: 3})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev, err := range h.Session(fmt.Sprint("s", i)).Send(context.Background(), "hi") {
				if err != nil {
					errs <- err
					return
				}
				if ev.Type == host.EventFailed {
					errs <- errors.New(ev.Failure.Message)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(model.Requests()); got != n {
		t.Errorf("%d model calls, want %d", got, n)
	}
}

func TestCatalogueProblemsDoNotStopTheHost(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("ok"))
	defer model.Close()
	folder := fstest.MapFS{
		"broken.json": {Data: []byte(`[{"name":"x"`)},
		"broken.js":   {Data: []byte(``)},
		"orphan.json": {Data: []byte(`{"name":"orphan","description":"no source"}`)},
	}
	h := newHost(t, model, wire.OpenAI, host.Options{ToolFolders: []host.ToolFolder{{FS: folder, Label: "user"}}})
	rep := h.Report()
	var problems []string
	for _, r := range rep.Manifests {
		for _, p := range r.Skipped {
			problems = append(problems, p.Error())
		}
	}
	want := []string{
		"user/broken.json: invalid JSON at line 1, column 12: unexpected end of JSON input",
		"user/orphan.json: Missing corresponding .js file: orphan.js",
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if ev := last(send(t, h.Session("s"), "hi")); ev.Type != host.EventDone {
		t.Errorf("turn ended with %+v", ev)
	}
}

// A host without a Provider serves the program's own loop (Start); Send
// says what to do instead of failing at the model call.
func TestSendWithoutAProvider(t *testing.T) {
	ctx := context.Background()
	h, err := host.New(ctx, host.Options{NoBuiltins: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	var got error
	for _, err := range h.Session("s").Send(ctx, "hi") {
		got = err
	}
	if got == nil || !strings.Contains(got.Error(), "Session.Start") {
		t.Errorf("Send without a Provider: %v, want an error naming Session.Start", got)
	}
}

// A tool that adds a tool (as create_js_tool does) makes it callable from the
// next model call of the same turn.
func TestToolCreatedMidTurn(t *testing.T) {
	dir := t.TempDir()
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("make_tool", `{}`),
		fakemodel.ToolCall("fresh_tool", `{}`),
		fakemodel.Text("Made and used it."),
	)
	defer model.Close()
	var h *host.Host
	js := &fakeJS{}
	h = newHost(t, model, wire.OpenAI, host.Options{
		NoBuiltins:  true,
		ToolFolders: []host.ToolFolder{{FS: os.DirFS(dir), Label: "user"}},
		JS:          js,
		Tools: []host.NativeTool{{
			Tool: registry.Tool{Name: "make_tool", Description: "Make a tool"},
			Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				os.WriteFile(filepath.Join(dir, "fresh_tool.json"), []byte(`{"name":"fresh_tool","description":"Just made"}`), 0o644)
				os.WriteFile(filepath.Join(dir, "fresh_tool.js"), []byte(`function execute() { return "fresh" }`), 0o644)
				return "made", h.Reload(ctx)
			},
		}},
	})
	if ev := last(send(t, h.Session("s"), "make a tool and use it")); ev.Type != host.EventDone {
		t.Fatalf("turn ended with %+v %+v", ev, ev.Failure)
	}
	reqs := model.Requests()
	if got := reqs[1].ToolNames(); !cmp.Equal(got, []string{"make_tool", "fresh_tool"}) {
		t.Errorf("the call after make_tool offered %v", got)
	}
	if len(js.calls) != 1 || js.calls[0].Tool != "fresh_tool" {
		t.Errorf("fresh_tool did not run: %+v", js.calls)
	}
}

// shelf is a ToolSource whose tools change while the host runs, as an MCP
// server's do.
type shelf struct {
	mu    sync.Mutex
	names []string
	saw   [][]string // the catalogue's tools each Tools call saw
}

func (s *shelf) Tools(_ context.Context, cat registry.Catalogue) ([]registry.Group, []host.NativeTool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var seen []string
	for _, t := range cat.Tools {
		seen = append(seen, t.Name)
	}
	s.saw = append(s.saw, seen)
	var tools []host.NativeTool
	for _, name := range s.names {
		tools = append(tools, host.NativeTool{
			Tool: registry.Tool{Name: name, Description: "A tool on the shelf", Group: "shelf"},
			Run:  func(context.Context, json.RawMessage) (string, error) { return name + " ran", nil },
		})
	}
	return []registry.Group{{Name: "shelf", Description: "Tools that come and go"}}, tools
}

// A tool source's tools are asked for at each Reload: a change a tool call
// makes is offered from the turn's next model call, in the loaded group,
// and the new tool runs. The source sees the catalogue without its tools.
func TestToolSourceChangesMidTurn(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"shelf"}`),
		fakemodel.ToolCall("stock", `{}`),
		fakemodel.ToolCall("fresh", `{}`),
		fakemodel.Text("Stocked and used."),
	)
	defer model.Close()
	src := &shelf{names: []string{"old"}}
	var h *host.Host
	h = newHost(t, model, wire.OpenAI, host.Options{
		NoBuiltins:  true,
		ToolSources: []host.ToolSource{src},
		Tools: []host.NativeTool{{
			Tool: registry.Tool{Name: "stock", Description: "Put a tool on the shelf"},
			Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				src.mu.Lock()
				src.names = append(src.names, "fresh")
				src.mu.Unlock()
				return "stocked", h.Reload(ctx)
			},
		}},
	})
	if ev := last(send(t, h.Session("s"), "stock the shelf and use the new tool")); ev.Type != host.EventDone {
		t.Fatalf("turn ended with %+v %+v", ev, ev.Failure)
	}
	reqs := model.Requests()
	if got := reqs[1].ToolNames(); !cmp.Equal(got, []string{"load_tool_group", "stock", "old"}) {
		t.Errorf("after the load: %v", got)
	}
	if got := reqs[2].ToolNames(); !cmp.Equal(got, []string{"load_tool_group", "stock", "old", "fresh"}) {
		t.Errorf("after stock: %v", got)
	}
	mustResult(t, h, "s", "fresh", "fresh ran")
	src.mu.Lock()
	defer src.mu.Unlock()
	for _, saw := range src.saw {
		if !cmp.Equal(saw, []string{"stock"}) {
			t.Errorf("the source saw the tools %v, want only stock", saw)
		}
	}
}

// mustResult checks the content of a session's result of a tool.
func mustResult(t *testing.T, h *host.Host, id, tool, want string) {
	t.Helper()
	msgs, _ := h.Session(id).Messages(context.Background())
	for _, m := range msgs {
		if m.Type == session.ToolResult && m.ToolName == tool {
			if m.Content != want {
				t.Errorf("%s's result is %q, want %q", tool, m.Content, want)
			}
			return
		}
	}
	t.Errorf("no result of %s", tool)
}

// Options.Prompt gives each turn's base prompt, read afresh every turn.
func TestPromptPerTurn(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("one"), fakemodel.Text("two"))
	defer model.Close()
	var mu sync.Mutex
	base := "first prompt"
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Prompt: func(context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		return base, nil
	}})
	send(t, h.Session("s"), "hi")
	mu.Lock()
	base = "second prompt"
	mu.Unlock()
	send(t, h.Session("s"), "again")
	for i, want := range []string{"first prompt", "second prompt"} {
		msgs := model.Requests()[i].JSON()["messages"].([]any)
		sys := msgs[0].(map[string]any)
		if sys["role"] != "system" || !strings.HasPrefix(sys["content"].(string), want) {
			t.Errorf("request %d system message = %v, want it to start with %q", i, sys, want)
		}
	}
	d, err := h.Describe(context.Background(), "s")
	if err != nil || !strings.HasPrefix(d.SystemPrompt, "second prompt") {
		t.Errorf("Describe prompt = %q, %v", d.SystemPrompt, err)
	}
}

// CallTool runs one tool outside a conversation, checking its arguments.
func TestCallTool(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	groups, tools := pdfTools(&calls, &mu)
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Groups: groups, Tools: tools, Disabled: []string{"pdf_text"}})
	ctx := context.Background()
	res, err := h.CallTool(ctx, "pdf_info", json.RawMessage(`{"path":"a.pdf"}`))
	if err != nil || res.Status != registry.StatusSuccess || res.Output != `{"pages":3}` {
		t.Errorf("pdf_info = %+v, %v", res, err)
	}
	for _, c := range []struct{ name, params, want string }{
		{"pdf_info", `{}`, "needs the parameters path"},
		{"pdf_info", `[1]`, "must be a JSON object"},
		{"pdf_info", `{"path":`, "must be a JSON object"},
		{"pdf_text", `{"path":"a.pdf"}`, `"pdf_text" is disabled`},
		{"nope", `{}`, `no tool "nope"`},
		{"load_tool_group", `{"group_name":"pdf"}`, "only inside a conversation"},
	} {
		if _, err := h.CallTool(ctx, c.name, json.RawMessage(c.params)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CallTool(%s, %s) = %v, want %q", c.name, c.params, err, c.want)
		}
	}
	if len(calls) != 1 {
		t.Errorf("tools ran %v; only the good call should have", calls)
	}
	if len(model.Requests()) != 0 {
		t.Errorf("CallTool called the model")
	}
}

// A schema reaches the model byte for byte: encoding/json's default escaping
// of <, > and & would send "x =\u003e y" for "x => y", costing tokens and
// differing from the JS hosts.
func TestSchemasSentVerbatim(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("ok"))
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Tools: []host.NativeTool{{
		Tool: registry.Tool{Name: "compare", Description: "Is a < b && b > c?",
			Parameters: json.RawMessage(`{"type":"object","properties":{"expr":{"type":"string","description":"such as x => x < 3 && y"}}}`)},
		Run: func(context.Context, json.RawMessage) (string, error) { return "", nil },
	}}})
	send(t, h.Session("s"), "hi")
	body := string(model.Requests()[0].Body)
	for _, want := range []string{`"description":"Is a < b && b > c?"`, `"description":"such as x => x < 3 && y"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %s:\n%s", want, body)
		}
	}
}

// A response's tool calls run at most MaxParallelTools-1 at a time (one
// session's share of the slots), and a result longer than MaxResultChars
// reaches the model cut, with a note.
func TestToolCallsBounded(t *testing.T) {
	var calls []fakemodel.Call
	for range 12 {
		calls = append(calls, fakemodel.Call{Name: "bomb", Args: `{}`})
	}
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.ToolCalls(calls...), fakemodel.ToolCall("long", `{}`), fakemodel.Text("Done."))
	defer model.Close()
	var mu sync.Mutex
	running, peak := 0, 0
	h := newHost(t, model, wire.OpenAI, host.Options{
		NoBuiltins: true, MaxParallelTools: 3,
		Tools: []host.NativeTool{
			{Tool: registry.Tool{Name: "bomb", Description: "Takes memory", TimeoutSeconds: 5}, Run: func(context.Context, json.RawMessage) (string, error) {
				mu.Lock()
				running++
				peak = max(peak, running)
				mu.Unlock()
				time.Sleep(50 * time.Millisecond)
				mu.Lock()
				running--
				mu.Unlock()
				return "ok", nil
			}},
			{Tool: registry.Tool{Name: "long", Description: "Says a lot", TimeoutSeconds: 5}, Run: func(context.Context, json.RawMessage) (string, error) {
				return strings.Repeat("é", host.MaxResultChars+5000), nil
			}},
		},
	})
	if ev := last(send(t, h.Session("s"), "Go")); ev.Type != host.EventDone {
		t.Fatalf("last event %+v", ev)
	}
	if peak != 2 {
		t.Errorf("%d calls ran at once, want 2", peak)
	}
	msgs, _ := h.Session("s").Messages(context.Background())
	var long string
	for _, m := range msgs {
		if m.Type == session.ToolResult && m.ToolName == "long" {
			long = m.Content
		}
	}
	want := strings.Repeat("é", host.MaxResultChars) + "\n\n[The result was cut at 30000 of its 35000 characters."
	if !strings.HasPrefix(long, want) {
		t.Errorf("long's result ends %q", long[len(long)-200:])
	}
	if !strings.Contains(string(model.Requests()[2].Body), "[The result was cut at 30000 of its 35000 characters.") {
		t.Error("the model did not read the note")
	}
}

// A tool that sends asks first: the Approver sees the call before it runs
// and its answer is logged; without an Approver the call is refused with how
// to allow it; the user's policy can allow it outright.
func TestApproval(t *testing.T) {
	sent := 0
	sendTool := host.NativeTool{Tool: registry.Tool{Name: "send_email", Description: "Send an email", TimeoutSeconds: 5,
		RequiredPermissions: []string{registry.PermissionSend}},
		Run: func(context.Context, json.RawMessage) (string, error) { sent++; return "sent", nil }}
	script := func() *fakemodel.Server {
		return fakemodel.New(fakemodel.OpenAI,
			fakemodel.ToolCall("send_email", `{}`), fakemodel.ToolCall("send_email", `{}`), fakemodel.Text("Done."))
	}

	model := script()
	defer model.Close()
	var asked [][]string
	answers := []session.Answer{session.AnswerOnce, session.AnswerDeny}
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, Tools: []host.NativeTool{sendTool},
		Approver: host.ApproverFunc(func(_ context.Context, id string, calls []session.Call) ([]session.Approval, error) {
			if sent != len(asked) {
				t.Errorf("the tool ran before the user answered")
			}
			var names []string
			for _, c := range calls {
				names = append(names, id+":"+c.Tool)
			}
			asked = append(asked, names)
			a := answers[0]
			answers = answers[1:]
			return []session.Approval{{ID: calls[0].ID, Answer: a}}, nil
		})})
	evs := send(t, h.Session("s"), "Email Ada twice")
	if ev := last(evs); ev.Type != host.EventDone {
		t.Fatalf("last event %+v", ev)
	}
	if diff := cmp.Diff([][]string{{"s:send_email"}, {"s:send_email"}}, asked); diff != "" || sent != 1 {
		t.Errorf("asked (-want +got) %s; sent %d times", diff, sent)
	}
	var kinds []string
	for _, m := range must(h.Session("s").Messages(context.Background())) {
		kinds = append(kinds, string(m.Type)+":"+string(m.Status)+m.Content)
	}
	want := []string{"user:Email Ada twice", "assistant:", "tool_call:awaiting_approval", "approval:once", "tool_result:successsent",
		"assistant:", "tool_call:awaiting_approval", "approval:deny",
		"tool_result:errorError (denied): The user denied this call of 'send_email': it did not run. Do not call it again unless the user asks; ask them what they want instead.",
		"assistant:Done."}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if n := len(filter(evs, host.EventApproval)); n != 2 {
		t.Errorf("%d approval events, want 2", n)
	}

	// No one to ask: the refusal ends with the program's way to allow the
	// tool (Options.AllowHint), or, given none, a sentence naming none.
	for _, c := range []struct{ hint, want string }{
		{"Allow it in Settings > Tools > {tool}.", "It did not run. Allow it in Settings > Tools > send_email."},
		{"", "It did not run. The user can allow it with an approval rule that allows 'send_email'."},
	} {
		model2 := script()
		defer model2.Close()
		sent = 0
		h2 := newHost(t, model2, wire.OpenAI, host.Options{NoBuiltins: true, Tools: []host.NativeTool{sendTool}, AllowHint: c.hint})
		send(t, h2.Session("s"), "Email Ada")
		if sent != 0 || !strings.Contains(string(model2.Requests()[1].Body), c.want) {
			t.Errorf("no one to ask, hint %q: sent %d times; the model read %s", c.hint, sent, model2.Requests()[1].Body)
		}
	}

	// The user's policy allows it.
	model3 := script()
	defer model3.Close()
	sent = 0
	h3 := newHost(t, model3, wire.OpenAI, host.Options{NoBuiltins: true, Tools: []host.NativeTool{sendTool},
		Policies: func(context.Context) ([]session.Policy, error) {
			return []session.Policy{{Tool: "send_email", Decision: registry.DecisionAllow}}, nil
		}})
	send(t, h3.Session("s"), "Email Ada")
	if sent != 2 {
		t.Errorf("allowed by policy: sent %d times, want 2", sent)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func filter(evs []host.Event, typ host.EventType) []host.Event {
	var out []host.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// A session's next turn goes to the instance that kept its state and
// sends the module only the messages logged since (wasm/ABI.md,
// "Sessions"): what reaches the model is, byte for byte, what a host that
// never saw the session sends from the whole log.
func TestSessionStateKeptByInstance(t *testing.T) {
	type run struct {
		format wire.Format
		// plain hides the MemoryStore's TailReader: the host reads the
		// whole log and sends its end.
		plain bool
	}
	runs := []run{{wire.OpenAI, false}, {wire.Anthropic, false}, {wire.Responses, false}, {wire.Gemini, false}, {wire.OpenAI, true}}
	for _, r := range runs {
		format := r.format
		t.Run(fmt.Sprintf("%s/plain=%v", format, r.plain), func(t *testing.T) {
			var mu sync.Mutex
			var calls []string
			groups, tools := pdfTools(&calls, &mu)
			turn2 := []fakemodel.Reply{
				fakemodel.ToolCall("pdf_text", `{"path":"a.pdf"}`),
				fakemodel.Text("It says hello."),
			}
			warm := fakemodel.New(fakemodel.Format(format),
				fakemodel.ToolCall("load_tool_group", `{"group_name":"pdf"}`),
				fakemodel.ToolCall("pdf_info", `{"path":"a.pdf"}`),
				fakemodel.Text("a.pdf has 3 pages."),
			)
			defer warm.Close()
			store := host.NewMemoryStore()
			var hostStore host.Store = store
			if r.plain {
				hostStore = plainStore{store}
			}
			kept := newHost(t, warm, format, host.Options{Store: hostStore, Groups: groups, Tools: tools})
			send(t, kept.Session("s1"), "How long is a.pdf?")

			// A copy of the log for a host that never saw the session.
			copied := host.NewMemoryStore()
			log := must(store.Messages(context.Background(), "s1"))
			if err := copied.Append(context.Background(), "s1", log...); err != nil {
				t.Fatal(err)
			}
			cold := fakemodel.New(fakemodel.Format(format), append(make([]fakemodel.Reply, 3), turn2...)...)
			cold.Skip(3) // the ids of the warm server's replies 4 and 5
			defer cold.Close()
			fresh := newHost(t, cold, format, host.Options{Store: copied, Groups: groups, Tools: tools})
			send(t, fresh.Session("s1"), "What does it say?")

			warm.Add(turn2...)
			send(t, kept.Session("s1"), "What does it say?")
			got, want := warm.Requests()[3:], cold.Requests()
			if len(got) != 2 || len(want) != 2 {
				t.Fatalf("%d and %d model calls, want 2", len(got), len(want))
			}
			for i := range got {
				if string(got[i].Body) != string(want[i].Body) {
					t.Errorf("call %d of the second turn:\n%s\nfrom the whole log:\n%s", i+1, got[i].Body, want[i].Body)
				}
			}
		})
	}
}

// A turn holds a module instance only while the module works: with one
// instance, a session's turn runs to its end while another session's
// model call is still out.
func TestTurnsShareAnInstanceWhileTheModelWorks(t *testing.T) {
	hold := make(chan struct{})
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Reply{Text: "slow", Hold: hold}, fakemodel.Text("quick"))
	defer model.Close()
	h := newHost(t, model, wire.OpenAI, host.Options{NoBuiltins: true, MaxInstances: 1})
	slow := make(chan host.Event, 1)
	go func() {
		evs := send(t, h.Session("slow"), "hi")
		slow <- last(evs)
	}()
	for len(model.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	if ev := last(send(t, h.Session("quick"), "hi")); ev.Type != host.EventDone || ev.Text != "quick" {
		t.Fatalf("the second session's turn ended with %+v", ev)
	}
	close(hold)
	if ev := <-slow; ev.Type != host.EventDone || ev.Text != "slow" {
		t.Fatalf("the first session's turn ended with %+v", ev)
	}
}

// plainStore is a Store and nothing more.
type plainStore struct{ host.Store }

// search_tools through the module ranks with the word vectors the host
// hands every instance: "the words in a document" shares no word with
// "PDF text", and finds it only with them. (NoEncoderSearch: the module
// ranks, not the host.)
func TestSearchToolsWithWordVectors(t *testing.T) {
	for _, tt := range []struct {
		name string
		off  bool
		want string
	}{
		{"with word vectors", false, "- pdf_text (PDF Tools): PDF text"},
		{"without", true, "Error (not_found): No tool matches 'the words in a document'."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var calls []string
			groups, tools := pdfTools(&calls, &mu)
			model := fakemodel.New(fakemodel.OpenAI,
				fakemodel.ToolCall("search_tools", `{"query":"the words in a document","limit":1}`),
				fakemodel.Text("Done."),
			)
			defer model.Close()
			h := newHost(t, model, wire.OpenAI, host.Options{Groups: groups, Tools: tools, SearchTools: true, NoWordVectors: tt.off, NoEncoderSearch: true, NoBuiltins: true})
			var result string
			for _, ev := range send(t, h.Session("s"), "What does a.pdf say?") {
				if ev.Type == host.EventMessage && ev.Message.Type == session.ToolResult {
					result = ev.Message.Content
				}
			}
			if !strings.Contains(result, tt.want) {
				t.Errorf("search_tools answered %q, want it to contain %q", result, tt.want)
			}
		})
	}
}

// A turn's failed model calls are tried again as the module decides: the
// host sends the same body after the wait the module's retry action says,
// shows its sentence, and ends the turn when the module gives up.
func TestTurnRetries(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.Reply{Status: 429, ErrorBody: `{"error":{"message":"Rate limit reached"}}`, RetryAfter: "0"},
		fakemodel.Error(503, "busy"),
		fakemodel.Text("Got through."),
		fakemodel.Reply{Status: 429, ErrorBody: `{"error":{"message":"Slow down"}}`, RetryAfter: "3600"},
		fakemodel.Text("never"),
	)
	defer model.Close()
	h, err := host.New(context.Background(), host.Options{NoBuiltins: true, Module: module.Config{CacheDir: cacheDir},
		Provider: &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: model.BaseURL(), ModelName: "m", Backoff: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	evs := send(t, h.Session("s"), "hi")
	var retries []string
	for _, ev := range evs {
		if ev.Type == host.EventRetry {
			retries = append(retries, ev.Retry.Message)
		}
	}
	want := []string{
		"The provider answered 429: trying again in 1 ms (retry 1 of 3).",
		"The provider answered 503: trying again in 2 ms (retry 2 of 3).",
	}
	if !slices.Equal(retries, want) {
		t.Errorf("retries %q, want %q", retries, want)
	}
	if ev := last(evs); ev.Type != host.EventDone || ev.Text != "Got through." {
		t.Errorf("last event %+v", ev)
	}
	reqs := model.Requests()
	if len(reqs) != 3 || !bytes.Equal(reqs[0].Body, reqs[2].Body) {
		t.Fatalf("%d requests, want the same body 3 times", len(reqs))
	}
	// The provider asks for longer than a retry waits: the turn fails.
	ev := last(send(t, h.Session("s2"), "hi"))
	if ev.Type != host.EventFailed || ev.Failure == nil || !strings.Contains(ev.Failure.Message, "Slow down") {
		t.Errorf("last event %+v, want the 429's failure", ev)
	}
	if n := len(model.Requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}
