package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/registry/session"
)

var cacheDir string

func TestMain(m *testing.M) { os.Exit(testcache.Run(m, &cacheDir)) }

// token is the test servers' token.
const token = "test-token-0123456789abcdef"

// start serves an app whose OpenAI-compatible model is the fake.
func start(t *testing.T, model *fakemodel.Server, env ...string) *httptest.Server {
	t.Helper()
	return startWith(t, model, server.Options{Token: token}, env...)
}

// startWith is start with options. The app asks o.Approvals, if set.
func startWith(t *testing.T, model *fakemodel.Server, o server.Options, env ...string) *httptest.Server {
	t.Helper()
	return startIn(t, t.TempDir(), model, o, env...)
}

// startIn is startWith in dir, where the test may have put user tools
// (config/tools) first.
func startIn(t *testing.T, dir string, model *fakemodel.Server, o server.Options, env ...string) *httptest.Server {
	t.Helper()
	srv, _ := startApp(t, dir, model, o, env...)
	return srv
}

// startApp is startIn that also returns the app served.
func startApp(t *testing.T, dir string, model *fakemodel.Server, o server.Options, env ...string) (*httptest.Server, *app.App) {
	t.Helper()
	vars := map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "test-key"}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	a, err := app.Open(context.Background(), app.Config{
		DataDir: filepath.Join(dir, "data"), ConfigDir: filepath.Join(dir, "config"), CacheDir: testcache.App(cacheDir),
		Model: "fake-model", Getenv: func(k string) string { return vars[k] }, Watch: -1, Stream: true,
		Approver: approver(o.Approvals),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(server.Handler(a, o))
	srv.Listener = server.BoundSendBuffers(srv.Listener) // as serve listens
	srv.Start()
	t.Cleanup(func() { srv.Close(); a.Close() })
	return srv, a
}

type event struct {
	Name string
	Data map[string]any
}

// do sends a request with the token.
func do(t *testing.T, method, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// post sends JSON and returns the response.
func post(t *testing.T, srv *httptest.Server, path, body string) *http.Response {
	t.Helper()
	return do(t, "POST", srv.URL+path, body)
}

// turn sends a message and reads the server-sent events.
func turn(t *testing.T, srv *httptest.Server, session, text string) []event {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"text": text})
	return readEvents(t, post(t, srv, "/api/sessions/"+session+"/messages", string(body)))
}

// readEvents reads a turn's server-sent events.
func readEvents(t *testing.T, resp *http.Response) []event {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var evs []event
	sc := bufio.NewScanner(resp.Body)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("event %s data %q: %v", name, line, err)
			}
			evs = append(evs, event{name, data})
		}
	}
	return evs
}

