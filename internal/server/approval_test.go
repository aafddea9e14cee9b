package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/internal/testwait"
)

// approver is a as a host.Approver, nil (not a nil pointer) when a is.
func approver(a *server.Approvals) host.Approver {
	if a == nil {
		return nil
	}
	return a
}

// noteServer serves an app with a user tool that sends (it appends to the
// sandbox's outbox.txt) and Approvals that wait timeout; outbox counts the
// notes sent.
func noteServer(t *testing.T, model *fakemodel.Server, timeout time.Duration) (srv *httptest.Server, outbox func() int) {
	t.Helper()
	dir := t.TempDir()
	tools := filepath.Join(dir, "config", "tools")
	os.MkdirAll(tools, 0o755)
	os.WriteFile(filepath.Join(tools, "send_note.json"), []byte(`{"name":"send_note","description":"Send a note","requiredPermissions":["send"],
		"parameters":{"properties":{"text":{"type":"string"}},"required":["text"]}}`), 0o644)
	os.WriteFile(filepath.Join(tools, "send_note.js"), []byte(`function execute(p) { fs.appendFile("outbox.txt", p.text + "\n"); return "sent"; }`), 0o644)
	srv = startIn(t, dir, model, server.Options{Token: token, Approvals: server.NewApprovals(timeout)})
	return srv, func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "data", "files", "outbox.txt"))
		return strings.Count(string(b), "\n")
	}
}

// stream is a turn's event stream, read as the test goes.
type stream struct {
	t      *testing.T
	sc     *bufio.Scanner
	body   io.Closer
	cancel context.CancelFunc
	seen   []event
}

// startTurn sends a message and returns its stream once the server has
// answered.
func startTurn(t *testing.T, srv *httptest.Server, session, text string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	body, _ := json.Marshal(map[string]string{"text": text})
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/sessions/"+session+"/messages", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		cancel()
		t.Fatalf("HTTP %d: %s", resp.StatusCode, b)
	}
	s := &stream{t: t, sc: bufio.NewScanner(resp.Body), body: resp.Body, cancel: cancel}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return s
}

// next reads the next event; false at the end of the stream.
func (s *stream) next() (event, bool) {
	var name string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				s.t.Fatalf("event %s data %q: %v", name, line, err)
			}
			e := event{name, data}
			s.seen = append(s.seen, e)
			return e, true
		}
	}
	return event{}, false
}

// until reads up to the first event named name.
func (s *stream) until(name string) event {
	s.t.Helper()
	for {
		e, ok := s.next()
		if !ok {
			s.t.Fatalf("the stream ended with no %s event; it had %v", name, names(s.seen))
		}
		if e.Name == name {
			return e
		}
	}
}

// rest reads the stream to its end and returns its last event.
func (s *stream) rest() event {
	s.t.Helper()
	for {
		if _, ok := s.next(); !ok {
			break
		}
	}
	if len(s.seen) == 0 {
		s.t.Fatal("an empty stream")
	}
	return s.seen[len(s.seen)-1]
}

