package host

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
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
	// 0 means 3, a negative number none. Retries, Backoff and MaxBackoff
	// are the policy session.Retries applies: in a turn the module decides
	// each retry with it, and Call sends each try once.
	Retries int
	// Backoff is the first wait between tries, doubled each time and never
	// over MaxBackoff, in whole milliseconds; 0 means one second. A
	// Retry-After header, in seconds
	// or as a date, is honoured when longer, and so is the retryDelay of a
	// Gemini error body, which sends no header.
	Backoff time.Duration
	// MaxBackoff bounds one wait; 0 means 60 seconds. A Retry-After asking
	// for longer ends the retries.
	MaxBackoff time.Duration
}

// Retry describes a model call about to be tried again: the status it
// was answered, which retry it is (1 for the first), the wait before it,
// and the sentence to show (the module's, session.Retry).
type Retry struct {
	Status  int           `json:"status"`
	Attempt int           `json:"attempt"`
	Wait    time.Duration `json:"wait"`
	Message string        `json:"message"`
}

// singleTry is how a turn asks a Provider that retries to send a request
// once: the module decides the retries (session.Retries.Decide), and the
// provider says here how it would have tried again.
type singleTry struct {
	retries *session.Retries
}

type singleTryKey struct{}

// withSingleTry makes an HTTPProvider send each request once and report
// its retry policy in st.
func withSingleTry(ctx context.Context, st *singleTry) context.Context {
	return context.WithValue(ctx, singleTryKey{}, st)
}

// CallOnce sends req with p once, as a turn does: a provider that tries a
// failed call again (an HTTPProvider) does not, and says the retry policy
// it would have applied (nil for a provider that tries once). A model
// proxy uses it, so that the turn calling through the proxy decides each
// retry with that policy and shows it (the proxy's reply carries it,
// docs/reference/http.md).
func CallOnce(ctx context.Context, p Provider, req *session.ModelRequest) (*http.Response, *session.Retries, error) {
	st := &singleTry{}
	resp, err := p.Call(withSingleTry(ctx, st), req)
	return resp, st.retries, err
}

// Format implements Provider.
func (p *HTTPProvider) Format() wire.Format { return p.Wire }

// Model implements Provider.
func (p *HTTPProvider) Model() string { return p.ModelName }

// retries is the provider's retry policy, as the module applies it.
func (p *HTTPProvider) retries() session.Retries {
	r := session.Retries{Count: p.Retries, BackoffMS: ms(p.Backoff), MaxBackoffMS: ms(p.MaxBackoff)}
	if p.Retries == 0 {
		r.Count = 3
	} else if p.Retries < 0 {
		r.Count = 0
	}
	return r
}

// ms is d in whole milliseconds, rounded up: 0 only for none.
func ms(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// Call implements Provider. It tries again on 429 and 5xx, waiting as
// Backoff and the response's Retry-After (or Gemini's retryDelay) say:
// session.Retries, the policy the module applies. In a turn the module
// decides each retry instead, and Call sends the request once.
func (p *HTTPProvider) Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	policy := p.retries()
	if st, ok := ctx.Value(singleTryKey{}).(*singleTry); ok {
		st.retries = &policy
		return p.call(ctx, req)
	}
	for attempt := 1; ; attempt++ {
		resp, err := p.call(ctx, req)
		if err != nil || !session.Retryable(resp.StatusCode) || attempt > policy.Count {
			return resp, err
		}
		// The body read is put back for the caller.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		retry, ok := policy.Decide(resp.StatusCode, resp.Header.Get("Retry-After"), body, attempt, time.Now())
		if !ok {
			return resp, nil // the provider asks for longer than we wait
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		select {
		case <-time.After(time.Duration(retry.WaitMS) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

type readCloser struct {
	io.Reader
	io.Closer
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
