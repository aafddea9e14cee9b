package host

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

func TestHTTPProviderRetries(t *testing.T) {
	tests := []struct {
		name       string
		replies    []fakemodel.Reply
		wantStatus int
		wantCalls  int
	}{
		{
			name: "429 with Retry-After, then success",
			replies: []fakemodel.Reply{
				{Status: 429, ErrorBody: `{"error":{"message":"Rate limit reached","type":"requests"}}`, RetryAfter: "0"},
				fakemodel.Text("ok"),
			},
			wantStatus: 200, wantCalls: 2,
		},
		{
			name:       "5xx twice, then success",
			replies:    []fakemodel.Reply{fakemodel.Error(503, "busy"), fakemodel.Error(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), fakemodel.Text("ok")},
			wantStatus: 200, wantCalls: 3,
		},
		{
			name:       "401 is not retried",
			replies:    []fakemodel.Reply{fakemodel.Error(401, `{"error":{"message":"bad key"}}`), fakemodel.Text("never")},
			wantStatus: 401, wantCalls: 1,
		},
		{
			name:       "retries run out",
			replies:    []fakemodel.Reply{fakemodel.Error(500, "x"), fakemodel.Error(500, "x"), fakemodel.Error(500, "x"), fakemodel.Error(500, "x")},
			wantStatus: 500, wantCalls: 3,
		},
		{
			name:       "a Retry-After longer than we wait ends the retries",
			replies:    []fakemodel.Reply{{Status: 429, ErrorBody: "{}", RetryAfter: "3600"}, fakemodel.Text("never")},
			wantStatus: 429, wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := fakemodel.New(fakemodel.OpenAI, tt.replies...)
			defer model.Close()
			p := &HTTPProvider{Wire: wire.OpenAI, BaseURL: model.BaseURL(), ModelName: "m", Retries: 2, Backoff: time.Millisecond, MaxBackoff: time.Second}
			resp, err := p.Call(context.Background(), &session.ModelRequest{Path: "/chat/completions", Body: []byte(`{"model":"m","messages":[]}`)})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus || len(model.Requests()) != tt.wantCalls {
				t.Errorf("status %d after %d calls, want %d after %d", resp.StatusCode, len(model.Requests()), tt.wantStatus, tt.wantCalls)
			}
		})
	}
}

// Each provider's 429: the wait it asks for is read from its Retry-After,
// or, for Gemini, which sends none, from the body's RetryInfo; a wait longer
// than MaxBackoff ends the retries at once, a short one is waited out.
func TestHTTPProviderRateLimits(t *testing.T) {
	for _, f := range fakemodel.Formats {
		for _, tt := range []struct {
			seconds   int
			wantCalls int
		}{{0, 2}, {3600, 1}} {
			t.Run(fmt.Sprintf("%s %ds", f, tt.seconds), func(t *testing.T) {
				model := fakemodel.New(f, fakemodel.RateLimited(f, tt.seconds), fakemodel.Text("ok"))
				defer model.Close()
				req, err := wire.Encode(wire.Format(f), wire.Request{Model: "m", Messages: []wire.Message{{Role: wire.RoleUser, Text: "hi"}}})
				if err != nil {
					t.Fatal(err)
				}
				p := &HTTPProvider{Wire: wire.Format(f), BaseURL: model.BaseURL(), APIKey: "k", ModelName: "m", Retries: 2, Backoff: time.Millisecond, MaxBackoff: time.Minute}
				resp, err := p.Call(context.Background(), &session.ModelRequest{Format: wire.Format(f), Path: req.Path, Headers: req.Headers, Body: req.Body})
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if n := len(model.Requests()); n != tt.wantCalls {
					t.Errorf("%d calls, want %d (status %d)", n, tt.wantCalls, resp.StatusCode)
				}
				// A response not tried again keeps its body, read or not.
				if tt.wantCalls == 1 && !strings.Contains(string(body), "error") {
					t.Errorf("the 429's body was lost: %q", body)
				}
			})
		}
	}
}