func names(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// call is a call of an approval event or of a pending question.
type call struct {
	ID                  string          `json:"id"`
	Tool                string          `json:"tool"`
	Input               json.RawMessage `json:"input"`
	RequiredPermissions []string        `json:"required_permissions"`
}

func calls(t *testing.T, e event) []call {
	t.Helper()
	b, _ := json.Marshal(e.Data["calls"])
	var out []call
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// answer posts answers to a session's question and returns the status and
// the body, or the error's message.
func answer(t *testing.T, srv *httptest.Server, session, body string) (int, string) {
	t.Helper()
	resp := post(t, srv, "/api/sessions/"+session+"/approvals", body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return resp.StatusCode, e.Error
	}
	return resp.StatusCode, string(b)
}

// A tool that sends asks first: the turn's stream shows the question, the
// turn waits for the answer posted to .../approvals, then the tool runs
// (once) or the model reads that the user denied it (deny).
func TestServeApproval(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("send_note", `{"text":"hi"}`), fakemodel.Text("Sent."),
		fakemodel.ToolCall("send_note", `{"text":"again"}`), fakemodel.Text("Not sent."),
	)
	defer model.Close()
	srv, outbox := noteServer(t, model, 0)

	var none map[string]string
	get(t, srv, "/api/sessions/s/approvals", http.StatusNotFound, &none)
	if !strings.Contains(none["error"], `no question is pending for session "s"`) {
		t.Errorf("no question: %v", none)
	}

	s := startTurn(t, srv, "s", "Send a note")
	asked := s.until("approval")
	id := calls(t, asked)[0].ID
	want := []call{{ID: id, Tool: "send_note", Input: json.RawMessage(`{"text":"hi"}`), RequiredPermissions: []string{"send"}}}
	if diff := cmp.Diff(want, calls(t, asked)); diff != "" {
		t.Errorf("the approval event's calls (-want +got):\n%s", diff)
	}
	if outbox() != 0 {
		t.Fatal("the note was sent before the user answered")
	}

	// The question, again, for a page loaded while it waits.
	var q map[string]any
	get(t, srv, "/api/sessions/s/approvals", http.StatusOK, &q)
	if diff := cmp.Diff(want, calls(t, event{Data: q})); diff != "" || q["session"] != "s" || q["expires"] == "" || !slices.Equal(q["waiting"].([]any), []any{id}) {
		t.Errorf("GET the question = %v (calls -want +got:\n%s)", q, diff)
	}

	for _, c := range []struct{ name, body, want string }{
		{"no answers", `{}`, `give the answers as {"approvals"`},
		{"unknown id", `{"approvals":[{"id":"call_9","answer":"once"}]}`, `no call "call_9" is waiting for an answer: the ids are "` + id + `"`},
		{"bad answer", `{"approvals":[{"id":"` + id + `","answer":"yes"}]}`, `the answer "yes" is none of once, session or deny`},
		{"twice", `{"approvals":[{"id":"` + id + `","answer":"once"},{"id":"` + id + `","answer":"deny"}]}`, `answered twice`},
		{"not JSON", `{`, `not the JSON`},
	} {
		if status, body := answer(t, srv, "s", c.body); status != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("%s: HTTP %d %s, want 400 with %q", c.name, status, body, c.want)
		}
	}
	if status, body := answer(t, srv, "other", `{"approvals":[{"id":"`+id+`","answer":"once"}]}`); status != http.StatusNotFound || !strings.Contains(body, "no question is pending") {
		t.Errorf("another session: HTTP %d %s", status, body)
	}
	for _, method := range []string{"GET", "POST"} {
		req, _ := http.NewRequest(method, srv.URL+"/api/sessions/s/approvals", strings.NewReader(`{"approvals":[{"id":"`+id+`","answer":"once"}]}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without the token: HTTP %d", method, resp.StatusCode)
		}
	}
	if outbox() != 0 {
		t.Fatal("a refused answer let the note go")
	}

	if status, body := answer(t, srv, "s", `{"approvals":[{"id":"`+id+`","answer":"once"}]}`); status != http.StatusOK || !strings.Contains(body, `"waiting":[]`) {
		t.Fatalf("answer once: HTTP %d %s", status, body)
	}
	last := s.rest()
	if last.Name != "done" || last.Data["text"] != "Sent." || outbox() != 1 {
		t.Errorf("after once: last event %v, %d sent; events %v", last, outbox(), names(s.seen))
	}
	get(t, srv, "/api/sessions/s/approvals", http.StatusNotFound, &none)

	// Once is once: the next call asks again, and a deny reaches the model.
	s = startTurn(t, srv, "s", "And again")
	id = calls(t, s.until("approval"))[0].ID
	if status, body := answer(t, srv, "s", `{"approvals":[{"id":"`+id+`","answer":"deny"}]}`); status != http.StatusOK {
		t.Fatalf("answer deny: HTTP %d %s", status, body)
	}
	last = s.rest()
	if last.Name != "done" || last.Data["text"] != "Not sent." || outbox() != 1 {
		t.Errorf("after deny: last event %v, %d sent", last, outbox())
	}
	reqs := model.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "The user denied this call of 'send_note'") {
		t.Errorf("the model did not read the denial: %s", body)
	}
}

// Several calls in one question may be answered one at a time: the turn
// goes on once each has its answer.
func TestServeApprovalOneByOne(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCalls(fakemodel.Call{Name: "send_note", Args: `{"text":"a"}`}, fakemodel.Call{Name: "send_note", Args: `{"text":"b"}`}),
		fakemodel.Text("One sent."),
	)
	defer model.Close()
	srv, outbox := noteServer(t, model, 0)
	s := startTurn(t, srv, "s", "Send two notes")
	cs := calls(t, s.until("approval"))
	if len(cs) != 2 {
		t.Fatalf("calls = %v", cs)
	}
	if status, body := answer(t, srv, "s", `{"approvals":[{"id":"`+cs[1].ID+`","answer":"deny"}]}`); status != http.StatusOK || !strings.Contains(body, `"waiting":["`+cs[0].ID+`"]`) {
		t.Fatalf("the first answer: HTTP %d %s", status, body)
	}
	var q struct {
		Answers []map[string]string `json:"answers"`
		Waiting []string            `json:"waiting"`
	}
	get(t, srv, "/api/sessions/s/approvals", http.StatusOK, &q)
	if diff := cmp.Diff([]map[string]string{{"id": cs[1].ID, "answer": "deny"}}, q.Answers); diff != "" || !slices.Equal(q.Waiting, []string{cs[0].ID}) {
		t.Errorf("half answered: %+v\n%s", q, diff)
	}
	if status, body := answer(t, srv, "s", `{"approvals":[{"id":"`+cs[1].ID+`","answer":"once"}]}`); status != http.StatusBadRequest || !strings.Contains(body, "answered already (deny)") {
		t.Errorf("answered again: HTTP %d %s", status, body)
	}
	answer(t, srv, "s", `{"approvals":[{"id":"`+cs[0].ID+`","answer":"once"}]}`)
	if last := s.rest(); last.Name != "done" || outbox() != 1 {
		t.Errorf("last event %v, %d sent", last, outbox())
	}
}

// A question no one answers is denied after the timeout.
func TestServeApprovalTimeout(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.ToolCall("send_note", `{"text":"hi"}`), fakemodel.Text("No answer."))
	defer model.Close()
	srv, outbox := noteServer(t, model, 50*time.Millisecond)
	s := startTurn(t, srv, "s", "Send a note")
	s.until("approval")
	if last := s.rest(); last.Name != "done" || outbox() != 0 {
		t.Errorf("last event %v, %d sent", last, outbox())
	}
	if body := string(model.Requests()[1].Body); !strings.Contains(body, "denied") {
		t.Errorf("the model read %s", body)
	}
}

// A client that goes away while its turn waits for an answer ends the
// turn: the tool does not run, and the next turn's model reads that it
// did not.
func TestServeApprovalClientGone(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.ToolCall("send_note", `{"text":"hi"}`), fakemodel.Text("It did not run."))
	defer model.Close()
	srv, outbox := noteServer(t, model, 0)
	s := startTurn(t, srv, "s", "Send a note")
	id := calls(t, s.until("approval"))[0].ID
	s.cancel()
	deadline := time.Now().Add(testwait.Failsafe)
	for {
		resp := do(t, "GET", srv.URL+"/api/sessions/s/approvals", "")
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the question is still pending after its client went away")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status, _ := answer(t, srv, "s", `{"approvals":[{"id":"`+id+`","answer":"once"}]}`); status != http.StatusNotFound {
		t.Errorf("a late answer: HTTP %d", status)
	}
	if last := turn(t, srv, "s", "Did it go?"); last[len(last)-1].Name != "done" {
		t.Errorf("the next turn: %v", last)
	}
	if outbox() != 0 {
		t.Error("the note was sent though the turn ended before an answer")
	}
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "the turn ended before they answered") {
		t.Errorf("%d model requests; the last: %s", len(reqs), reqs[len(reqs)-1].Body)
	}
}

// The user's rules by the API, in the settings `toolroute policy` keeps:
// a tool allowed runs unasked.
func TestServePolicies(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.ToolCall("send_note", `{"text":"hi"}`), fakemodel.Text("Sent."))
	defer model.Close()
	srv, outbox := noteServer(t, model, 0)
	put := func(body string) (int, string) {
		resp := do(t, "PUT", srv.URL+"/api/policies", body)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	var list []map[string]string
	get(t, srv, "/api/policies", http.StatusOK, &list)
	if list == nil || len(list) != 0 {
		t.Errorf("no rules = %v, want []", list)
	}
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"allow a tool", `{"tool":"send_note","decision":"allow"}`, 200, `[{"tool":"send_note","decision":"allow"}]`},
		{"deny a group", `{"group":"google_gmail","decision":"deny"}`, 200, `[{"group":"google_gmail","decision":"deny"},{"tool":"send_note","decision":"allow"}]`},
		{"reset", `{"group":"google_gmail","decision":""}`, 200, `[{"tool":"send_note","decision":"allow"}]`},
		{"reset what is not set", `{"tool":"nothing","decision":""}`, 200, `[{"tool":"send_note","decision":"allow"}]`},
		{"both", `{"tool":"a","group":"b","decision":"ask"}`, 400, `give {\"tool\": NAME} or {\"group\": NAME}`},
		{"neither", `{"decision":"ask"}`, 400, `give {\"tool\": NAME}`},
		{"no decision", `{"tool":"send_note"}`, 400, `\"decision\": \"ask\", \"allow\", \"deny\", or \"\" for the default`},
		{"bad decision", `{"tool":"send_note","decision":"always"}`, 400, `the decision \"always\" is none of ask, allow, deny`},
		{"bad name", `{"tool":"no spaces","decision":"ask"}`, 400, `\"no spaces\" is not a tool name`},
	} {
		if status, body := put(c.body); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: HTTP %d %s, want %d with %s", c.name, status, body, c.status, c.want)
		}
	}
	req, _ := http.NewRequest("PUT", srv.URL+"/api/policies", strings.NewReader(`tool=send_note&decision=allow`))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a form PUT: %v %v", resp, err)
	}

	evs := turn(t, srv, "s", "Send a note")
	if n := names(evs); slices.Contains(n, "approval") || n[len(n)-1] != "done" || outbox() != 1 {
		t.Errorf("allowed by policy: events %v, %d sent", n, outbox())
	}
}

// A rule for a tool or group nothing has is refused, saying which and where
// the known ones are listed: it was stored, and never applied. A tool that
// may be one of an MCP server's not listed now (the server down) is kept,
// with a warning in the Warning header.
func TestServePolicyNames(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	defer model.Close()
	put := func(srv *httptest.Server, body string) (int, string, string) {
		resp := do(t, "PUT", srv.URL+"/api/policies", body)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b)), resp.Header.Get("Warning")
	}
	srv, _ := noteServer(t, model, 0)
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"a typo", `{"tool":"sned_note","decision":"allow"}`, 400, `no tool is named \"sned_note\": the tools are listed by GET /api/catalogue (toolroute tools)`},
		{"an unknown group", `{"group":"gmail","decision":"deny"}`, 400, `no group is named \"gmail\": the groups are listed by GET /api/catalogue`},
		{"a tool", `{"tool":"send_note","decision":"ask"}`, 200, `[{"tool":"send_note","decision":"ask"}]`},
		{"a built-in group", `{"group":"google_gmail","decision":"ask"}`, 200, `[{"group":"google_gmail","decision":"ask"},{"tool":"send_note","decision":"ask"}]`},
		{"reset a rule of a tool since removed", `{"tool":"sned_note","decision":""}`, 200, `[{"group":"google_gmail","decision":"ask"},{"tool":"send_note","decision":"ask"}]`},
	} {
		if status, body, warning := put(srv, c.body); status != c.status || !strings.Contains(body, c.want) || warning != "" {
			t.Errorf("%s: HTTP %d %s (Warning %q), want %d with %s", c.name, status, body, warning, c.status, c.want)
		}
	}

	// An MCP server that cannot start: its tools are not listed.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	os.WriteFile(filepath.Join(dir, "config", "mcp.json"), []byte(`{"mcpServers":{"notes":{"command":"`+filepath.Join(dir, "no-such-server")+`"}}}`), 0o644)
	srv = startIn(t, dir, model, server.Options{Token: token})
	status, body, warning := put(srv, `{"tool":"notes_add","decision":"allow"}`)
	if status != 200 || body != `[{"tool":"notes_add","decision":"allow"}]` ||
		!strings.HasPrefix(warning, `299 toolroute "no tool named \"notes_add\" is loaded now: the rule is kept, as it may be a tool of the MCP server notes (`) ||
		!strings.Contains(warning, "GET /api/health says why") {
		t.Errorf("a tool of a server down: HTTP %d %s, Warning %q", status, body, warning)
	}
	if status, body, warning := put(srv, `{"group":"notes","decision":"deny"}`); status != 200 || warning != "" {
		t.Errorf("the group of a server down: HTTP %d %s, Warning %q", status, body, warning)
	}
}

