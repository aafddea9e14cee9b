package host

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

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

// HTTPProvider is a Provider for an OpenAI-compatible or Anthropic endpoint.
type HTTPProvider struct {
	// Wire is the format: wire.OpenAI or wire.Anthropic.
	Wire wire.Format
	// BaseURL is the API root: https://api.openai.com/v1 (or an Ollama,
	// llama.cpp or vLLM server's /v1), or https://api.anthropic.com.
	BaseURL string
	// APIKey is sent as a bearer token (OpenAI) or x-api-key (Anthropic).
	APIKey string
	// ModelName is the model to call.
	ModelName string
	// Header holds extra headers to send, such as OpenAI-Organization.
	Header http.Header
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
}

// Format implements Provider.
func (p *HTTPProvider) Format() wire.Format { return p.Wire }

// Model implements Provider.
func (p *HTTPProvider) Model() string { return p.ModelName }

// Call implements Provider.
func (p *HTTPProvider) Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
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
		default:
			hreq.Header.Set("Authorization", "Bearer "+p.APIKey)
		}
	}
	if req.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	client := p.Client
	if client == nil {
		client = http.DefaultClient
	}
	return client.Do(hreq)
}