// Each provider's overloaded answer is tried again; a request it refuses
// (an unknown field) is not.
func TestHTTPProviderErrorShapes(t *testing.T) {
	for _, f := range fakemodel.Formats {
		req, err := wire.Encode(wire.Format(f), wire.Request{Model: "m", Messages: []wire.Message{{Role: wire.RoleUser, Text: "hi"}}})
		if err != nil {
			t.Fatal(err)
		}
		p := &HTTPProvider{Wire: wire.Format(f), APIKey: "k", ModelName: "m", Retries: 2, Backoff: time.Millisecond}
		call := func(body []byte) (int, string) {
			resp, err := p.Call(context.Background(), &session.ModelRequest{Format: wire.Format(f), Path: req.Path, Headers: req.Headers, Body: body})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.StatusCode, string(b)
		}

		model := fakemodel.New(f, fakemodel.Overloaded(f), fakemodel.Text("ok"))
		p.BaseURL = model.BaseURL()
		if status, _ := call(req.Body); status != 200 || len(model.Requests()) != 2 {
			t.Errorf("%s overloaded: status %d after %d calls", f, status, len(model.Requests()))
		}
		model.Close()

		model = fakemodel.New(f, fakemodel.Text("never"))
		p.BaseURL = model.BaseURL()
		withExtra := append(bytes.TrimSuffix(req.Body, []byte("}")), []byte(`,"cache_hint":true}`)...)
		status, body := call(withExtra)
		if status != 400 || len(model.Requests()) != 1 || !strings.Contains(wire.ErrorMessage(status, []byte(body)), "cache_hint") {
			t.Errorf("%s unknown field: status %d after %d calls: %s", f, status, len(model.Requests()), wire.ErrorMessage(status, []byte(body)))
		}
		model.Close()
	}
}

// The key goes in each format's own header.
func TestHTTPProviderAuth(t *testing.T) {
	want := map[fakemodel.Format][2]string{
		fakemodel.OpenAI:    {"Authorization", "Bearer k"},
		fakemodel.Responses: {"Authorization", "Bearer k"},
		fakemodel.Anthropic: {"X-Api-Key", "k"},
		fakemodel.Gemini:    {"X-Goog-Api-Key", "k"},
	}
	for _, f := range fakemodel.Formats {
		model := fakemodel.New(f, fakemodel.Text("ok"))
		req, err := wire.Encode(wire.Format(f), wire.Request{Model: "m", Messages: []wire.Message{{Role: wire.RoleUser, Text: "hi"}}})
		if err != nil {
			t.Fatal(err)
		}
		p := &HTTPProvider{Wire: wire.Format(f), BaseURL: model.BaseURL(), APIKey: "k", ModelName: "m"}
		resp, err := p.Call(context.Background(), &session.ModelRequest{Format: wire.Format(f), Path: req.Path, Headers: req.Headers, Body: req.Body})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		model.Close()
		h := model.Requests()[0].Header
		if resp.StatusCode != 200 || h.Get(want[f][0]) != want[f][1] {
			t.Errorf("%s: status %d, headers %v", f, resp.StatusCode, h)
		}
		for _, other := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key"} {
			if other != want[f][0] && h.Get(other) != "" {
				t.Errorf("%s: the key also went as %s", f, other)
			}
		}
	}
}

// Sessions calling one provider at once reuse their connections: after a
// first round of 16 concurrent calls, a second round opens none (the
// default client keeps more than http.DefaultClient's 2 idle).
func TestHTTPProviderKeepsConnections(t *testing.T) {
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(20 * time.Millisecond) // so that the calls overlap
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	p := &HTTPProvider{Wire: wire.OpenAI, BaseURL: srv.URL + "/v1", APIKey: "k", ModelName: "m"}
	round := func() {
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				resp, err := p.Call(t.Context(), &session.ModelRequest{Path: "/chat/completions", Body: []byte(`{}`)})
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	round()
	first := opened.Load()
	if first == 0 || first > 16 {
		t.Fatalf("the first round opened %d connections", first)
	}
	round()
	if again := opened.Load() - first; again != 0 {
		t.Errorf("the second round opened %d new connections; want the first round's reused", again)
	}
}
