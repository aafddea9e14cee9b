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
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	hostmcp "github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/server"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/internal/testwait"
)

// shopForm is what the shop server's order tool asks.
const shopForm = `{"type":"object","properties":{
	"email":{"type":"string","title":"Email","format":"email"},
	"count":{"type":"integer","title":"How many","minimum":1,"default":1}},
	"required":["email"]}`

// packHeard takes a value each time TestProgressInATurn hears the shop's
// pack tool report its progress.
var packHeard = make(chan struct{}, 2)

// shopServer is an MCP server over HTTP whose order tool asks the user
// (elicitation/create) and answers what it was told, or why it could not
// ask.
func shopServer(t *testing.T) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "order", Description: "orders, asking the user where to send it"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		text := "asking failed: "
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Where should we send it?", RequestedSchema: json.RawMessage(shopForm)})
		if err == nil {
			b, _ := json.Marshal(res.Content)
			text = res.Action + " " + string(b)
		} else {
			text += err.Error()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	// pack reports its progress twice, when the caller asked for it, each
	// time waiting until the test heard it (packHeard): a result sent at
	// once could overtake the last report, which is then dropped.
	mcp.AddTool(srv, &mcp.Tool{Name: "pack", Description: "packs the order, saying how far it got"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			for i, msg := range []string{"Wrapping", "Taping"} {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i + 1), Total: 2, Message: msg})
				select {
				case <-packHeard:
				case <-time.After(testwait.Failsafe):
				}
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "packed"}}}, nil, nil
	})
	front := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(front.Close)
	return front.URL
}

// shopApp serves an app whose MCP servers may ask (as serve's), with the
// shop server configured.
func shopApp(t *testing.T, model *fakemodel.Server) (*httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	os.WriteFile(filepath.Join(dir, "config", "mcp.json"), []byte(`{"mcpServers":{"shop":{"url":"`+shopServer(t)+`"}}}`), 0o644)
	vars := map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "test-key"}
	approvals := server.NewApprovals(0)
	a, err := app.Open(context.Background(), app.Config{
		DataDir: filepath.Join(dir, "data"), ConfigDir: filepath.Join(dir, "config"), CacheDir: testcache.App(cacheDir),
		Model: "fake-model", Getenv: func(k string) string { return vars[k] }, Watch: -1, Stream: true,
		Approver: approvals, Browser: true, MCP: hostmcp.Options{Ask: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.Handler(a, server.Options{Token: token, Approvals: approvals}))
	t.Cleanup(func() { srv.Close(); a.Close() })
	var bc struct {
		ServerTools []string `json:"server_tools"`
	}
	get(t, srv, "/api/ui/catalogue", http.StatusOK, &bc)
	i := slices.IndexFunc(bc.ServerTools, func(n string) bool { return strings.HasSuffix(n, "order") })
	if i < 0 {
		t.Fatalf("the shop's order tool is not among the server tools %v", bc.ServerTools)
	}
	return srv, bc.ServerTools[i]
}

// askingCall posts a server tool's call as the page does when it can be
// asked, and reads its NDJSON events as they come.
func askingCall(t *testing.T, srv *httptest.Server, ctx context.Context, tool string) (*http.Response, *bufio.Scanner) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/ui/tools/"+tool, strings.NewReader(`{"input":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", server.NDJSON)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewScanner(resp.Body)
}

// nextLine decodes the next NDJSON event.
func nextLine(t *testing.T, sc *bufio.Scanner) map[string]any {
	t.Helper()
	if !sc.Scan() {
		t.Fatalf("the stream ended: %v", sc.Err())
	}
	var ev map[string]any
	if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
		t.Fatalf("%q: %v", sc.Text(), err)
	}
	return ev
}

