package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/internal/fakegoogle"
	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/testcache"
	"github.com/toolroute/toolroute/internal/testwait"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

var cacheDir string

func TestMain(m *testing.M) { os.Exit(testcache.Run(m, &cacheDir)) }

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolveProvider(t *testing.T) {
	for _, c := range []struct {
		name, flagProvider, flagModel string
		env                           map[string]string
		want                          ProviderInfo
		wantErr                       string
	}{
		{name: "nothing", wantErr: "no model provider is configured"},
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "k"},
			want: ProviderInfo{Name: "openai", BaseURL: "https://api.openai.com/v1", Model: DefaultOpenAIModel, KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "local server", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"},
			want: ProviderInfo{Name: "openai", BaseURL: "http://localhost:11434/v1", Model: DefaultLocalModel, KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "anthropic key", env: map[string]string{"ANTHROPIC_API_KEY": "k"},
			want: ProviderInfo{Name: "anthropic", BaseURL: "https://api.anthropic.com", Model: DefaultAnthropicModel, KeyVar: "ANTHROPIC_API_KEY", BaseVar: "ANTHROPIC_BASE_URL"}},
		{name: "both keys: openai", env: map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"},
			want: ProviderInfo{Name: "openai", BaseURL: "https://api.openai.com/v1", Model: DefaultOpenAIModel, KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "both keys, flag", flagProvider: "anthropic", env: map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
			want: ProviderInfo{Name: "anthropic", BaseURL: "http://127.0.0.1:9", Model: DefaultAnthropicModel, KeyVar: "ANTHROPIC_API_KEY", BaseVar: "ANTHROPIC_BASE_URL"}},
		{name: "model from env", env: map[string]string{"OPENAI_API_KEY": "k", "TOOLROUTE_MODEL": "gpt-x"},
			want: ProviderInfo{Name: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-x", KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "model flag wins", flagModel: "gpt-y", env: map[string]string{"OPENAI_API_KEY": "k", "TOOLROUTE_MODEL": "gpt-x"},
			want: ProviderInfo{Name: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-y", KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "demo", flagProvider: "demo", want: ProviderInfo{Name: "demo", Model: DemoModel}},
		{name: "anthropic without key", flagProvider: "anthropic", env: map[string]string{"OPENAI_API_KEY": "k"}, wantErr: "needs ANTHROPIC_API_KEY"},
		{name: "openai without key", flagProvider: "openai", wantErr: "needs OPENAI_API_KEY"},
		{name: "gemini key", env: map[string]string{"GEMINI_API_KEY": "k"},
			want: ProviderInfo{Name: "gemini", BaseURL: "https://generativelanguage.googleapis.com", Model: DefaultGeminiModel, KeyVar: "GEMINI_API_KEY", BaseVar: "GEMINI_BASE_URL"}},
		{name: "anthropic before gemini", env: map[string]string{"GEMINI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"},
			want: ProviderInfo{Name: "anthropic", BaseURL: "https://api.anthropic.com", Model: DefaultAnthropicModel, KeyVar: "ANTHROPIC_API_KEY", BaseVar: "ANTHROPIC_BASE_URL"}},
		{name: "gemini flag, base URL", flagProvider: "gemini", env: map[string]string{"GEMINI_API_KEY": "k", "OPENAI_API_KEY": "k", "GEMINI_BASE_URL": "http://127.0.0.1:9"},
			want: ProviderInfo{Name: "gemini", BaseURL: "http://127.0.0.1:9", Model: DefaultGeminiModel, KeyVar: "GEMINI_API_KEY", BaseVar: "GEMINI_BASE_URL"}},
		{name: "gemini without key", flagProvider: "gemini", env: map[string]string{"OPENAI_API_KEY": "k"}, wantErr: "needs GEMINI_API_KEY"},
		{name: "responses", flagProvider: "responses", env: map[string]string{"OPENAI_API_KEY": "k"},
			want: ProviderInfo{Name: "responses", BaseURL: "https://api.openai.com/v1", Model: DefaultResponsesModel, KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "responses, local server", flagProvider: "responses", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1"},
			want: ProviderInfo{Name: "responses", BaseURL: "http://localhost:8000/v1", Model: DefaultLocalModel, KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "responses is never guessed", env: map[string]string{"OPENAI_API_KEY": "k"},
			want: ProviderInfo{Name: "openai", BaseURL: "https://api.openai.com/v1", Model: DefaultOpenAIModel, KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}},
		{name: "responses without key", flagProvider: "responses", wantErr: "--provider responses needs OPENAI_API_KEY"},
		{name: "unknown", flagProvider: "mistral", env: map[string]string{"OPENAI_API_KEY": "k"}, wantErr: `unknown provider "mistral": use openai, anthropic, responses, gemini or demo`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, info, err := resolveProvider(c.flagProvider, c.flagModel, env(c.env))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info != c.want {
				t.Errorf("info = %+v, want %+v", info, c.want)
			}
			if p.Model() != c.want.Model {
				t.Errorf("provider model = %q", p.Model())
			}
			if want := map[string]wire.Format{"openai": wire.OpenAI, "anthropic": wire.Anthropic, "responses": wire.Responses, "gemini": wire.Gemini}[c.want.Name]; want != "" && p.Format() != want {
				t.Errorf("provider format = %q, want %q", p.Format(), want)
			}
		})
	}
	// With no provider, the message says how to configure one.
	_, _, err := resolveProvider("", "", env(nil))
	for _, want := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "--provider responses", "--model", "--provider demo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the no-provider message lacks %s", want)
		}
	}
}

func TestHint(t *testing.T) {
	p := ProviderInfo{Name: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "m1", KeyVar: "OPENAI_API_KEY", BaseVar: "OPENAI_BASE_URL"}
	for msg, want := range map[string]string{
		"HTTP 401: check the API key":                     "(check OPENAI_API_KEY)",
		"HTTP 404: check the model name and the base URL": `(the model is "m1"`,
		"the model could not be reached: dial tcp":        "is the server at http://127.0.0.1:9/v1 running? set OPENAI_BASE_URL",
	} {
		if got := p.Hint(msg); !strings.HasPrefix(got, msg) || !strings.Contains(got, want) {
			t.Errorf("Hint(%q) = %q, want it to add %q", msg, got, want)
		}
	}
	if got := p.Hint("HTTP 500"); got != "HTTP 500" {
		t.Errorf("Hint added to %q", got)
	}
}

// testConfig is a Config in temporary folders.
func testConfig(t *testing.T) Config {
	dir := t.TempDir()
	return Config{
		DataDir: filepath.Join(dir, "data"), ConfigDir: filepath.Join(dir, "config"), CacheDir: testcache.App(cacheDir),
		Provider: "demo", Getenv: env(nil), Watch: -1,
	}
}

func open(t *testing.T, cfg Config) *App {
	t.Helper()
	a, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// send runs a turn and returns its events.
func send(t *testing.T, a *App, id, text string) []host.Event {
	t.Helper()
	var evs []host.Event
	for ev, err := range a.Host.Session(id).Send(context.Background(), text) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// turnOf is a turn's tool calls (name and status), group loads and reply.
type turnOf struct {
	calls []string
	loads []string
	reply string
	said  string // every reply of the turn
}

func summarize(evs []host.Event) turnOf {
	var t turnOf
	results := map[string]string{}
	for _, ev := range evs {
		if m := ev.Message; m != nil && m.Type == session.ToolResult {
			results[m.ToolCallID] = string(m.Status)
		}
	}
	for _, ev := range evs {
		if m := ev.Message; m != nil && m.Type == session.ToolCall {
			t.calls = append(t.calls, m.ToolName+":"+results[m.ToolCallID])
		}
		if ev.Group != nil {
			t.loads = append(t.loads, ev.Group.Name)
		}
		if ev.Type == host.EventDone {
			t.reply = ev.Text
		}
		if m := ev.Message; m != nil && m.Type == session.Assistant {
			t.said += m.Content + "\n"
		}
	}
	return t
}

// The demo answers what is typed, with the real built-in tools: the time
// calls get_current_time; "load the X tools" loads X; a group's subject
// loads it and calls one of its tools, whose failure (no Google account
// here) it reports as a failure; a note is written and read back in the
// sandbox; anything else gets what it is. Every reply says it is a demo.
func TestDemo(t *testing.T) {
	cfg := testConfig(t)
	a := open(t, cfg)
	for _, c := range []struct {
		text  string
		calls []string
		loads []string
		says  []string
	}{
		{"What time is it?", []string{"get_current_time:success"}, nil, []string{"get_current_time answered: "}},
		{"Load the calendar tools", []string{"load_tool_group:success"}, []string{"google_calendar"}, []string{"load_tool_group answered: Loaded 8 tools from group 'Google Calendar'"}},
		{"Search my mail", []string{"load_tool_group:success", "gmail_search:error"}, []string{"google_gmail"}, []string{"gmail_search failed: ", "Google account"}},
		{"What are my settings?", []string{"load_tool_group:success", "list_providers:success"}, []string{"config"}, []string{"list_providers answered: "}},
		{"Write a note: buy milk", []string{"write_file:success", "read_file:success"}, nil, []string{"read_file answered: ", "buy milk"}},
		{"Tell me a joke", nil, nil, []string{"not a real model", "OPENAI_API_KEY"}},
		// Routing scenario 5 (docs/reference/routing.md).
		{"Load the PDF tools", []string{"load_tool_group:success"}, []string{"pdf"}, []string{"load_tool_group answered: Loaded 3 tools from group 'PDF Tools'"}},
	} {
		got := summarize(send(t, a, "s-"+c.text, c.text))
		if !slices.Equal(got.calls, c.calls) || !slices.Equal(got.loads, c.loads) || !strings.HasPrefix(got.reply, "[demo model] ") {
			t.Errorf("%q: calls %v, loads %v, reply %q; want calls %v, loads %v", c.text, got.calls, got.loads, got.reply, c.calls, c.loads)
		}
		for _, want := range c.says {
			if !strings.Contains(got.reply, want) {
				t.Errorf("%q: the reply %q does not say %q", c.text, got.reply, want)
			}
		}
		// It says "failed" exactly when a call failed: never a success
		// that did not happen.
		failed := slices.ContainsFunc(got.calls, func(c string) bool { return strings.HasSuffix(c, ":error") })
		if strings.Contains(got.reply, "failed") != failed {
			t.Errorf("%q: the reply %q does not match the outcome %v", c.text, got.reply, got.calls)
		}
	}

	// The group stays loaded: the next turn, and a new process, call its
	// tool without loading it again.
	if got := summarize(send(t, a, "s", "What are my settings?")); !slices.Equal(got.calls, []string{"load_tool_group:success", "list_providers:success"}) {
		t.Fatalf("first turn: %v", got.calls)
	}
	a.Close()

	a2, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	if got := summarize(send(t, a2, "s", "Show the settings again")); !slices.Equal(got.calls, []string{"list_providers:success"}) || !strings.Contains(got.said, "still loaded from earlier in this session") {
		t.Errorf("the second process's calls = %v (%q), want list_providers alone", got.calls, got.reply)
	}
	s, _, _ := a2.Store.Session(context.Background(), "s")
	if s.Title != "What are my settings?" {
		t.Errorf("title = %q", s.Title)
	}
}

func TestNoModelCommands(t *testing.T) {
	cfg := testConfig(t)
	cfg.Provider = ""
	if _, err := Open(context.Background(), cfg); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("Open without a provider: %v", err)
	}
	cfg.NoModel = true
	a := open(t, cfg)
	res, err := a.Host.CallTool(context.Background(), "save_memory", json.RawMessage(`{"text":"likes tea"}`))
	if err != nil || !strings.HasPrefix(res.Output, "Saved memory") {
		t.Errorf("save_memory = %+v, %v", res, err)
	}
	if a.Provider.String() != "no model provider" {
		t.Errorf("provider = %s", a.Provider)
	}
}

// The user's folders: tools, skills (a malformed one reported and skipped),
// and libraries.
func TestUserFolders(t *testing.T) {
	cfg := testConfig(t)
	write := func(path, text string) {
		t.Helper()
		path = filepath.Join(cfg.ConfigDir, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tools/greet.json", `{"name":"greet","description":"Greet someone","parameters":{"properties":{"who":{"type":"string"}},"required":["who"]}}`)
	write("tools/greet.js", `function execute(p) { return lib("hello").hello(p.who) }`)
	write("lib/hello.js", `exports.hello = function (who) { return "Hello, " + who + "!" }`)
	write("tools/broken.json", `{"name":"broken"`)
	write("skills/haiku/SKILL.md", "---\nname: haiku\ndescription: Write haiku about anything\n---\nThree lines: 5, 7, 5 syllables.\n")
	write("skills/bad/SKILL.md", "no front matter here\n")
	a := open(t, cfg)

	res, err := a.Host.CallTool(context.Background(), "greet", json.RawMessage(`{"who":"Ada"}`))
	if err != nil || res.Output != "Hello, Ada!" {
		t.Errorf("greet = %+v, %v", res, err)
	}
	d, err := a.Host.Describe(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Skills) != 1 || d.Skills[0].Name != "haiku" || !strings.Contains(d.SystemPrompt, "Write haiku about anything") {
		t.Errorf("skills = %+v", d.Skills)
	}
	problems := strings.Join(a.Problems(), "\n")
	if !strings.Contains(problems, "broken.json") || !strings.Contains(problems, "bad") {
		t.Errorf("problems = %q, want broken.json and the bad skill", problems)
	}
}

// The page's libraries are what jsrun loads: NAME.min.js before NAME.js in
// a folder, the built-in folder before the user's, so a user's
// google_api.min.js is never loaded and is left out.
func TestForBrowserLibraries(t *testing.T) {
	cfg := testConfig(t)
	for name, text := range map[string]string{
		"hello.js": `exports.v = "hello.js"`, "hello.min.js": `exports.v = "hello.min.js"`,
		"google_api.min.js": `exports.v = "shadowed"`,
	} {
		if err := os.MkdirAll(filepath.Join(cfg.ConfigDir, "lib"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cfg.ConfigDir, "lib", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := open(t, cfg)
	bc, err := a.ForBrowser()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := bc.Libraries["google_api.min"]; ok {
		t.Error("the user's google_api.min.js is offered, though the built-in google_api.js comes first")
	}
	for _, name := range []string{"hello", "hello.min", "google_api", "htmlparser2"} {
		if _, ok := bc.Libraries[name]; !ok {
			t.Errorf("library %s is missing", name)
		}
	}
}

// The watcher picks up a tool written into the tools folder.
func TestWatch(t *testing.T) {
	cfg := testConfig(t)
	cfg.Watch = 20 * time.Millisecond
	a := open(t, cfg)
	tools := filepath.Join(cfg.ConfigDir, "tools")
	os.WriteFile(filepath.Join(tools, "late.js"), []byte(`function execute() { return "late" }`), 0o644)
	os.WriteFile(filepath.Join(tools, "late.json"), []byte(`{"name":"late","description":"Arrives late"}`), 0o644)
	var res any
	for deadline := time.Now().Add(testwait.Failsafe); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r, err := a.Host.CallTool(context.Background(), "late", nil)
		if err == nil {
			res = r.Output
			break
		}
	}
	if res != "late" {
		t.Errorf("the watcher did not load late.js: %v", res)
	}
}

// Memories and the system_prompt setting make each turn's prompt; the model
// setting chooses the model; manage_env_var reaches a tool that lists the
// variable.
func TestSettingsReachTheTurn(t *testing.T) {
	cfg := testConfig(t)
	cfg.Getenv = env(map[string]string{"FROM_PROCESS": "p"})
	os.MkdirAll(filepath.Join(cfg.ConfigDir, "tools"), 0o755)
	os.WriteFile(filepath.Join(cfg.ConfigDir, "tools", "show_env.json"),
		[]byte(`{"name":"show_env","description":"Show env","env":["API_KEY","FROM_PROCESS"]}`), 0o644)
	os.WriteFile(filepath.Join(cfg.ConfigDir, "tools", "show_env.js"),
		[]byte(`function execute(p) { return p._env.API_KEY + "," + p._env.FROM_PROCESS }`), 0o644)
	a := open(t, cfg)
	ctx := context.Background()
	for _, c := range []struct{ tool, args string }{
		{"save_memory", `{"text":"The user is called Ada."}`},
		{"set_config", `{"key":"system_prompt","value":"Be terse."}`},
		{"set_config", `{"key":"model","value":"other-model"}`},
		{"manage_env_var", `{"action":"set","name":"API_KEY","value":"k1"}`},
	} {
		if res, err := a.Host.CallTool(ctx, c.tool, json.RawMessage(c.args)); err != nil || res.Status == "error" {
			t.Fatalf("%s: %+v, %v", c.tool, res, err)
		}
	}
	d, err := a.Host.Describe(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.SystemPrompt, "Be terse.\n\n## Memories") || !strings.Contains(d.SystemPrompt, "- The user is called Ada.") {
		t.Errorf("prompt = %q", d.SystemPrompt)
	}
	if m := a.model.Model(); m != "other-model" {
		t.Errorf("model = %q", m)
	}
	if h := a.Hint("HTTP 404: check the model name and the base URL"); !strings.Contains(h, `"other-model"`) {
		t.Errorf("hint = %q", h)
	}
	res, err := a.Host.CallTool(ctx, "show_env", nil)
	// FROM_PROCESS is in the process's environment, which tools never read.
	if err != nil || res.Output != "k1,undefined" {
		t.Errorf("show_env = %+v, %v", res, err)
	}
	// set_tool_enabled applies at once, and in the next process.
	if res, err := a.Host.CallTool(ctx, "set_tool_enabled", json.RawMessage(`{"name":"show_env","enabled":false}`)); err != nil || res.Output != "show_env is disabled." {
		t.Fatalf("set_tool_enabled: %+v, %v", res, err)
	}
	if _, err := a.Host.CallTool(ctx, "show_env", nil); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("a disabled tool ran: %v", err)
	}
	a.Close()
	a2 := open(t, cfg)
	if _, err := a2.Host.CallTool(ctx, "show_env", nil); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("a disabled tool ran after a restart: %v", err)
	}
}

func TestGoogleCredentials(t *testing.T) {
	f := fakegoogle.NewOAuth(t)
	ctx := context.Background()
	vars := map[string]string{"GOOGLE_REFRESH_TOKEN": fakegoogle.OAuthRefresh, "GOOGLE_CLIENT_ID": fakegoogle.OAuthClientID, "GOOGLE_CLIENT_SECRET": fakegoogle.OAuthClientSecret}
	g := NewGoogle(env(vars), f.Client(), "")
	for range 2 {
		if tok, err := g.AccessToken(ctx); err != nil || tok != fakegoogle.OAuthAccess {
			t.Fatalf("AccessToken = %q, %v", tok, err)
		}
	}
	if n := len(f.Exchanges()); n != 1 {
		t.Errorf("%d exchanges, want 1 (the token is cached)", n)
	}
	if email, err := g.AccountEmail(ctx); err != nil || email != fakegoogle.Email {
		t.Errorf("AccountEmail = %q, %v", email, err)
	}

	vars["GOOGLE_REFRESH_TOKEN"] = "1//revoked"
	if _, err := NewGoogle(env(vars), f.Client(), "").AccessToken(ctx); err == nil || !strings.Contains(err.Error(), "invalid_grant") || !strings.Contains(err.Error(), "toolroute google login") {
		t.Errorf("a revoked token: %v", err)
	}
	if tok, err := NewGoogle(env(map[string]string{"GOOGLE_ACCESS_TOKEN": "direct"}), f.Client(), "").AccessToken(ctx); err != nil || tok != "direct" {
		t.Errorf("GOOGLE_ACCESS_TOKEN = %q, %v", tok, err)
	}
	if _, err := NewGoogle(env(nil), f.Client(), filepath.Join(t.TempDir(), "none.json")).AccessToken(ctx); !errors.Is(err, jsrun.ErrNotConnected) {
		t.Errorf("no credentials: %v", err)
	}
	if _, err := NewGoogle(env(map[string]string{"GOOGLE_REFRESH_TOKEN": "x"}), f.Client(), "").AccessToken(ctx); err == nil || !strings.Contains(err.Error(), "GOOGLE_CLIENT_ID") {
		t.Errorf("a refresh token without a client: %v", err)
	}

	// The account file of toolroute google login.
	file := filepath.Join(t.TempDir(), GoogleFile)
	if err := WriteGoogleAccount(file, GoogleAccount{ClientID: fakegoogle.OAuthClientID, ClientSecret: fakegoogle.OAuthClientSecret,
		RefreshToken: fakegoogle.OAuthRefresh, Email: "saved@example.com"}); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the account file: %v, %v", info, err)
	}
	g = NewGoogle(env(nil), f.Client(), file)
	if tok, err := g.AccessToken(ctx); err != nil || tok != fakegoogle.OAuthAccess {
		t.Errorf("AccessToken from the file = %q, %v", tok, err)
	}
	if email, _ := g.AccountEmail(ctx); email != "saved@example.com" {
		t.Errorf("email from the file = %q", email)
	}
	os.WriteFile(file, []byte("{"), 0o600)
	if _, err := NewGoogle(env(nil), f.Client(), file).AccessToken(ctx); err == nil || !strings.Contains(err.Error(), "google login again") {
		t.Errorf("a damaged file: %v", err)
	}
}

// The loopback flow: the consent page's address carries the client, the
// scopes, the state and the PKCE challenge; the browser comes back with a
// code, which is exchanged with the verifier for a refresh token.
func TestGoogleLogin(t *testing.T) {
	f := fakegoogle.NewOAuth(t)
	ctx := context.Background()
	var consent url.Values
	login := GoogleLogin{ClientID: fakegoogle.OAuthClientID, ClientSecret: fakegoogle.OAuthClientSecret, Client: f.Client(),
		Show: func(u string) { consent = f.Consent(t, u, "code="+url.QueryEscape(fakegoogle.OAuthCode)+"&scope=x") }}
	acct, err := login.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := GoogleAccount{ClientID: fakegoogle.OAuthClientID, ClientSecret: fakegoogle.OAuthClientSecret, RefreshToken: fakegoogle.OAuthRefresh,
		Email: fakegoogle.Email, Scopes: []string{"openid", "https://www.googleapis.com/auth/tasks"}}
	if !reflect.DeepEqual(acct, want) {
		t.Errorf("account = %+v", acct)
	}
	if consent.Get("client_id") != fakegoogle.OAuthClientID || consent.Get("code_challenge_method") != "S256" || consent.Get("access_type") != "offline" ||
		!strings.Contains(consent.Get("scope"), "https://www.googleapis.com/auth/gmail.modify") || !strings.HasPrefix(consent.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Errorf("consent page query %v", consent)
	}
	login.Show = func(u string) { f.Consent(t, u, "error=access_denied") }
	if _, err := login.Run(ctx); err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Errorf("a refusal: %v", err)
	}
	if _, err := (GoogleLogin{Client: f.Client()}).Run(ctx); err == nil || !strings.Contains(err.Error(), "Desktop app") {
		t.Errorf("no client: %v", err)
	}
	if err := RevokeGoogle(ctx, f.Client(), fakegoogle.OAuthRefresh); err != nil || !slices.Equal(f.Revoked(), []string{fakegoogle.OAuthRefresh}) {
		t.Errorf("revoke: %v, %v", err, f.Revoked())
	}
}

// save_memory and search_history are built-in JS tools over the toolroute
// bridge: the memory reaches the system prompt, the search finds what was
// said in another session, and a tool without the permission is refused.
func TestMemoryAndHistoryTools(t *testing.T) {
	cfg := testConfig(t)
	os.MkdirAll(filepath.Join(cfg.ConfigDir, "tools"), 0o755)
	os.WriteFile(filepath.Join(cfg.ConfigDir, "tools", "snoop.json"), []byte(`{"name":"snoop","description":"Read the history"}`), 0o644)
	os.WriteFile(filepath.Join(cfg.ConfigDir, "tools", "snoop.js"), []byte(`async function execute() { return JSON.stringify(await toolroute.history.search("pelicans")); }`), 0o644)
	a := open(t, cfg)
	ctx := context.Background()
	res, err := a.Host.CallTool(ctx, "save_memory", json.RawMessage(`{"text":"The user keeps pelicans."}`))
	if err != nil || res.Output != "Saved memory #1." {
		t.Fatalf("save_memory = %+v, %v", res, err)
	}
	send(t, a, "birds", "Tell me about pelicans") // the demo's reply is stored with it
	res, err = a.Host.CallTool(ctx, "search_history", json.RawMessage(`{"query":"pelicans","limit":5}`))
	if err != nil || !strings.HasPrefix(res.Output, "1 matches for \"pelicans\":\n- session birds, message 0 (user on ") || !strings.Contains(res.Output, "**pelicans**") {
		t.Errorf("search_history = %+v, %v", res, err)
	}
	d, err := a.Host.Describe(ctx, "")
	if err != nil || !strings.Contains(d.SystemPrompt, "## Memories") || !strings.Contains(d.SystemPrompt, "- The user keeps pelicans.") {
		t.Errorf("the system prompt has no memory: %q, %v", d.SystemPrompt, err)
	}
	res, err = a.Host.CallTool(ctx, "snoop", json.RawMessage(`{}`))
	if err != nil || res.Status != "error" || !strings.Contains(res.Message, `toolroute.history: 'snoop' may not use it: only tools whose manifest lists "history" in requiredPermissions may`) {
		t.Errorf("snoop = %+v, %v", res, err)
	}
}

// The config group is the built-in JS tools of manifests/config.*, over the
// toolroute bridge's settings, env and tools: a scripted model loads the
// group and uses each tool as a user's model would; the write tools ask
// first, and what they change reaches the next turn and the next process.
func TestConfigTools(t *testing.T) {
	model := fakemodel.New(fakemodel.OpenAI,
		fakemodel.ToolCall("load_tool_group", `{"group_name":"config"}`),
		fakemodel.ToolCall("get_config", `{}`),
		fakemodel.ToolCall("set_config", `{"key":"model","value":"fake-2"}`),
		fakemodel.ToolCall("set_config", `{"key":"colour","value":"red"}`),
		fakemodel.ToolCall("manage_env_var", `{"action":"set","name":"WEATHER_KEY","value":"wx-secret-1"}`),
		fakemodel.ToolCall("manage_env_var", `{"action":"set","name":"1BAD","value":"x"}`),
		fakemodel.ToolCall("manage_env_var", `{"action":"list"}`),
		fakemodel.ToolCall("set_tool_enabled", `{"name":"show_env","enabled":false}`),
		fakemodel.ToolCall("list_tool_states", `{}`),
		fakemodel.ToolCall("set_tool_enabled", `{"name":"load_tool_group","enabled":false}`),
		fakemodel.Text("Done."),
		fakemodel.Text("Hello from fake-2."),
	)
	defer model.Close()
	cfg := testConfig(t)
	cfg.Provider, cfg.Model = "openai", "fake-1"
	cfg.Getenv = env(map[string]string{"OPENAI_BASE_URL": model.BaseURL(), "OPENAI_API_KEY": "sk-test"})
	var asked []string
	cfg.Approver = host.ApproverFunc(func(_ context.Context, _ string, calls []session.Call) ([]session.Approval, error) {
		var out []session.Approval
		for _, c := range calls {
			asked = append(asked, c.Tool)
			out = append(out, session.Approval{ID: c.ID, Answer: session.AnswerOnce})
		}
		return out, nil
	})
	os.MkdirAll(filepath.Join(cfg.ConfigDir, "tools"), 0o755)
	os.WriteFile(filepath.Join(cfg.ConfigDir, "tools", "show_env.json"), []byte(`{"name":"show_env","description":"Show env","env":["WEATHER_KEY"]}`), 0o644)
	os.WriteFile(filepath.Join(cfg.ConfigDir, "tools", "show_env.js"), []byte(`function execute(p) { return p._env.WEATHER_KEY }`), 0o644)
	a := open(t, cfg)
	ctx := context.Background()

	send(t, a, "s", "Tidy my settings")
	var results []string
	msgs, err := a.Store.Messages(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Type == session.ToolResult && m.ToolName != "load_tool_group" {
			results = append(results, m.ToolName+" "+string(m.Status)+": "+m.Content)
		}
	}
	want := []string{
		"get_config success: - provider = the program's own (openai) (default): where model calls go: empty for the program's own, or a stored provider (list_providers), which then calls its default model\n" +
			"- model = fake-1 (default): the model to call with the program's own provider\n" +
			"- system_prompt = toolroute's default (default): the base system prompt\n" +
			"No environment variables are set for tools.",
		"set_config success: model is now fake-2.",
		`set_config error: Error (not_found): no setting "colour": use one of provider, model, system_prompt`,
		"manage_env_var success: WEATHER_KEY set.",
		`manage_env_var error: Error (invalid_arguments): "1BAD" is not a variable name: use letters, digits and _, not starting with a digit`,
		"manage_env_var success: Set: WEATHER_KEY",
		"set_tool_enabled success: show_env is disabled.",
		"list_tool_states success: ",
		"set_tool_enabled error: Error (invalid_arguments): load_tool_group cannot be disabled",
	}
	if len(results) != len(want) {
		t.Fatalf("results:\n%s", strings.Join(results, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(results[i], w) {
			t.Errorf("result %d = %q, want it to start with %q", i, results[i], w)
		}
	}
	for _, w := range []string{"- load_tool_group (core): enabled", "- get_config (config): enabled", "- show_env (core): disabled", "- js_eval (core): enabled"} {
		if !strings.Contains(results[7], w) {
			t.Errorf("list_tool_states lacks %q:\n%s", w, results[7])
		}
	}
	// Only the tools that change something asked, each before it ran
	// (manage_env_var sets, so it asks even to list).
	if w := []string{"set_config", "set_config", "manage_env_var", "manage_env_var", "manage_env_var", "set_tool_enabled", "set_tool_enabled"}; !slices.Equal(asked, w) {
		t.Errorf("asked about %v, want %v", asked, w)
	}
	// The variable is a secret from the moment it is set: later requests
	// carry its name, never its value.
	reqs := model.Requests()
	if body := string(reqs[len(reqs)-1].Body); strings.Contains(body, "wx-secret-1") || !strings.Contains(body, "[redacted WEATHER_KEY]") {
		t.Errorf("the last request of the turn shows the variable:\n%s", body)
	}
	// The model applies from the next message; the disabled tool is not
	// offered, there or in the next process.
	send(t, a, "s", "Hello?")
	reqs = model.Requests()
	next := reqs[len(reqs)-1]
	if m := next.JSON()["model"]; m != "fake-2" || slices.Contains(next.ToolNames(), "show_env") || !slices.Contains(next.ToolNames(), "set_config") {
		t.Errorf("the next turn's call: model %v, tools %v", m, next.ToolNames())
	}
	a.Close()
	a2 := open(t, cfg)
	if _, err := a2.Host.CallTool(ctx, "show_env", nil); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("a disabled tool ran after a restart: %v", err)
	}
	res, err := a2.Host.CallTool(ctx, "get_config", nil)
	if err != nil || !strings.Contains(res.Output, "\n- model = fake-2: the model to call with the program's own provider\n") {
		t.Errorf("get_config in the next process = %+v, %v", res, err)
	}
}

// removeOldCaches removes SQLite's compiled code and the module's kept
// outside a folder per binary, which earlier releases left, and nothing
// else of the cache folder.
func TestRemoveOldCaches(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"sqlite/wazero-v1.11.0-amd64-linux/code", "module/wazero-v1.11.0-amd64-linux/code",
		"module/0123456789abcdef/code", "quickjs/wazero-v1.11.0-amd64-linux/code", "use-1.vec"} {
		path := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removeOldCaches(dir)
	for f, want := range map[string]bool{"sqlite": false, "module/wazero-v1.11.0-amd64-linux": false,
		"module/0123456789abcdef/code": true, "quickjs/wazero-v1.11.0-amd64-linux/code": true, "use-1.vec": true} {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		if got := err == nil; got != want {
			t.Errorf("%s: there %v, want %v", f, got, want)
		}
	}
	removeOldCaches("") // no cache folder: nothing to do
}
