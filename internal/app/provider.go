package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/registry/check"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// providers is assets/providers.json, the kinds of provider, their
// variables and defaults, which the edge worker reads too.
var providers = func() (p struct {
	Kinds      []providerKind `json:"kinds"`
	LocalModel string         `json:"local_model"`
	Variables  [][2]string    `json:"variables"`
}) {
	if err := json.Unmarshal(assets.Providers, &p); err != nil {
		panic("app: assets/providers.json: " + err.Error()) // embedded: a build's mistake
	}
	return p
}()

// providerKind is a kind of provider of assets/providers.json: its wire
// format, the variables of its key and base URL, and its defaults.
type providerKind struct {
	Name    string      `json:"name"`
	Format  wire.Format `json:"format"`
	KeyVar  string      `json:"key_var"`
	BaseVar string      `json:"base_var"`
	BaseURL string      `json:"base_url"`
	Model   string      `json:"model"`
	// BaseAlone says for what a base URL without a key will do; "" when
	// the kind needs its key.
	BaseAlone string `json:"base_alone"`
}

// kind is the named kind of assets/providers.json; the zero kind for a
// name it has not.
func kind(name string) providerKind {
	for _, k := range providers.Kinds {
		if k.Name == name {
			return k
		}
	}
	return providerKind{}
}

// needs is the error of a kind chosen without its key (or its base URL,
// when that alone will do).
func (k providerKind) needs() error {
	if k.BaseAlone == "" {
		return fmt.Errorf("--provider %s needs %s", k.Name, k.KeyVar)
	}
	return fmt.Errorf("--provider %s needs %s, or %s %s", k.Name, k.KeyVar, k.BaseVar, k.BaseAlone)
}

// Default models, when neither --model nor TOOLROUTE_MODEL nor the model
// setting names one (assets/providers.json).
var (
	DefaultOpenAIModel    = kind("openai").Model
	DefaultAnthropicModel = kind("anthropic").Model
	// DefaultResponsesModel is OpenAI's current small model, for the API
	// OpenAI builds its reasoning models for.
	DefaultResponsesModel = kind("responses").Model
	// DefaultGeminiModel is Gemini's current stable Flash model.
	DefaultGeminiModel = kind("gemini").Model
	// DefaultLocalModel is for an OpenAI-compatible server other than
	// OpenAI's, such as Ollama.
	DefaultLocalModel = providers.LocalModel
)

// Base URLs of the providers' APIs, when no *_BASE_URL variable gives one
// (assets/providers.json).
var (
	OpenAIBaseURL    = kind("openai").BaseURL
	AnthropicBaseURL = kind("anthropic").BaseURL
	GeminiBaseURL    = kind("gemini").BaseURL
)

// ErrNoProvider says how to configure a provider: the variables as
// assets/providers.json explains them, then the program's flags.
var ErrNoProvider = errors.New("no model provider is configured. Set one of:\n" + variablesHelp() +
	"then pick the model with --model or TOOLROUTE_MODEL; --provider responses uses\n" +
	"OpenAI's Responses API with the OPENAI_ variables. To see toolroute work without\n" +
	"a model, run the scripted demo: --provider demo")

// variablesHelp is assets/providers.json's variables, a line each.
func variablesHelp() string {
	var b strings.Builder
	for _, v := range providers.Variables {
		fmt.Fprintf(&b, "  %-20s%s\n", v[0], v[1])
	}
	return b.String()
}