// get decodes a JSON answer, checking its status.
func get(t *testing.T, srv *httptest.Server, path string, status int, v any) {
	t.Helper()
	resp := do(t, "GET", srv.URL+path, "")
	defer resp.Body.Close()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: HTTP %d, want %d: %s", path, resp.StatusCode, status, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func TestConversation(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.ToolCall("get_config", `{}`),
		fakemodel.Text("The model is fake-model."),
		fakemodel.ToolCall("set_config", `{"key":"model","value":"fake-2"}`),
		fakemodel.Text("Done."),
	)
	defer model.Close()
	srv := start(t, model)

	// A new session is an id; nothing is stored before its first message.
	var created map[string]any
	resp := post(t, srv, "/api/sessions", `{}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: HTTP %d", resp.StatusCode)
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	id := created["id"].(string)
	if created["messages"] != float64(0) || created["title"] != "" {
		t.Errorf("created = %v", created)
	}
	var none []map[string]any
	get(t, srv, "/api/sessions", http.StatusOK, &none)
	if len(none) != 0 {
		t.Errorf("sessions before any message = %v", none)
	}

	evs := turn(t, srv, id, "Which model is this?")
	var names []string
	for _, e := range evs {
		if !slices.Contains(names, e.Name) {
			names = append(names, e.Name)
		}
	}
	for _, want := range []string{"message", "model_call", "text", "group_loaded", "tool_calls", "done"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s event among %v", want, names)
		}
	}
	last := evs[len(evs)-1]
	if last.Name != "done" || last.Data["text"] != "The model is fake-model." {
		t.Errorf("last event = %+v", last)
	}

	// The catalogue shows the group loaded in this session.
	var cat struct {
		Active       []string `json:"active"`
		LoadedGroups []string `json:"loaded_groups"`
		Files        []struct {
			File  string   `json:"file"`
			Tools []string `json:"tools"`
		} `json:"files"`
	}
	get(t, srv, "/api/catalogue?session="+id, http.StatusOK, &cat)
	if !slices.Equal(cat.LoadedGroups, []string{"config"}) || !slices.Contains(cat.Active, "get_config") || len(cat.Files) == 0 {
		t.Errorf("catalogue = %+v", cat)
	}

	// The second turn sends the config group without loading it again.
	turn(t, srv, id, "Switch to fake-2")
	reqs := model.Requests()
	if got := reqs[3].ToolNames(); !slices.Contains(got, "set_config") {
		t.Errorf("the second turn's first call offered %v", got)
	}

	var msgs []map[string]any
	get(t, srv, "/api/sessions/"+id+"/messages", http.StatusOK, &msgs)
	if len(msgs) < 8 || msgs[0]["type"] != "user" || msgs[0]["content"] != "Which model is this?" {
		t.Errorf("messages = %v", msgs)
	}
	var sessions []map[string]any
	get(t, srv, "/api/sessions", http.StatusOK, &sessions)
	if len(sessions) != 1 || sessions[0]["id"] != id || sessions[0]["title"] != "Which model is this?" || sessions[0]["messages"] != float64(len(msgs)) {
		t.Errorf("sessions = %v", sessions)
	}

	// clear: a new session, stored by its first message.
	resp = post(t, srv, "/api/sessions/"+id+"/clear", `{}`)
	var cleared map[string]any
	json.NewDecoder(resp.Body).Decode(&cleared)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || cleared["id"] == id || cleared["messages"] != float64(0) {
		t.Errorf("clear = HTTP %d %v", resp.StatusCode, cleared)
	}
	var e map[string]string
	get(t, srv, "/api/sessions/"+cleared["id"].(string)+"/messages", http.StatusNotFound, &e)
	get(t, srv, "/api/catalogue?session="+cleared["id"].(string), http.StatusOK, &cat)
	if len(cat.LoadedGroups) != 0 {
		t.Errorf("the cleared session has groups %v", cat.LoadedGroups)
	}
}

// POST /api/sessions/{id}/compact summarises the earlier messages in one
// model call and streams that turn's events; later turns send the summary
// in the system prompt, and the messages stay in the log. An unknown
// session is a 404.
func TestCompact(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("One."), fakemodel.Text("Two."), fakemodel.Text("SUMMARY: two questions."), fakemodel.Text("Three."))
	defer model.Close()
	srv := start(t, model)
	turn(t, srv, "s", "First question")
	turn(t, srv, "s", "Second question")
	evs := readEvents(t, post(t, srv, "/api/sessions/s/compact", `{}`))
	last := evs[len(evs)-1]
	if last.Name != "done" || !strings.HasPrefix(last.Data["text"].(string), "Compacted 2 messages into a summary; the 2 after them") {
		t.Fatalf("compact's events end with %+v", last)
	}
	turn(t, srv, "s", "Third question")
	reqs := model.Requests()
	if body := string(reqs[3].Body); !strings.Contains(body, "SUMMARY: two questions.") || strings.Contains(body, "First question") {
		t.Errorf("the call after the compaction:\n%s", body)
	}
	var msgs []map[string]any
	get(t, srv, "/api/sessions/s/messages", http.StatusOK, &msgs)
	if len(msgs) != 7 || msgs[0]["content"] != "First question" || msgs[4]["type"] != "summary" {
		t.Errorf("the log after the compaction: %v", msgs)
	}
	var e map[string]string
	resp := post(t, srv, "/api/sessions/nope/compact", `{}`)
	json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || e["error"] == "" {
		t.Errorf("compact of an unknown session: HTTP %d %v", resp.StatusCode, e)
	}
}

// A message to a session that does not exist yet creates it, titled by the
// message.
func TestSendCreatesSession(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hi."))
	defer model.Close()
	srv := start(t, model)
	turn(t, srv, "mine", "Hello there")
	var s map[string]any
	get(t, srv, "/api/sessions/mine", http.StatusOK, &s)
	if s["title"] != "Hello there" || s["messages"] != float64(2) {
		t.Errorf("session = %v", s)
	}
}

func TestProviderErrorHint(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Error(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`))
	defer model.Close()
	srv := start(t, model)
	evs := turn(t, srv, "s", "hi")
	last := evs[len(evs)-1]
	failure, _ := last.Data["failure"].(map[string]any)
	msg, _ := failure["message"].(string)
	if last.Name != "failed" || !strings.Contains(msg, "Incorrect API key provided") || !strings.Contains(msg, "check OPENAI_API_KEY") {
		t.Errorf("last event = %+v", last)
	}
	// The user's message is kept, and the failure, for a reader of the log.
	var msgs []map[string]any
	get(t, srv, "/api/sessions/s/messages", http.StatusOK, &msgs)
	if len(msgs) != 2 || msgs[0]["content"] != "hi" || msgs[1]["type"] != "turn_end" || msgs[1]["error_type"] != "model_error" {
		t.Errorf("messages = %v", msgs)
	}
}