// answerAsk posts the page's answer to a question.
func answerAsk(t *testing.T, srv *httptest.Server, id, body string, status int) map[string]any {
	t.Helper()
	resp := post(t, srv, "/api/ui/elicitations/"+id, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("POST /api/ui/elicitations/%s %s: HTTP %d, want %d: %s", id, body, resp.StatusCode, status, b)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// A server tool the page calls asks the user through the page: the
// question comes as an NDJSON event with the module's fields, a value that
// will not do is refused with what it takes, and the answer reaches the
// server, which the result says.
func TestElicitationThroughTheToolsRoute(t *testing.T) {
	srv, tool := shopApp(t, fakemodel.New(fakemodel.OpenAI))
	resp, sc := askingCall(t, srv, context.Background(), tool)
	if ct := resp.Header.Get("Content-Type"); ct != server.NDJSON {
		t.Fatalf("Content-Type %q, want %s", ct, server.NDJSON)
	}
	ev := nextLine(t, sc)
	if ev["type"] != "elicitation" || ev["server"] != "shop" || ev["message"] != "Where should we send it?" || !strings.Contains(ev["asks"].(string), "'shop'") {
		t.Fatalf("first event %v, want the shop's question", ev)
	}
	// Over HTTP the SDK decodes the form, so its fields come in the order
	// of their names.
	kinds := map[string]any{}
	fields, _ := ev["fields"].([]any)
	for _, f := range fields {
		kinds[f.(map[string]any)["name"].(string)] = f.(map[string]any)["kind"]
	}
	if len(fields) != 2 || kinds["email"] != "text" || kinds["count"] != "integer" {
		t.Fatalf("fields %v, want email and count as the module reads them", fields)
	}
	id := ev["id"].(string)

	bad := answerAsk(t, srv, id, `{"action":"accept","content":{"count":"2"}}`, http.StatusBadRequest)
	if msg, _ := bad["error"].(string); !strings.Contains(msg, "Email is required") {
		t.Errorf("a missing email: %v, want the module's sentence", bad)
	}
	answerAsk(t, srv, id, `{"action":"maybe"}`, http.StatusBadRequest)
	sent := answerAsk(t, srv, id, `{"action":"accept","content":{"email":"a@example.com","count":"2"}}`, http.StatusOK)
	if c, _ := sent["content"].(map[string]any); sent["action"] != "accept" || c["count"] != float64(2) || c["email"] != "a@example.com" {
		t.Errorf("sent %v, want the typed values", sent)
	}
	answerAsk(t, srv, id, `{"action":"cancel"}`, http.StatusNotFound) // answered once

	last := nextLine(t, sc)
	res, _ := last["result"].(map[string]any)
	if last["type"] != "result" || res["status"] != "success" || !strings.Contains(res["output"].(string), `accept {"count":2,"email":"a@example.com"}`) {
		t.Errorf("last event %v, want the server's answer to the accepted form", last)
	}
	// The answer as the user reads it back, for the page's turn to log.
	if asked, _ := res["asked"].([]any); len(asked) != 1 || !strings.Contains(asked[0].(string), "You sent") || !strings.Contains(asked[0].(string), "a@example.com") {
		t.Errorf("asked %v, want the module's sentence of what was sent", res["asked"])
	}
}

// A caller that reads JSON (no Accept: NDJSON) has no one to ask: the
// server is refused in the module's words, and the answer is JSON as
// before.
func TestElicitationWithNoPage(t *testing.T) {
	srv, tool := shopApp(t, fakemodel.New(fakemodel.OpenAI))
	resp := post(t, srv, "/api/ui/tools/"+tool, `{"input":{}}`)
	defer resp.Body.Close()
	var res map[string]any
	json.NewDecoder(resp.Body).Decode(&res)
	if out, _ := res["output"].(string); resp.StatusCode != 200 || !strings.Contains(out, "no one is here to answer it") {
		t.Errorf("HTTP %d %v, want the module's refusal in the server's answer", resp.StatusCode, res)
	}
}

// A page that goes away while asked ends the call: its question is no
// longer open.
func TestElicitationPageGone(t *testing.T) {
	srv, tool := shopApp(t, fakemodel.New(fakemodel.OpenAI))
	ctx, cancel := context.WithCancel(context.Background())
	_, sc := askingCall(t, srv, ctx, tool)
	id := nextLine(t, sc)["id"].(string)
	cancel()
	// The question closes with the call; an answer then finds none.
	deadline := time.Now().Add(testwait.Failsafe)
	for {
		resp := post(t, srv, "/api/ui/elicitations/"+id, `{"action":"decline"}`)
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the question is still open after the page went away: HTTP %d", resp.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A turn that serve runs asks in its stream: the elicitation event comes
// between the call and its result, and the answer reaches the server.
func TestElicitationInATurn(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	srv, tool := shopApp(t, model)
	model.Add(fakemodel.ToolCall("load_tool_group", `{"group_name":"shop"}`), fakemodel.ToolCall(tool, `{}`), fakemodel.Text("Ordered."))
	st := startTurn(t, srv, "s1", "order one")
	var askedFor string
	for e, ok := st.next(); ok; e, ok = st.next() {
		switch e.Name {
		case "approval":
			approveOnce(t, srv, "s1", e)
		case "elicitation":
			askedFor, _ = e.Data["call_id"].(string)
			answerAsk(t, srv, e.Data["id"].(string), `{"action":"decline"}`, http.StatusOK)
		case "message":
			if m, _ := e.Data["message"].(map[string]any); m["type"] == "tool_result" && m["tool_name"] == tool {
				if c, _ := m["content"].(string); !strings.Contains(c, "decline") {
					t.Errorf("the result %q does not say the user declined", c)
				}
			}
		}
	}
	seen := names(st.seen)
	if !slices.Contains(seen, "elicitation") || seen[len(seen)-1] != "done" {
		t.Errorf("events %v, want an elicitation and done", seen)
	}
	// The log keeps the answer on the call's result: a page read back
	// shows that the user was asked.
	var msgs []map[string]any
	get(t, srv, "/api/sessions/s1/messages", http.StatusOK, &msgs)
	i := slices.IndexFunc(msgs, func(m map[string]any) bool { return m["type"] == "tool_result" && m["tool_name"] == tool })
	if i < 0 {
		t.Fatalf("no result of %s in the log %v", tool, msgs)
	}
	// The question named the call whose result keeps the answer.
	if id, _ := msgs[i]["tool_call_id"].(string); askedFor == "" || askedFor != id {
		t.Errorf("the question was for call %q, the answer is on %q's result", askedFor, id)
	}
	if asked, _ := msgs[i]["asked"].([]any); len(asked) != 1 || !strings.HasPrefix(asked[0].(string), "MCP server 'shop' asked “Where should we send it?”. You declined") {
		t.Errorf("the result's asked %v, want the declined question", msgs[i]["asked"])
	}
}

// A call of a turn whose MCP server reports its progress sends it down the
// turn's stream, naming the call, before the call's result.
func TestProgressInATurn(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI)
	srv, order := shopApp(t, model)
	pack := strings.TrimSuffix(order, "order") + "pack"
	model.Add(fakemodel.ToolCall("load_tool_group", `{"group_name":"shop"}`), fakemodel.ToolCall(pack, `{}`), fakemodel.Text("Packed."))
	st := startTurn(t, srv, "s1", "pack it")
	var callID string
	var progress []map[string]any
	resultAfter := -1
	for e, ok := st.next(); ok; e, ok = st.next() {
		switch e.Name {
		case "approval":
			approveOnce(t, srv, "s1", e)
		case "progress":
			progress = append(progress, e.Data)
			packHeard <- struct{}{}
		case "message":
			if m, _ := e.Data["message"].(map[string]any); m["type"] == "tool_result" && m["tool_name"] == pack {
				callID, _ = m["tool_call_id"].(string)
				resultAfter = len(progress)
			}
		}
	}
	if len(progress) != 2 || resultAfter != 2 {
		t.Fatalf("progress events %v, the result after %d of them; want 2, then the result", progress, resultAfter)
	}
	for i, p := range progress {
		want := map[string]any{"type": "progress", "call_id": callID, "progress": float64(i + 1), "total": float64(2), "message": []string{"Wrapping", "Taping"}[i]}
		if callID == "" || !reflect.DeepEqual(p, want) {
			t.Errorf("progress event %d: %v, want %v", i, p, want)
		}
	}
}

// approveOnce answers an approval event's first call "once".
func approveOnce(t *testing.T, srv *httptest.Server, session string, e event) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"approvals": []map[string]string{{"id": calls(t, e)[0].ID, "answer": "once"}}})
	if status, msg := answer(t, srv, session, string(b)); status != http.StatusOK {
		t.Fatalf("answering the approval: HTTP %d %s", status, msg)
	}
}
