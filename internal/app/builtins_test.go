package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/internal/transcript"
	"github.com/toolroute/toolroute/registry/session"
)

// builtinCase is a case of testdata/builtins (its README says the format).
type builtinCase struct {
	User  string   `json:"user"`
	Hosts []string `json:"hosts"`
	Calls []struct {
		Tool   string          `json:"tool"`
		Input  json.RawMessage `json:"input"`
		Expect struct {
			Status          string   `json:"status"`
			Output          *string  `json:"output"`
			OutputMatches   string   `json:"output_matches"`
			ErrorType       string   `json:"error_type"`
			MessageContains []string `json:"message_contains"`
		} `json:"expect"`
	} `json:"calls"`
}

// TestBuiltinConformance replays testdata/builtins in the Go program as a
// user would: a scripted model makes each call in its own response, every
// approval is answered once, and each tool_result is checked. The browser
// and the worker replay the same cases (web/apps/chat/test, web/apps/worker/test).
func TestBuiltinConformance(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/builtins/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			_, files, err := transcript.ReadArchive(path)
			if err != nil {
				t.Fatal(err)
			}
			var c builtinCase
			if err := json.Unmarshal(files["case.json"], &c); err != nil {
				t.Fatalf("case.json: %v", err)
			}
			if c.Hosts != nil && !slices.Contains(c.Hosts, "go") {
				t.Skip("not offered by the Go program")
			}
			replayBuiltinCase(t, c, servePages(t, files))
		})
	}
}

// pagesOrigin is where a case's pages/ files are, for its tools: a rewrite
// rule sends it to the local server of servePages, so every other address
// is checked as in use.
const pagesOrigin = "https://pages.test"

// pageTypes are the Content-Types of the pages, by extension.
var pageTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8",
	".json": "application/json", ".png": "image/png",
}

// servePages serves the case's pages/PATH files at /PATH on loopback,
// answering 404 for any other path, and gives the fetch rewrite rules to
// reach them as pagesOrigin; none without pages.
func servePages(t *testing.T, files map[string][]byte) []safehttp.Rewrite {
	pages := map[string][]byte{}
	for name, data := range files {
		if path, ok := strings.CutPrefix(name, "pages/"); ok {
			pages["/"+path] = data
		}
	}
	if len(pages) == 0 {
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		typ, ok := pageTypes[filepath.Ext(r.URL.Path)]
		if !ok {
			typ = "application/octet-stream"
		}
		w.Header().Set("Content-Type", typ)
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return []safehttp.Rewrite{{From: pagesOrigin, To: srv.URL}}
}

func replayBuiltinCase(t *testing.T, c builtinCase, rewrites []safehttp.Rewrite) {
	var replies []fakemodel.Reply
	for _, call := range c.Calls {
		replies = append(replies, fakemodel.ToolCall(call.Tool, string(call.Input)))
	}
	model := fakemodel.New(fakemodel.OpenAI, append(replies, fakemodel.Text("Done."))...)
	defer model.Close()
	cfg := testConfig(t)
	cfg.Provider, cfg.Model = "openai", "fake-1"
	cfg.Fetch.Rewrites = rewrites
	cfg.Getenv = env(map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "sk-test"})
	cfg.Approver = host.ApproverFunc(func(_ context.Context, _ string, calls []session.Call) ([]session.Approval, error) {
		out := make([]session.Approval, len(calls))
		for i, call := range calls {
			out[i] = session.Approval{ID: call.ID, Answer: session.AnswerOnce}
		}
		return out, nil
	})
	a := open(t, cfg)
	user := c.User
	if user == "" {
		user = "Run the calls"
	}
	// The turn ends with the model's reply: a case of more calls than a
	// turn's model calls allow would end it early and still compare.
	evs := send(t, a, "case", user)
	if last := evs[len(evs)-1]; last.Type != host.EventDone {
		t.Errorf("the turn ended %s, not done: %+v", last.Type, last.Failure)
	}
	msgs, err := a.Store.Messages(context.Background(), "case")
	if err != nil {
		t.Fatal(err)
	}
	var results []session.Message
	for _, m := range msgs {
		if m.Type == session.ToolResult {
			results = append(results, m)
		}
	}
	if len(results) != len(c.Calls) {
		t.Fatalf("%d results for %d calls: %+v", len(results), len(c.Calls), results)
	}
	for i, call := range c.Calls {
		r, e := results[i], call.Expect
		where := fmt.Sprintf("call %d (%s)", i, call.Tool)
		status := e.Status
		if status == "" {
			status = "success"
		}
		if string(r.Status) != status || (e.ErrorType != "" && r.ErrorType != e.ErrorType) {
			t.Errorf("%s: %s %s %q, want %s %s", where, r.Status, r.ErrorType, r.Content, status, e.ErrorType)
		}
		if e.Output != nil && r.Content != *e.Output {
			t.Errorf("%s: output %q, want %q", where, r.Content, *e.Output)
		}
		if e.OutputMatches != "" && !regexp.MustCompile(e.OutputMatches).MatchString(r.Content) {
			t.Errorf("%s: output %q does not match %q", where, r.Content, e.OutputMatches)
		}
		for _, s := range e.MessageContains {
			if !strings.Contains(r.Content, s) {
				t.Errorf("%s: %q does not contain %q", where, r.Content, s)
			}
		}
	}
}
