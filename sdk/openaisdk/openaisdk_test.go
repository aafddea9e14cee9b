package openaisdk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/toolroute/toolroute"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry/wire"
	"github.com/toolroute/toolroute/sdk/openaisdk"
)

// The SDK client sends toolroute's request with its own key and headers,
// and an error status reaches toolroute's turn with the provider's words.
func TestProviderSendsThroughTheClient(t *testing.T) {
	var auth, team, path string
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, team, path = r.Header.Get("Authorization"), r.Header.Get("X-Team"), r.URL.Path
		body = make([]byte, r.ContentLength)
		r.Body.Read(body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"The model 'nope' does not exist","type":"invalid_request_error"}}`))
	}))
	defer srv.Close()
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
	ctx := context.Background()
	h, err := toolroute.New(ctx, openaisdk.Provider(&client, "nope", wire.OpenAI, option.WithHeader("X-Team", "search")), toolroute.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	var failure string
	for ev, err := range h.Session("s").Send(ctx, "Hi") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == host.EventFailed {
			failure = ev.Failure.Message
		}
	}
	if auth != "Bearer sk-test" || team != "search" || path != "/v1/chat/completions" {
		t.Errorf("sent Authorization %q, X-Team %q to %s", auth, team, path)
	}
	if !strings.Contains(string(body), `"model":"nope"`) || !strings.Contains(string(body), `"content":"Hi"`) {
		t.Errorf("body %s", body)
	}
	if !strings.Contains(failure, "The model 'nope' does not exist") {
		t.Errorf("the turn's failure %q does not carry the provider's message", failure)
	}
}

// A format the SDK does not speak is refused, saying which to use.
func TestProviderRefusesOtherFormats(t *testing.T) {
	client := openai.NewClient(option.WithAPIKey("sk-test"))
	p := openaisdk.Provider(&client, "m", wire.Anthropic)
	_, err := p.Call(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "use wire.OpenAI or wire.Responses") {
		t.Errorf("error %v", err)
	}
}