func TestBadRequests(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	srv := start(t, model)
	do := func(method, path, contentType, body, host string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if host != "" {
			req.Host = host
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error
	}
	for _, c := range []struct {
		name, method, path, contentType, body, host string
		status                                      int
		want                                        string
	}{
		{"form post", "POST", "/api/sessions", "application/x-www-form-urlencoded", "title=x", "", 415, "Content-Type: application/json"},
		{"bad json", "POST", "/api/sessions", "application/json", "{", "", 400, "not the JSON"},
		{"a title for a new session", "POST", "/api/sessions", "application/json", `{"title":"x"}`, "", 400, "titled after its first message"},
		{"a form patch", "PATCH", "/api/sessions/s", "application/x-www-form-urlencoded", "title=x", "", 415, "Content-Type: application/json"},
		{"no text", "POST", "/api/sessions/s/messages", "application/json", `{"text":"  "}`, "", 400, `{"text": "..."}`},
		{"too big", "POST", "/api/sessions/s/messages", "application/json", `{"text":"` + strings.Repeat("a", server.MaxMessageBody) + `"}`, "", 413, "over"},
		{"too big a title", "PATCH", "/api/sessions/s", "application/json", `{"title":"` + strings.Repeat("a", server.MaxBody) + `"}`, "", 413, "over"},
		{"unknown session", "GET", "/api/sessions/nope/messages", "", "", "", 404, "GET /api/sessions lists them"},
		{"unknown endpoint", "GET", "/api/nothing", "", "", "", 404, "no such endpoint"},
		{"rebinding", "GET", "/api/health", "", "", "evil.example:80", 403, "only on localhost"},
	} {
		if status, msg := do(c.method, c.path, c.contentType, c.body, c.host); status != c.status || !strings.Contains(msg, c.want) {
			t.Errorf("%s: HTTP %d %q, want %d with %q", c.name, status, msg, c.status, c.want)
		}
	}
	if len(model.Requests()) != 0 {
		t.Errorf("a bad request reached the model")
	}
	// The page: the browser UI built in (TestBuiltInUI has the rest).
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if index, _ := fs.ReadFile(webui.Files, "index.html"); resp.StatusCode != 200 || string(page) != string(index) {
		t.Errorf("page: HTTP %d, %.100q; want the UI's index.html", resp.StatusCode, page)
	}
	var health map[string]any
	get(t, srv, "/api/health", http.StatusOK, &health)
	if health["ok"] != true || !strings.Contains(health["provider"].(string), "fake-model") {
		t.Errorf("health = %v", health)
	}
}

// The model proxy sends a call once: a 500 goes back to the page with the
// provider's retry policy, so that the page's module tries again and its
// user sees each retry, where the proxy tried again unseen for seconds.
func TestModelProxyTriesOnce(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Error(500, `{"error":{"message":"boom"}}`), fakemodel.Text("Fine."))
	defer model.Close()
	srv := start(t, model)
	req := `{"format":"openai","path":"/chat/completions","headers":{"content-type":"application/json"},"body":{"model":"fake-model","messages":[{"role":"user","content":"hi"}]}}`
	resp := post(t, srv, "/api/model", req)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(body), "boom") {
		t.Errorf("HTTP %d %s, want the provider's 500", resp.StatusCode, body)
	}
	var policy session.Retries
	if err := json.Unmarshal([]byte(resp.Header.Get(server.RetriesHeader)), &policy); err != nil || policy.Count != 3 {
		t.Errorf("%s: %q (%v), want the provider's policy, 3 retries", server.RetriesHeader, resp.Header.Get(server.RetriesHeader), err)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d requests reached the model, want 1: the page tries again, not the proxy", n)
	}
	resp = post(t, srv, "/api/model", req)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get(server.RetriesHeader) != "" {
		t.Errorf("HTTP %d with %s %q, want 200 with none", resp.StatusCode, server.RetriesHeader, resp.Header.Get(server.RetriesHeader))
	}
}

