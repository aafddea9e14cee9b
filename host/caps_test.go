package host_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/gzipbomb"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// A model's reply is read up to MaxResponseBody, counted decoded: a reply
// of 400 MB gzipped into half a megabyte, streamed or whole, ends the turn
// with a model_error naming the cap, after reading no more than the cap,
// and the log keeps what it held.
func TestModelResponseCap(t *testing.T) {
	const inflated = 400 << 20
	event := `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", 16<<10) + `"}}]}` + "\n\n"
	for _, tc := range []struct {
		name        string
		stream      bool
		contentType string
		body        []byte
	}{
		{"streamed", true, "text/event-stream", gzipbomb.Make("", event, "data: [DONE]\n\n", inflated)},
		{"whole", false, "application/json", gzipbomb.Make(`{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"`,
			"a", `"},"finish_reason":"stop"}]}`, inflated)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.body) > 1<<20 {
				t.Fatalf("the bomb is %d bytes gzipped, want under a megabyte", len(tc.body))
			}
			bomb := httptest.NewServer(gzipbomb.Handler(tc.contentType, tc.body))
			defer bomb.Close()
			model := fakemodel.New(fakemodel.OpenAI, fakemodel.Text("Hello."))
			defer model.Close()
			good := &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: model.BaseURL(), ModelName: "m"}
			var calls int
			var read atomic.Int64
			provider := host.ProviderFunc{Wire: wire.OpenAI, ModelName: "m", Func: func(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
				if calls++; calls == 1 {
					return good.Call(ctx, req)
				}
				hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, bomb.URL+req.Path, strings.NewReader(string(req.Body)))
				resp, err := http.DefaultClient.Do(hreq)
				if err == nil {
					resp.Body = &counting{r: resp.Body, n: &read, stop: host.MaxResponseBody + 1<<20}
				}
				return resp, err
			}}
			h, err := host.New(context.Background(), host.Options{Provider: provider, NoBuiltins: true, Stream: tc.stream, Module: module.Config{CacheDir: testcache.Module(cacheDir)}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			s := h.Session("s")
			send(t, s, "hi")
			ev := last(send(t, s, "again"))
			if ev.Type != host.EventFailed || ev.Failure.Code != "model_error" || !strings.Contains(ev.Failure.Message, "the model's response is over 64 MB, the most toolroute reads of it") {
				t.Errorf("the turn ended with %+v %+v, want a model_error naming the cap", ev, ev.Failure)
			}
			if n := read.Load(); n > host.MaxResponseBody+64<<10 {
				t.Errorf("read %d decoded bytes, want at most the cap, %d", n, host.MaxResponseBody)
			}
			msgs, err := s.Messages(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, string(m.Type)+" "+m.Content)
			}
			// The text past the cap is not kept: the failure is.
			if want := []string{"user hi", "assistant Hello.", "user again", "turn_end " + ev.Failure.Message}; strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("the log holds %q, want %q", got, want)
			}
		})
	}
}

// counting counts the bytes read through it, and fails past stop, so a
// reader without a cap ends the test soon rather than reading 400 MB.
type counting struct {
	r    io.ReadCloser
	n    *atomic.Int64
	stop int64
}

func (c *counting) Read(p []byte) (int, error) {
	if c.n.Load() > c.stop {
		return 0, errors.New("counting: read far past the cap")
	}
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *counting) Close() error { return c.r.Close() }
