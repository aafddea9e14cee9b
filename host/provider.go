package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Provider makes model calls. The module builds each request; a Provider
// sends it and returns the response, unread.
type Provider interface {
	// Format is the wire format the provider speaks.
	Format() wire.Format
	// Model is the model to call.
	Model() string
	// Call POSTs req and returns the response, whatever its status. An error
	// is a call that got no response at all.
	Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error)
}

// TurnProvider is a Provider that settings may change (toolroute's stored
// providers): a turn takes ForTurn's provider at its start and makes all its
// model calls with it, so a change applies from the next turn.
type TurnProvider interface {
	Provider
	ForTurn(ctx context.Context) Provider
}

// HTTPProvider is a Provider for an endpoint of one of the wire formats:
// OpenAI-compatible Chat Completions, Anthropic, the OpenAI Responses API or
// Gemini.
type HTTPProvider struct {
	// Wire is the format: wire.OpenAI, wire.Anthropic, wire.Responses or
	// wire.Gemini.
	Wire wire.Format
	// BaseURL is the API root: https://api.openai.com/v1 (or an Ollama,
	// llama.cpp or vLLM server's /v1) for OpenAI and Responses,
	// https://api.anthropic.com, https://generativelanguage.googleapis.com.
	BaseURL string
	// APIKey is sent as a bearer token (OpenAI, Responses), x-api-key
	// (Anthropic) or x-goog-api-key (Gemini).
	APIKey string
	// ModelName is the model to call.
	ModelName string
	// Header holds extra headers to send, such as OpenAI-Organization.
	Header http.Header
	// Client makes the requests; nil means a client shared by every
	// HTTPProvider without one: Go's default transport (proxies from the
	// environment, its timeouts) keeping up to MaxIdleModelConns idle
	// connections per server rather than http.DefaultClient's 2, so that
	// sessions calling one provider at once reuse their connections and
	// TLS handshakes rather than opening new ones.
	Client *http.Client
	// Retries is how many times a call answered 429 or 5xx is tried again;
	// 0 means 3, a negative number none.
	Retries int
	// Backoff is the first wait between tries, doubled each time and never
	// over MaxBackoff; 0 means one second. A Retry-After header, in seconds
	// or as a date, is honoured when longer, and so is the retryDelay of a
	// Gemini error body, which sends no header.
	Backoff time.Duration
	// MaxBackoff bounds one wait; 0 means 60 seconds. A Retry-After asking
	// for longer ends the retries.
	MaxBackoff time.Duration
}

// Retry describes a model call about to be tried again.
type Retry struct {
	Status  int           `json:"status"`
	Attempt int           `json:"attempt"`
	Wait    time.Duration `json:"wait"`
}

type retryNoticeKey struct{}

// withRetryNotice makes a Provider that retries report each retry to notify.
func withRetryNotice(ctx context.Context, notify func(Retry)) context.Context {
	return context.WithValue(ctx, retryNoticeKey{}, notify)
}

// Format implements Provider.
func (p *HTTPProvider) Format() wire.Format { return p.Wire }

// Model implements Provider.
func (p *HTTPProvider) Model() string { return p.ModelName }

// Call implements Provider. It tries again on 429 and 5xx, waiting as
// Backoff and the response's Retry-After (or Gemini's retryDelay) say.
func (p *HTTPProvider) Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	retries := p.Retries
	if retries == 0 {
		retries = 3
	}
	backoff, maxBackoff := p.Backoff, p.MaxBackoff
	if backoff <= 0 {
		backoff = time.Second
	}
	if maxBackoff <= 0 {
		maxBackoff = time.Minute
	}
	for attempt := 1; ; attempt++ {
		resp, err := p.call(ctx, req)
		if err != nil || !retryable(resp.StatusCode) || attempt > retries {
			return resp, err
		}
		wait := min(backoff<<(attempt-1), maxBackoff)
		after, ok := retryAfter(resp.Header, time.Now())
		if !ok {
			after, ok = bodyRetryDelay(resp)
		}
		if ok {
			if after > maxBackoff {
				return resp, nil // the provider asks for longer than we wait
			}
			wait = max(wait, after)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if notify, ok := ctx.Value(retryNoticeKey{}).(func(Retry)); ok {
			notify(Retry{Status: resp.StatusCode, Attempt: attempt, Wait: wait})
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// retryable: rate limited, or the provider failed (Anthropic's 529 is
// "overloaded").
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500 && status <= 599
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// bodyRetryDelay reads how long a Gemini error body asks to wait: the
// retryDelay of its google.rpc.RetryInfo detail, a protobuf duration such as
// "27s" or "45.837906927s". The body read is put back for the caller.
func bodyRetryDelay(resp *http.Response) (time.Duration, bool) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	if err != nil {
		return 0, false
	}
	return retryDelay(body)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// retryDelay finds the retryDelay of a RetryInfo detail in an error body.
func retryDelay(body []byte) (time.Duration, bool) {
	var e struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0, false
	}
	for _, d := range e.Error.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			continue
		}
		secs, err := strconv.ParseFloat(strings.TrimSuffix(d.RetryDelay, "s"), 64)
		if err != nil || !strings.HasSuffix(d.RetryDelay, "s") || secs < 0 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	return 0, false
}

func (p *HTTPProvider) call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	url := strings.TrimSuffix(p.BaseURL, "/") + req.Path
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(req.Body))
	if err != nil {
		return nil, fmt.Errorf("host: model request to %q: %w", url, err)
	}
	for k, v := range req.Headers {
		hreq.Header.Set(k, v)
	}
	for k, vs := range p.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	if p.APIKey != "" {
		switch p.Wire {
		case wire.Anthropic:
			hreq.Header.Set("x-api-key", p.APIKey)
		case wire.Gemini:
			hreq.Header.Set("x-goog-api-key", p.APIKey)
		default:
			hreq.Header.Set("Authorization", "Bearer "+p.APIKey)
		}
	}
	if req.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	client := p.Client
	if client == nil {
		client = modelClient()
	}
	return client.Do(hreq)
}

// MaxIdleModelConns is how many idle connections to one model server the
// default client of HTTPProvider keeps.
const MaxIdleModelConns = 64

var modelClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = MaxIdleModelConns
	t.MaxIdleConns = max(t.MaxIdleConns, MaxIdleModelConns)
	return &http.Client{Transport: t}
})

// ProviderFunc is a Provider made of a function: a program that sends
// model calls its own way (an SDK client, a gateway, a test double) gives
// the format its endpoint speaks, the model, and Func, which POSTs the
// request (to the endpoint's base URL followed by req.Path, which starts
// with a slash, with req.Headers and req.Body, adding its own
// authentication) and returns the response unread, whatever its status.
type ProviderFunc struct {
	// Wire is the format Func's endpoint speaks.
	Wire wire.Format
	// ModelName is the model the module names in each request.
	ModelName string
	// Func sends one model call.
	Func func(ctx context.Context, req *session.ModelRequest) (*http.Response, error)
}

// Format is the wire format.
func (p ProviderFunc) Format() wire.Format { return p.Wire }

// Model is the model to call.
func (p ProviderFunc) Model() string { return p.ModelName }

// Call runs Func.
func (p ProviderFunc) Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	if p.Func == nil {
		return nil, errNoRun
	}
	return p.Func(ctx, req)
}