// The model proxy: the page's module builds the request; the server sends
// it with its own key and streams the provider's answer back.
func TestModelProxy(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Proxied."), fakemodel.Text("Whole."))
	defer model.Close()
	srv := start(t, model)
	var health map[string]any
	get(t, srv, "/api/health", http.StatusOK, &health)
	if health["format"] != "openai" || health["model"] != "fake-model" {
		t.Errorf("health = %v", health)
	}

	call := func(req string) (*http.Response, string) {
		resp := post(t, srv, "/api/model", req)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}
	resp, body := call(`{"format":"openai","path":"/chat/completions","stream":true,
		"headers":{"content-type":"application/json","authorization":"Bearer from-the-page","x-evil":"1"},
		"body":{"model":"fake-model","stream":true,"messages":[{"role":"user","content":"hi"}]}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(body, `"content":"Prox"`) || !strings.Contains(body, "data: [DONE]") {
		t.Errorf("streamed: HTTP %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	got := model.Requests()[0]
	if got.Header.Get("Authorization") != "Bearer test-key" || got.Header.Get("X-Evil") != "" || got.Path != "/v1/chat/completions" {
		t.Errorf("the provider got %s with headers %v", got.Path, got.Header)
	}
	resp, body = call(`{"format":"openai","path":"/chat/completions","body":{"model":"fake-model","messages":[{"role":"user","content":"hi"}]}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"Whole."`) {
		t.Errorf("whole: HTTP %d %s", resp.StatusCode, body)
	}

	for _, c := range []struct{ req, want string }{
		{`{"format":"anthropic","path":"/v1/messages","body":{}}`, `speaks the openai format`},
		{`{"format":"openai","path":"/models","body":{}}`, `forwards only openai requests to /chat/completions`},
		{`{"format":"openai","path":"/chat/completions"}`, `send the module's model request`},
		{` `, `send the module's model request`},
		{`{"format":`, `the body is not the JSON this endpoint takes: unexpected end of JSON input`},
		{`[1]`, `the body is not the JSON this endpoint takes: send an object`},
	} {
		resp, body := call(c.req)
		if resp.StatusCode < 400 || !strings.Contains(body, c.want) {
			t.Errorf("%s: HTTP %d %s", c.req, resp.StatusCode, body)
		}
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("%d requests reached the provider, want 2", n)
	}
}

// The proxy forwards Gemini's paths, which name the model and whether the
// answer streams, and nothing else, with the server's key in Gemini's header.
func TestModelProxyGemini(t *testing.T) {
	model := fakemodel.New(fakemodel.Gemini, fakemodel.Text("Proxied."))
	defer model.Close()
	srv := start(t, model, "OPENAI_BASE_URL", "", "OPENAI_API_KEY", "", "GEMINI_BASE_URL", model.BaseURL(), "GEMINI_API_KEY", "test-key")
	var health map[string]any
	get(t, srv, "/api/health", http.StatusOK, &health)
	if health["format"] != "gemini" || !strings.HasPrefix(health["provider"].(string), "gemini at "+model.BaseURL()) {
		t.Errorf("health = %v", health)
	}
	resp := post(t, srv, "/api/model", `{"format":"gemini","path":"/v1beta/models/fake-model:streamGenerateContent?alt=sse","stream":true,
		"headers":{"content-type":"application/json","x-goog-api-key":"from-the-page"},
		"body":{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(string(body), `"finishReason":"STOP"`) {
		t.Errorf("HTTP %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	got := model.Requests()[0]
	if got.Header.Get("X-Goog-Api-Key") != "test-key" || got.Path != "/v1beta/models/fake-model:streamGenerateContent" || got.Query != "alt=sse" {
		t.Errorf("the provider got %s?%s with headers %v", got.Path, got.Query, got.Header)
	}
	for _, path := range []string{"/v1beta/models/fake-model:countTokens", "/v1beta/models/../files:generateContent", "/v1beta/models/m:generateContent?key=x", "/v1/messages"} {
		resp := post(t, srv, "/api/model", `{"format":"gemini","path":"`+path+`","body":{}}`)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 || !strings.Contains(string(body), "forwards only gemini requests to /v1beta/models/MODEL:generateContent") {
			t.Errorf("%s: HTTP %d %s", path, resp.StatusCode, body)
		}
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d requests reached the provider, want 1", n)
	}
}

// A browser host gets the JS tools, their sources and the libraries, and
// none of the host-native tools, which run in Go only.
func TestBrowserCatalogue(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	srv := start(t, model)
	var bc struct {
		Catalogue struct {
			Manifests []struct {
				File   string `json:"file"`
				Source string `json:"source"`
			} `json:"manifests"`
			Tools  []any `json:"tools"`
			Groups []any `json:"groups"`
		} `json:"catalogue"`
		Sources   map[string]string `json:"sources"`
		Libraries map[string]string `json:"libraries"`
	}
	get(t, srv, "/api/ui/catalogue", http.StatusOK, &bc)
	// No MCP server is configured: no server tools.
	if len(bc.Catalogue.Tools) != 0 || len(bc.Catalogue.Groups) != 0 {
		t.Errorf("host-native tools or groups sent: %d tools, %d groups", len(bc.Catalogue.Tools), len(bc.Catalogue.Groups))
	}
	// A JS tool is the page's to run, never the server's for it.
	resp := post(t, srv, "/api/ui/tools/read_file", `{"input":{"path":"notes.md"}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "the page runs its JS tools itself") {
		t.Errorf("POST /api/ui/tools/read_file: %d %s", resp.StatusCode, body)
	}
	found := false
	for _, m := range bc.Catalogue.Manifests {
		if m.File == "builtin/google_tasks.json" {
			found = true
			if !strings.Contains(bc.Sources[m.Source], "async function listTasks") {
				t.Errorf("the source of %s (%s) is missing", m.File, m.Source)
			}
		}
	}
	if !found || !strings.Contains(bc.Libraries["google_api"], "module.exports") {
		t.Errorf("manifests %v, libraries %d", bc.Catalogue.Manifests, len(bc.Libraries))
	}
}

// The page's google bridge gets the server's Google account.
func TestGoogleToken(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	srv := start(t, model)
	resp := do(t, "GET", srv.URL+"/api/google/token", "")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), "toolroute google login") {
		t.Errorf("no account: HTTP %d %s", resp.StatusCode, body)
	}
	srv = start(t, model, "GOOGLE_ACCESS_TOKEN", "ya29.from-env")
	var tok map[string]string
	get(t, srv, "/api/google/token", http.StatusOK, &tok)
	if tok["access_token"] != "ya29.from-env" {
		t.Errorf("token = %v", tok)
	}
}

