package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Default models, when neither --model nor TOOLROUTE_MODEL nor the model
// setting names one.
const (
	DefaultOpenAIModel    = "gpt-4.1-mini"
	DefaultAnthropicModel = "claude-sonnet-4-5"
	// DefaultLocalModel is for an OpenAI-compatible server other than
	// OpenAI's, such as Ollama.
	DefaultLocalModel = "llama3.2"
)

// ErrNoProvider says how to configure a provider.
var ErrNoProvider = errors.New(`no model provider is configured. Set one of:
  OPENAI_API_KEY      for OpenAI (and OPENAI_BASE_URL for another OpenAI-compatible service)
  OPENAI_BASE_URL     alone, for a local OpenAI-compatible server, such as
                      http://localhost:11434/v1 (Ollama), http://localhost:8080/v1 (llama.cpp server)
                      or http://localhost:8000/v1 (vLLM)
  ANTHROPIC_API_KEY   for Anthropic (and ANTHROPIC_BASE_URL to change its address)
then pick the model with --model or TOOLROUTE_MODEL. To see toolroute work without
a model, run the scripted demo: --provider demo`)

// ProviderInfo describes the provider in use, for people.
type ProviderInfo struct {
	Name    string // openai, anthropic or demo
	BaseURL string
	Model   string // the default model; the model setting may override it
	// KeyVar is the environment variable holding the key, for error hints.
	KeyVar string
}

func (p ProviderInfo) String() string {
	switch p.Name {
	case "demo":
		return "the scripted demo model (not a real model)"
	case "none":
		return "no model provider"
	}
	return fmt.Sprintf("%s at %s, model %s", p.Name, p.BaseURL, p.Model)
}

// Hint adds to a failed turn's message what to check for this provider.
func (p ProviderInfo) Hint(msg string) string {
	switch {
	case strings.Contains(msg, "HTTP 401") || strings.Contains(msg, "HTTP 403"):
		if p.KeyVar != "" {
			return msg + " (check " + p.KeyVar + ")"
		}
	case strings.Contains(msg, "HTTP 404"):
		return msg + fmt.Sprintf(" (the model is %q: choose another with --model, TOOLROUTE_MODEL or the model setting)", p.Model)
	case strings.Contains(msg, "could not be reached"):
		return msg + fmt.Sprintf(" (is the server at %s running? set %s_BASE_URL to change it)", p.BaseURL, strings.ToUpper(p.Name))
	}
	return msg
}

// resolveProvider picks the provider: --provider, or the one whose key is
// set (OpenAI first when both are); the model: --model, TOOLROUTE_MODEL, or
// the provider's default.
func resolveProvider(name, model string, getenv func(string) string) (host.Provider, ProviderInfo, error) {
	openaiKey, openaiBase := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL")
	anthropicKey, anthropicBase := getenv("ANTHROPIC_API_KEY"), getenv("ANTHROPIC_BASE_URL")
	if model == "" {
		model = getenv("TOOLROUTE_MODEL")
	}
	if name == "" {
		switch {
		case openaiKey != "" || openaiBase != "":
			name = "openai"
		case anthropicKey != "":
			name = "anthropic"
		default:
			return nil, ProviderInfo{}, ErrNoProvider
		}
	}
	switch name {
	case "openai":
		base := openaiBase
		if base == "" {
			if openaiKey == "" {
				return nil, ProviderInfo{}, errors.New("--provider openai needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server")
			}
			base = "https://api.openai.com/v1"
		}
		if model == "" {
			model = DefaultOpenAIModel
			if !strings.Contains(base, "api.openai.com") {
				model = DefaultLocalModel
			}
		}
		return &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: base, APIKey: openaiKey, ModelName: model},
			ProviderInfo{Name: name, BaseURL: base, Model: model, KeyVar: "OPENAI_API_KEY"}, nil
	case "anthropic":
		if anthropicKey == "" {
			return nil, ProviderInfo{}, errors.New("--provider anthropic needs ANTHROPIC_API_KEY")
		}
		base := anthropicBase
		if base == "" {
			base = "https://api.anthropic.com"
		}
		if model == "" {
			model = DefaultAnthropicModel
		}
		return &host.HTTPProvider{Wire: wire.Anthropic, BaseURL: base, APIKey: anthropicKey, ModelName: model},
			ProviderInfo{Name: name, BaseURL: base, Model: model, KeyVar: "ANTHROPIC_API_KEY"}, nil
	case "demo":
		return Demo{}, ProviderInfo{Name: "demo", Model: DemoModel}, nil
	}
	return nil, ProviderInfo{}, fmt.Errorf("unknown provider %q: use openai, anthropic or demo", name)
}

// settingsModel lets the model setting (set_setting model) override the
// provider's model, from the next turn.
type settingsModel struct {
	host.Provider
	store *store.DB
}

func (p settingsModel) Model() string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if m, ok, err := p.store.Setting(ctx, "model"); err == nil && ok && m != "" {
		return m
	}
	return p.Provider.Model()
}

// noModel is the provider of commands that make no model calls.
type noModel struct{}

func (noModel) Format() wire.Format { return wire.OpenAI }
func (noModel) Model() string       { return "none" }
func (noModel) Call(context.Context, *session.ModelRequest) (*http.Response, error) {
	return nil, ErrNoProvider
}

// ModelPaths are the request paths a model proxy forwards, by format.
var ModelPaths = map[wire.Format]string{wire.OpenAI: "/chat/completions", wire.Anthropic: "/v1/messages"}

// ModelCall makes a model call the caller's copy of the module asked for,
// with this program's provider and key: the browser UI's proxy, so a key
// can stay on the server. The request must be in the provider's format
// and to its one model endpoint; of its headers only the ones the wire
// formats set pass.
func (a *App) ModelCall(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	format := a.model.Format()
	if req.Format != format {
		return nil, fmt.Errorf("the server's provider speaks the %s format, not %q: set the page's provider to \"server\" with that format", format, req.Format)
	}
	if want := ModelPaths[format]; req.Path != want {
		return nil, fmt.Errorf("the proxy forwards only %s requests to %s, not %q", format, want, req.Path)
	}
	headers := map[string]string{}
	for k, v := range req.Headers {
		switch strings.ToLower(k) {
		case "content-type", "anthropic-version", "anthropic-beta":
			headers[strings.ToLower(k)] = v
		}
	}
	fwd := *req
	fwd.Headers = headers
	return a.model.Call(ctx, &fwd)
}

// Format is the wire format of the program's provider.
func (a *App) Format() wire.Format { return a.model.Format() }

// Model is the model the program's provider calls now.
func (a *App) Model() string { return a.model.Model() }