// js_eval asking for secrets asks although it runs unasked otherwise; the
// question lists them; a grant names only secrets asked for (400 if not),
// and the code reads exactly those granted, redacted from what the model
// reads.
func TestServeApprovalGrant(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("js_eval", `{"code":"[_env.MAIL_KEY, typeof _env.OTHER].join(' ')","secrets":["MAIL_KEY","OTHER"]}`),
		fakemodel.Text("Read."),
	)
	defer model.Close()
	srv, a := startApp(t, t.TempDir(), model, server.Options{Token: token, Approvals: server.NewApprovals(0)})
	for k, v := range map[string]string{"MAIL_KEY": "mail-secret-value-42", "OTHER": "other-secret-value-43"} {
		if err := a.Store.SetSetting(context.Background(), builtin.EnvPrefix+k, v); err != nil {
			t.Fatal(err)
		}
	}
	s := startTurn(t, srv, "s", "Read my mail")
	e := s.until("approval")
	b, _ := json.Marshal(e.Data["calls"])
	var asked []struct {
		ID      string   `json:"id"`
		Secrets []string `json:"secrets"`
	}
	json.Unmarshal(b, &asked)
	if len(asked) != 1 || !slices.Equal(asked[0].Secrets, []string{"MAIL_KEY", "OTHER"}) {
		t.Fatalf("the question: %s", b)
	}
	id := asked[0].ID
	if status, body := answer(t, srv, "s", `{"approvals":[{"id":"`+id+`","answer":"once","grant":["MAIL_KEY","OPENAI_API_KEY"]}]}`); status != http.StatusBadRequest || !strings.Contains(body, `did not ask for "OPENAI_API_KEY"`) {
		t.Fatalf("a grant of a secret not asked for: HTTP %d %s", status, body)
	}
	if status, body := answer(t, srv, "s", `{"approvals":[{"id":"`+id+`","answer":"once","grant":["MAIL_KEY"]}]}`); status != http.StatusOK {
		t.Fatalf("the answer: HTTP %d %s", status, body)
	}
	if last := s.rest(); last.Name != "done" {
		t.Fatalf("last event %v", last)
	}
	reqs := model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "[redacted MAIL_KEY] undefined") || strings.Contains(last, "mail-secret-value-42") {
		t.Errorf("the model read: %s", last)
	}
}
