package mcpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/testwait"
)

// sseEvent is one event of an event stream.
type sseEvent struct{ id, data string }

// readEvent reads the next event of an event stream that has an id or
// data.
func readEvent(r *bufio.Reader) (sseEvent, error) {
	var e sseEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if e.id != "" || e.data != "" {
				return e, nil
			}
		case strings.HasPrefix(line, "id:"):
			e.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			e.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
}

// A client whose stream of a call breaks before the result (a network
// drop, a laptop's lid closed) asks for the stream again with the last
// event id it read, and gets what it missed: the progress the tool sent
// meanwhile and the result.
func TestHTTPStreamResumes(t *testing.T) {
	s, h, cat := newServer(t)
	started, release := make(chan struct{}), make(chan struct{})
	slow := tool("slow", "")
	slow.Run = func(ctx context.Context, in json.RawMessage) (string, error) {
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		host.ReportProgress(ctx, host.Progress{Progress: 1, Total: 2, Message: "half way"})
		return "slow done", nil
	}
	cat.set(t, h, slow)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)

	session := ""
	post := func(body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode/100 != 2 {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST %s: HTTP %d %s", body, resp.StatusCode, b)
		}
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	session = resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if session == "" {
		t.Fatal("initialize started no session")
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	// The call's stream opens with an event that has an id and no
	// message, so that a client has an id to resume from before the first
	// message comes.
	resp = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"text":"x"},"_meta":{"progressToken":"p1"}}}`)
	first, err := readEvent(bufio.NewReader(resp.Body))
	if err != nil {
		t.Fatalf("the call's stream: %v", err)
	}
	if first.id == "" {
		t.Fatalf("the call's stream's first event has no id: %+v", first)
	}
	select {
	case <-started:
	case <-time.After(testwait.Failsafe):
		t.Fatal("the tool did not start")
	}
	resp.Body.Close() // the stream breaks mid-call
	close(release)

	ctx, cancel := context.WithTimeout(context.Background(), testwait.Failsafe)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Last-Event-ID", first.id)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Until the server has seen the old stream go, it is still the
		// stream's (409), as for a client that resumes at once.
		if resp.StatusCode != http.StatusConflict {
			break
		}
		resp.Body.Close()
		time.Sleep(20 * time.Millisecond)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("resuming with Last-Event-ID %s: HTTP %d %s", first.id, resp.StatusCode, b)
	}
	r := bufio.NewReader(resp.Body)
	var got []string
	for len(got) < 2 {
		e, err := readEvent(r)
		if err != nil {
			t.Fatalf("the resumed stream, after %q: %v", got, err)
		}
		if e.id == "" {
			t.Errorf("an event without an id: %+v", e)
		}
		got = append(got, e.data)
	}
	var progress struct {
		Method string
		Params struct {
			ProgressToken   any
			Progress, Total float64
			Message         string
		}
	}
	if err := json.Unmarshal([]byte(got[0]), &progress); err != nil || progress.Method != "notifications/progress" ||
		progress.Params.ProgressToken != "p1" || progress.Params.Progress != 1 || progress.Params.Total != 2 || progress.Params.Message != "half way" {
		t.Errorf("the first event missed: %s, want the tool's progress", got[0])
	}
	if want := fmt.Sprintf(`"id":2,"result":{"content":[{"type":"text","text":%q}]}`, "slow done"); !strings.Contains(got[1], want) {
		t.Errorf("the second event missed: %s, want %s", got[1], want)
	}
}