// kindNames lists the kinds for an error: "a, b or c".
func kindNames() string {
	names := make([]string, len(providers.Kinds))
	for i, k := range providers.Kinds {
		names[i] = k.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

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
	openai, anthropic, gemini := kind("openai"), kind("anthropic"), kind("gemini")
	openaiKey, openaiBase := getenv(openai.KeyVar), getenv(openai.BaseVar)
	anthropicKey, anthropicBase := getenv(anthropic.KeyVar), getenv(anthropic.BaseVar)
	geminiKey, geminiBase := getenv(gemini.KeyVar), getenv(gemini.BaseVar)
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
	k := kind(name)
	provider := func(base, key string) (host.Provider, ProviderInfo, error) {
		if model == "" {
			model = k.Model
		}
		info := ProviderInfo{Name: name, BaseURL: base, Model: model, KeyVar: k.KeyVar, BaseVar: k.BaseVar}
		return &host.HTTPProvider{Wire: k.Format, BaseURL: base, APIKey: key, ModelName: model}, info, nil
	}
	switch name {
	case "openai", "responses":
		base := openaiBase
		if base == "" {
			if openaiKey == "" {
				return nil, ProviderInfo{}, k.needs()
			}
			base = k.BaseURL
		}
		if model == "" && !strings.Contains(base, "api.openai.com") {
			model = DefaultLocalModel
		}
		return provider(base, openaiKey)
	case "anthropic":
		if anthropicKey == "" {
			return nil, ProviderInfo{}, k.needs()
		}
		return provider(cmp.Or(anthropicBase, k.BaseURL), anthropicKey)
	case "gemini":
		if geminiKey == "" && geminiBase == "" {
			return nil, ProviderInfo{}, k.needs()
		}
		return provider(cmp.Or(geminiBase, k.BaseURL), geminiKey)
	case "demo":
		return Demo{}, ProviderInfo{Name: "demo", Model: DemoModel}, nil
	}
	return nil, ProviderInfo{}, fmt.Errorf("unknown provider %q: use %s", name, kindNames())
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

// ModelCall makes a model call the caller's copy of the module asked for,
// with this program's provider and key: the browser UI's proxy, so a key
// can stay on the server. The request must be in the provider's format
// and to its one model endpoint; of its headers only the ones the wire
// formats set pass. A call the module refuses is a *module.Refused: of
// type invalid_arguments for a request without a body, else
// check.WrongEndpoint. The call is sent once: a 429 or 5xx is the caller's
// to try again, with the provider's retry policy returned, so that the
// caller's module decides each retry and its user sees it.
func (a *App) ModelCall(ctx context.Context, req *session.ModelRequest) (*http.Response, *session.Retries, error) {
	format := a.model.Format()
	if a.Provider.Name == "none" {
		return nil, nil, fmt.Errorf("this server has no model provider: choose one with a key kept in this browser in the page's settings, or configure the server's and restart it. %w", ErrNoProvider)
	}
	// The module says which calls the proxy forwards, and which of their
	// headers (toolroute_check's model_proxy), as it does the worker's.
	var checked check.ModelProxy // the answer: the headers to forward
	err := a.Host.CheckArgs(ctx, "model_proxy", check.ModelProxy{Provider: format, Format: req.Format, Path: req.Path, Headers: req.Headers, Body: len(req.Body) > 0}, &checked)
	if err != nil {
		return nil, nil, err
	}
	fwd := *req
	fwd.Headers = checked.Headers
	return host.CallOnce(ctx, a.model, &fwd)
}

// Format is the wire format of the program's provider.
func (a *App) Format() wire.Format { return a.model.Format() }

// Model is the model the program's provider calls now.
func (a *App) Model() string { return a.model.Model() }

// Models lists the models of the provider the settings choose now, in the
// provider's order, with the model its turns call by default: the
// provider's model list (builtin.FetchModels: GET BASE/models and the
// like, with the key), the demo's one model, for the browser UI's model
// picker. An error says what the provider answered.
func (a *App) Models(ctx context.Context) (current string, models []string, err error) {
	if a.Provider.Name == "none" {
		return "", nil, ErrNoProvider
	}
	p := a.model.ForTurn(ctx)
	current = p.Model()
	if o, ok := p.(modelOverride); ok {
		p = o.Provider
	}
	switch p := p.(type) {
	case Demo:
		return current, []string{DemoModel}, nil
	case *host.HTTPProvider:
		models, err = builtin.FetchModels(a.Host.CheckContext(ctx), nil, string(p.Wire), p.BaseURL, p.APIKey)
		return current, models, err
	}
	return current, nil, fmt.Errorf("the provider %s has no model list", a.Provider.Name)
}
