//go:build unix

package server_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/server"
)

// dialSmall connects to srv with a 4 KB receive buffer, as a client that
// reads little at a time.
func dialSmall(t *testing.T, srv *httptest.Server) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return cmp.Or(err, serr)
	}}
	conn, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// sendOn writes a turn's request on conn, by hand: the test then reads its
// answer as it likes, or not at all.
func sendOn(t *testing.T, conn net.Conn, session, text string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"text": text})
	_, err := fmt.Fprintf(conn, "POST /api/sessions/%s/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		session, token, len(body), body)
	if err != nil {
		t.Fatal(err)
	}
}

// A client that stops reading a turn's stream (issue 34: a 4 KB receive
// buffer, an 8 MiB streamed reply, nothing read) holds the session only
// for the stall limit: then the turn ends as a Stop ends it, keeping the
// user's message and the reply so far, the connection is closed, the next
// turn runs and the session can be deleted.
func TestStalledStreamFreesTheSession(t *testing.T) {
	reply := strings.Repeat("All work and no play. ", 8<<20/22)
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text(reply), fakemodel.Text("Next."))
	defer model.Close()
	const stall = time.Second
	srv := startWith(t, model, server.Options{Token: token, StallTimeout: stall})
	conn := dialSmall(t, srv)
	sendOn(t, conn, "s", "Write a lot")
	for deadline := time.Now().Add(30 * time.Second); len(model.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stalled client's turn never called the model")
		}
	}

	// The bound is 30 s; the test's stall limit is 1 s, and a
	// minute covers an 8 MiB reply on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/sessions/s/messages", strings.NewReader(`{"text":"And now?"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the next turn, a minute after a client stopped reading the first: %v", err)
	}
	if evs := readEvents(t, resp); evs[len(evs)-1].Name != "done" || evs[len(evs)-1].Data["text"] != "Next." {
		t.Errorf("the next turn ended with %+v", evs[len(evs)-1])
	}

	var log []struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	get(t, srv, "/api/sessions/s/messages", http.StatusOK, &log)
	if len(log) != 5 || log[0].Type != "user" || log[0].Content != "Write a lot" || log[1].Type != "assistant" ||
		log[1].Content == "" || !strings.HasPrefix(reply, log[1].Content) || log[2].Type != "turn_end" || log[3].Content != "And now?" || log[4].Content != "Next." {
		var got []string
		for _, m := range log {
			got = append(got, fmt.Sprintf("%s %.40q (%d)", m.Type, m.Content, len(m.Content)))
		}
		t.Errorf("the log holds %v; want the message, the reply so far as a Stop keeps it, the stop, then the next turn", got)
	}
	if resp := do(t, "DELETE", srv.URL+"/api/sessions/s", ""); resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("DELETE: HTTP %d %s", resp.StatusCode, b)
	}
	// The server closed the stalled connection: reading it to its end
	// does not wait.
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, conn); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Error("the stalled connection is still open")
	}
}

// slowReader reads at most 4 KB at a time, resting 5 ms before each read.
type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) {
	time.Sleep(5 * time.Millisecond)
	return s.r.Read(p[:min(len(p), 4096)])
}

// A client that reads slowly but steadily keeps its stream, however long
// the stream takes: the stall limit is for a write that does not go
// through, not for the whole answer (here, a 1 MiB reply, in 3 MiB of
// events, read over several seconds against a limit of 1 s).
func TestSlowReaderKeepsItsStream(t *testing.T) {
	reply := strings.Repeat("Slow and steady. ", 1<<20/17)
	model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text(reply))
	defer model.Close()
	srv := startWith(t, model, server.Options{Token: token, StallTimeout: time.Second})
	conn := dialSmall(t, srv)
	sendOn(t, conn, "s", "Write a lot, slowly")
	resp, err := http.ReadResponse(bufio.NewReaderSize(slowReader{conn}, 4096), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	// Each event is a line of up to 1 MiB: more than readEvents's scanner takes.
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("after %v, %d bytes: %v", time.Since(start), len(body), err)
	}
	events := strings.Split(strings.TrimSpace(string(body)), "\n\n")
	last := events[len(events)-1]
	if !strings.HasPrefix(last, "event: done\n") || !strings.Contains(last, `"text":"Slow and steady.`) {
		t.Errorf("after %v the stream ended with %.100q", time.Since(start), last)
	}
}

// WriteDeadlines on its own, as toolroute mcp --http uses it: a handler
// whose client reads nothing fails its write after the limit and sees its
// request's context end.
func TestWriteDeadlines(t *testing.T) {
	type outcome struct{ write, ctx error }
	done := make(chan outcome, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		piece := []byte(strings.Repeat("x", 1<<20))
		var err error
		for i := 0; i < 64 && err == nil; i++ {
			_, err = w.Write(piece)
		}
		done <- outcome{err, r.Context().Err()}
	})
	srv := httptest.NewUnstartedServer(server.WriteDeadlines(h, time.Second))
	srv.Listener = server.BoundSendBuffers(srv.Listener)
	srv.Start()
	defer srv.Close()

	conn := dialSmall(t, srv)
	fmt.Fprintf(conn, "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	select {
	case o := <-done:
		if !errors.Is(o.write, os.ErrDeadlineExceeded) || o.ctx == nil {
			t.Errorf("the handler's write: %v; its context: %v", o.write, o.ctx)
		}
	case <-time.After(time.Minute):
		t.Fatal("a write to a client that reads nothing still waits a minute on, against a limit of 1 s")
	}
}
