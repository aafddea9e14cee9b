package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// A model call answered with an empty 200 (a wrong base URL or model name
// behind a proxy can answer so) ends the turn with a failure that says what
// to check, in every format, whole or streamed, whatever content type the
// empty body claims; the user's message stays logged.
func TestEmptyReplyEndsTheTurn(t *testing.T) {
	const want = "the provider answered the model call with nothing (HTTP 200 with an empty body): check the model name and the provider's base URL"
	for _, ct := range []string{"application/json", "text/event-stream"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(http.StatusOK)
		}))
		defer srv.Close()
		for _, f := range []wire.Format{wire.OpenAI, wire.Anthropic, wire.Responses, wire.Gemini} {
			for _, stream := range []bool{false, true} {
				p := &host.HTTPProvider{Wire: f, BaseURL: srv.URL, APIKey: "test-key", ModelName: "fake-model"}
				h, err := host.New(context.Background(), host.Options{Provider: p, NoBuiltins: true, Stream: stream, Module: module.Config{CacheDir: cacheDir}})
				if err != nil {
					t.Fatal(err)
				}
				var end host.Event
				for ev, err := range h.Session("s").Send(context.Background(), "hi") {
					if err != nil {
						t.Errorf("%s, %s, stream %v: the turn ended with a host error: %v", ct, f, stream, err)
					}
					end = ev
				}
				if end.Type != host.EventFailed || end.Failure == nil || end.Failure.Code != "bad_response" || !strings.Contains(end.Failure.Message, want) {
					t.Errorf("%s, %s, stream %v: last event %+v %+v, want failed: %s", ct, f, stream, end, end.Failure, want)
				}
				if msgs, _ := h.Session("s").Messages(context.Background()); len(msgs) != 2 || msgs[0].Content != "hi" || msgs[1].Type != session.TurnEnd || msgs[1].ErrorType != "bad_response" {
					t.Errorf("%s, %s, stream %v: the log = %+v, want the user's message and the turn's end", ct, f, stream, msgs)
				}
				h.Close(context.Background())
			}
		}
	}
}