// The page learns of catalogue changes from /api/ui/events: a "catalogue"
// event at once, then one at every change (here a tool disabled through the
// config group), with a growing generation.
func TestServeCatalogueEvents(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	srv, a := startApp(t, t.TempDir(), model, server.Options{Token: token})
	if resp, err := http.Get(srv.URL + "/api/ui/events"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET /api/ui/events without the token: %v %v", resp.Status, err)
	} else {
		resp.Body.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/ui/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	next := func() int {
		t.Helper()
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var e struct{ Generation int }
				if err := json.Unmarshal([]byte(data), &e); err != nil {
					t.Fatalf("data %q: %v", data, err)
				}
				return e.Generation
			}
		}
		t.Fatalf("the stream ended: %v", sc.Err())
		return 0
	}
	first := next()
	res, err := a.Host.CallTool(ctx, "set_tool_enabled", json.RawMessage(`{"name":"get_current_time","enabled":false}`))
	if err != nil || res.Status != "success" {
		t.Fatalf("set_tool_enabled: %+v, %v", res, err)
	}
	if second := next(); second <= first {
		t.Errorf("generation %d after the change, %d before", second, first)
	}
}

// Renaming and deleting: a session made by its first message is renamed,
// refused a bad title, and deleted with its log, unless its turn runs.
func TestRenameAndDelete(t *testing.T) {
	hold := make(chan struct{})
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hi."), fakemodel.Text("Else."), fakemodel.Reply{Text: "Late.", Hold: hold})
	defer model.Close()
	srv := start(t, model)
	turn(t, srv, "s", "Plan my trip to Lisbon in May")
	other := "t"
	turn(t, srv, other, "Something else")

	send := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		resp := do(t, method, srv.URL+path, body)
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	status, s := send("PATCH", "/api/sessions/s", `{"title":"  Lisbon,\n May "}`)
	if status != http.StatusOK || s["title"] != "Lisbon, May" || s["messages"] != float64(2) || s["id"] != "s" {
		t.Errorf("rename: HTTP %d %v", status, s)
	}
	var listed []map[string]any
	get(t, srv, "/api/sessions", http.StatusOK, &listed)
	if len(listed) != 2 || listed[1]["title"] != "Lisbon, May" {
		t.Errorf("sessions = %v", listed)
	}

	for _, c := range []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"no title", "PATCH", "/api/sessions/s", `{}`, 400, `give the new title as {"title": "..."}`},
		{"empty title", "PATCH", "/api/sessions/s", `{"title":" \n "}`, 400, "the title is empty: give one of 1 to 200 characters"},
		{"long title", "PATCH", "/api/sessions/s", `{"title":"` + strings.Repeat("a", 201) + `"}`, 400, "the title has 201 characters: give one of 1 to 200"},
		{"not a string", "PATCH", "/api/sessions/s", `{"title":7}`, 400, `the body is not the JSON this endpoint takes: "title" is a number, not a string: give the new title as {"title": "..."}`},
		{"rename unknown", "PATCH", "/api/sessions/nope", `{"title":"x"}`, 404, `no session "nope": GET /api/sessions lists them`},
		{"delete unknown", "DELETE", "/api/sessions/nope", "", 404, `no session "nope"`},
	} {
		status, v := send(c.method, c.path, c.body)
		if status != c.status || !strings.Contains(fmt.Sprint(v["error"]), c.want) {
			t.Errorf("%s: HTTP %d %v, want %d with %q", c.name, status, v, c.status, c.want)
		}
	}

	// While a turn runs in it, the session stays; once it ends, it goes.
	st := startTurn(t, srv, "s", "One more thing")
	st.until("model_call")
	if status, v := send("DELETE", "/api/sessions/s", ""); status != http.StatusConflict || !strings.Contains(fmt.Sprint(v["error"]), "has a turn running: wait for its done or failed event, or stop it") {
		t.Errorf("delete while a turn runs: HTTP %d %v", status, v)
	}
	close(hold)
	if last := st.rest(); last.Name != "done" {
		t.Fatalf("the turn ended with %v", last)
	}
	deadline := time.Now().Add(testwait.Failsafe)
	for {
		status, v := send("DELETE", "/api/sessions/s", "")
		if status == http.StatusNoContent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delete after the turn: HTTP %d %v", status, v)
		}
		time.Sleep(20 * time.Millisecond) // the turn's lock goes just after its last event
	}
	var e map[string]string
	get(t, srv, "/api/sessions/s", http.StatusNotFound, &e)
	get(t, srv, "/api/sessions/s/messages", http.StatusNotFound, &e)
	get(t, srv, "/api/sessions", http.StatusOK, &listed)
	if len(listed) != 1 || listed[0]["id"] != other {
		t.Errorf("sessions after delete = %v", listed)
	}
}

