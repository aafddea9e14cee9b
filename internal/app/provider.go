package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Default models, when neither --model nor TOOLROUTE_MODEL nor the model
// setting names one.
const (
	DefaultOpenAIModel    = "gpt-4.1-mini"
	DefaultAnthropicModel = "claude-sonnet-4-5"
	// DefaultResponsesModel is OpenAI's current small model, for the API
	// OpenAI builds its reasoning models for.
	DefaultResponsesModel = "gpt-5.4-mini"
	// DefaultGeminiModel is Gemini's current stable Flash model.
	DefaultGeminiModel = "gemini-3.5-flash"
	// DefaultLocalModel is for an OpenAI-compatible server other than
	// OpenAI's, such as Ollama.
	DefaultLocalModel = "llama3.2"
)

// Base URLs of the providers' APIs, when no *_BASE_URL variable gives one.
const (
	OpenAIBaseURL    = "https://api.openai.com/v1"
	AnthropicBaseURL = "https://api.anthropic.com"
	GeminiBaseURL    = "https://generativelanguage.googleapis.com"
)

// ErrNoProvider says how to configure a provider.
var ErrNoProvider = errors.New(`no model provider is configured. Set one of:
  OPENAI_API_KEY      for OpenAI (and OPENAI_BASE_URL for another OpenAI-compatible service)
  OPENAI_BASE_URL     alone, for a local OpenAI-compatible server, such as
                      http://localhost:11434/v1 (Ollama), http://localhost:8080/v1 (llama.cpp server)
                      or http://localhost:8000/v1 (vLLM)
  ANTHROPIC_API_KEY   for Anthropic (and ANTHROPIC_BASE_URL to change its address)
  GEMINI_API_KEY      for Gemini (and GEMINI_BASE_URL to change its address)
then pick the model with --model or TOOLROUTE_MODEL; --provider responses uses
OpenAI's Responses API with the OPENAI_ variables. To see toolroute work without
a model, run the scripted demo: --provider demo`)

// ProviderInfo describes the provider in use, for people.
type ProviderInfo struct {
	Name    string // openai, anthropic, responses, gemini or demo
	BaseURL string
	Model   string // the default model; the model setting may override it
	// KeyVar and BaseVar are the environment variables holding the key and
	// the base URL, for error hints.
	KeyVar, BaseVar string
}

// String names the provider for people.
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
	case strings.Contains(msg, "could not be reached") && p.BaseVar != "":
		return msg + fmt.Sprintf(" (is the server at %s running? set %s to change it)", p.BaseURL, p.BaseVar)
	}
	return msg
}

// resolveProvider picks the provider: --provider, or the one whose key is
// set (OpenAI first, then Anthropic, then Gemini; the Responses API only
// when asked for, since it shares OpenAI's variables); the model: --model,
// TOOLROUTE_MODEL, or the provider's default.
func resolveProvider(name, model string, getenv func(string) string) (host.Provider, ProviderInfo, error) {
	openaiKey, openaiBase := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL")
	anthropicKey, anthropicBase := getenv("ANTHROPIC_API_KEY"), getenv("ANTHROPIC_BASE_URL")
	geminiKey, geminiBase := getenv("GEMINI_API_KEY"), getenv("GEMINI_BASE_URL")
	if model == "" {
		model = getenv("TOOLROUTE_MODEL")
	}
	if name == "" {
		switch {
		case openaiKey != "" || openaiBase != "":
			name = "openai"
		case anthropicKey != "":
			name = "anthropic"
		case geminiKey != "":
			name = "gemini"
		default:
			return nil, ProviderInfo{}, ErrNoProvider
		}
	}
	provider := func(f wire.Format, base, key string, info ProviderInfo) (host.Provider, ProviderInfo, error) {
		info.Name, info.BaseURL, info.Model = name, base, model
		return &host.HTTPProvider{Wire: f, BaseURL: base, APIKey: key, ModelName: model}, info, nil
	}
	openaiVars := ProviderInfo{KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}
	switch name {
	case "openai", "responses":
		base := openaiBase
		if base == "" {
			if openaiKey == "" {
				return nil, ProviderInfo{}, fmt.Errorf("--provider %s needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server", name)
			}
			base = OpenAIBaseURL
		}
		if model == "" {
			switch {
			case !strings.Contains(base, "api.openai.com"):
				model = DefaultLocalModel
			case name == "responses":
				model = DefaultResponsesModel
			default:
				model = DefaultOpenAIModel
			}
		}
		if name == "responses" {
			return provider(wire.Responses, base, openaiKey, openaiVars)
		}
		return provider(wire.OpenAI, base, openaiKey, openaiVars)
	case "anthropic":
		if anthropicKey == "" {
			return nil, ProviderInfo{}, errors.New("--provider anthropic needs ANTHROPIC_API_KEY")
		}
		if model == "" {
			model = DefaultAnthropicModel
		}
		return provider(wire.Anthropic, cmp.Or(anthropicBase, AnthropicBaseURL), anthropicKey, ProviderInfo{KeyVar: "ANTHROPIC_API_KEY", BaseVar: "ANTHROPIC_BASE_URL"})
	case "gemini":
		if geminiKey == "" && geminiBase == "" {
			return nil, ProviderInfo{}, errors.New("--provider gemini needs GEMINI_API_KEY, or GEMINI_BASE_URL for a server that takes no key")
		}
		if model == "" {
			model = DefaultGeminiModel
		}
		return provider(wire.Gemini, cmp.Or(geminiBase, GeminiBaseURL), geminiKey, ProviderInfo{KeyVar: "GEMINI_API_KEY", BaseVar: "GEMINI_BASE_URL"})
	case "demo":
		return Demo{}, ProviderInfo{Name: "demo", Model: DemoModel}, nil
	}
	return nil, ProviderInfo{}, fmt.Errorf("unknown provider %q: use openai, anthropic, responses, gemini or demo", name)
}

// settingsModel is the program's provider as the settings make it, from
// the next turn: a stored provider when the provider setting names one
// (create_provider, set_config provider), with its default model and the
// key of its secret; else the program's own (flags and environment), whose
// model the model setting overrides.
type settingsModel struct {
	host.Provider
	store *store.DB
}

// ForTurn is the provider the settings choose now, for one turn.
func (p settingsModel) ForTurn(ctx context.Context) host.Provider {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if name, ok, err := p.store.Setting(ctx, builtin.ProviderSettingKey); err == nil && ok && name != "" {
		if rec, key, ok, err := builtin.StoredProvider(ctx, p.store, name); err == nil && ok {
			return storedProvider(rec, key)
		}
	}
	if m, ok, err := p.store.Setting(ctx, "model"); err == nil && ok && m != "" {
		return modelOverride{Provider: p.Provider, model: m}
	}
	return p.Provider
}

func (p settingsModel) Format() wire.Format { return p.ForTurn(context.Background()).Format() }
func (p settingsModel) Model() string       { return p.ForTurn(context.Background()).Model() }

// Call sends req with the provider the settings choose now (a turn calls
// its ForTurn's provider instead); a request of another format is refused.
func (p settingsModel) Call(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	cur := p.ForTurn(ctx)
	if req.Format != "" && req.Format != cur.Format() {
		return nil, fmt.Errorf("the provider now speaks the %s format, not %s: send the message again", cur.Format(), req.Format)
	}
	return cur.Call(ctx, req)
}

type modelOverride struct {
	host.Provider
	model string
}

func (m modelOverride) Model() string { return m.model }

// storedProvider is a provider of the config group's records, with the
// value of its key's secret.
func storedProvider(rec builtin.ProviderRecord, key string) host.Provider {
	model := rec.DefaultModel
	if model == "" {
		switch rec.Format {
		case "anthropic":
			model = DefaultAnthropicModel
		case "responses":
			model = DefaultResponsesModel
		case "gemini":
			model = DefaultGeminiModel
		default:
			model = DefaultOpenAIModel
			if !strings.Contains(rec.BaseURL, "api.openai.com") {
				model = DefaultLocalModel
			}
		}
	}
	return &host.HTTPProvider{Wire: wire.Format(rec.Format), BaseURL: rec.BaseURL, APIKey: key, ModelName: model}
}

// noModel is the provider of commands that make no model calls.
type noModel struct{}

func (noModel) Format() wire.Format { return wire.OpenAI }
func (noModel) Model() string       { return "none" }
func (noModel) Call(context.Context, *session.ModelRequest) (*http.Response, error) {
	return nil, ErrNoProvider
}

// ModelPath reports whether a model proxy forwards a request of format to
// path: the format's one endpoint, or for Gemini a model's generateContent
// or streamGenerateContent; want names them for an error message.
func ModelPath(format wire.Format, path string) (ok bool, want string) {
	switch format {
	case wire.OpenAI:
		return path == "/chat/completions", "/chat/completions"
	case wire.Anthropic:
		return path == "/v1/messages", "/v1/messages"
	case wire.Responses:
		return path == "/responses", "/responses"
	case wire.Gemini:
		return wire.GeminiPath(path), "/v1beta/models/MODEL:generateContent or :streamGenerateContent?alt=sse"
	}
	return false, "no path"
}

// ModelCall makes a model call the caller's copy of the module asked for,
// with this program's provider and key: the browser UI's proxy, so a key
// can stay on the server. The request must be in the provider's format
// and to its one model endpoint; of its headers only the ones the wire
// formats set pass.
func (a *App) ModelCall(ctx context.Context, req *session.ModelRequest) (*http.Response, error) {
	format := a.model.Format()
	if a.Provider.Name == "none" {
		return nil, fmt.Errorf("this server has no model provider: choose one with a key kept in this browser in the page's settings, or configure the server's and restart it. %w", ErrNoProvider)
	}
	if req.Format != format {
		return nil, fmt.Errorf("the server's provider speaks the %s format, not %q: set the page's provider to \"server\" with that format", format, req.Format)
	}
	if ok, want := ModelPath(format, req.Path); !ok {
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