// A search of the sessions (GET /api/sessions?q=) answers those whose
// title or messages have every word, newest first, each with the snippet
// of its best matching message; a title matched alone has none. The
// browser UI's sessions panel asks it.
func TestSessionSearch(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Lisbon in May is warm."), fakemodel.Text("Buy milk."), fakemodel.Text("Noted."))
	defer model.Close()
	srv := start(t, model)
	turn(t, srv, "trip", "Plan my trip")
	turn(t, srv, "shop", "A shopping list for Lisbon")
	turn(t, srv, "cafe", "Where is the café?")
	if resp := do(t, "PATCH", srv.URL+"/api/sessions/trip", `{"title":"Holidays"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("rename: HTTP %d", resp.StatusCode)
	}
	for _, c := range []struct {
		name, query string
		want        [][2]string // id, snippet
	}{
		{"message words", "lisbon", [][2]string{{"shop", "A shopping list for **Lisbon**"}, {"trip", "**Lisbon** in May is warm."}}},
		{"every word", "lisbon+warm", [][2]string{{"trip", "**Lisbon** in May is **warm**."}}},
		{"title alone", "holidays", [][2]string{{"trip", ""}}},
		{"without accents", "CAFE", [][2]string{{"cafe", "Where is the **café**?"}}},
		{"no word", "%21%3F", [][2]string{}},
		{"nothing", "tokyo", [][2]string{}},
	} {
		var got []map[string]any
		get(t, srv, "/api/sessions?q="+c.query, http.StatusOK, &got)
		pairs := [][2]string{}
		for _, s := range got {
			snippet, _ := s["snippet"].(string)
			pairs = append(pairs, [2]string{s["id"].(string), snippet})
		}
		if !slices.Equal(pairs, c.want) {
			t.Errorf("%s: q=%s answered %v, want %v", c.name, c.query, pairs, c.want)
		}
	}
	var all []map[string]any
	get(t, srv, "/api/sessions", http.StatusOK, &all)
	if len(all) != 3 || all[0]["snippet"] != nil {
		t.Errorf("without q: %v", all)
	}
	var health map[string]any
	get(t, srv, "/api/health", http.StatusOK, &health)
	if health["page_chats"] != "server" {
		t.Errorf("health = %v, want page_chats server", health)
	}
}

// The browser UI's model picker: GET /api/models lists the provider's
// models (its GET BASE/models, with the key) with the one turns call, and
// a message's model is the model of that turn alone.
func TestModelPicker(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("From the small one."), fakemodel.Text("From the default."))
	defer model.Close()
	upstream, _ := url.Parse(model.URL)
	var keys []string
	list := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			keys = append(keys, r.Header.Get("Authorization"))
			io.WriteString(w, `{"object":"list","data":[{"id":"fake-model"},{"id":"fake-small"}]}`)
			return
		}
		httputil.NewSingleHostReverseProxy(upstream).ServeHTTP(w, r)
	}))
	defer list.Close()
	srv := start(t, model, "OPENAI_BASE_URL", list.URL+"/v1")

	var got struct {
		Model  string   `json:"model"`
		Models []string `json:"models"`
	}
	get(t, srv, "/api/models", http.StatusOK, &got)
	if got.Model != "fake-model" || !slices.Equal(got.Models, []string{"fake-model", "fake-small"}) || !slices.Equal(keys, []string{"Bearer test-key"}) {
		t.Errorf("GET /api/models = %+v, the provider asked with %q", got, keys)
	}

	evs := readEvents(t, post(t, srv, "/api/sessions/p/messages", `{"text":"hi","model":"fake-small"}`))
	if last := evs[len(evs)-1]; last.Name != "done" {
		t.Fatalf("turn with a model: %v", evs)
	}
	turn(t, srv, "p", "and again")
	var sent []string
	for _, r := range model.Requests() {
		var body struct {
			Model string `json:"model"`
		}
		json.Unmarshal(r.Body, &body)
		sent = append(sent, body.Model)
	}
	if !slices.Equal(sent, []string{"fake-small", "fake-model"}) {
		t.Errorf("the turns called %v, want the message's model, then the default", sent)
	}
	resp := post(t, srv, "/api/sessions/p/messages", `{"text":"hi","model":"fake small"}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `\"fake small\" is not a model name`) {
		t.Errorf("a bad model: HTTP %d %s", resp.StatusCode, body)
	}
}

// GET /api/catalogue?tools_json gives the tools' schemas as the session's
// next call sends them and as every tool's would, for the page's meter;
// without it the catalogue carries none.
func TestCatalogueToolsJSON(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`), fakemodel.Text("Loaded."))
	defer model.Close()
	srv := start(t, model)
	turn(t, srv, "s", "load the config tools")
	var plain, with struct {
		ToolsJSON *struct {
			Active string `json:"active"`
			All    string `json:"all"`
		} `json:"tools_json"`
	}
	get(t, srv, "/api/catalogue?session=s", http.StatusOK, &plain)
	get(t, srv, "/api/catalogue?session=s&tools_json=1", http.StatusOK, &with)
	if plain.ToolsJSON != nil {
		t.Errorf("without tools_json: %+v", plain.ToolsJSON)
	}
	if with.ToolsJSON == nil || !strings.Contains(with.ToolsJSON.Active, `"name":"get_config"`) || len(with.ToolsJSON.All) <= len(with.ToolsJSON.Active) {
		t.Errorf("tools_json = %+v, want the loaded group's schemas among the active, and more for all", with.ToolsJSON)
	}
}
