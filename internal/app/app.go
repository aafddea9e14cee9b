// Package app assembles the toolroute program: the configuration (folders,
// provider, model), the SQLite store, the QuickJS runner, the built-in tools,
// the user's tools and skills, and the host that runs sessions, shared by
// `toolroute serve`, `chat` and `call`.
package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/host/store"
	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/browser"
	"github.com/toolroute/toolroute/internal/builtin"
	"github.com/toolroute/toolroute/internal/command"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/pdf"
	"github.com/toolroute/toolroute/internal/safehttp"
	"github.com/toolroute/toolroute/internal/schedule"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// DefaultSystemPrompt is the base system prompt when the system_prompt
// setting gives none.
const DefaultSystemPrompt = "You are a helpful assistant with tools. Use a tool when it helps answer; " +
	"when a task needs tools from a group listed below, load the group first. Say briefly what you did."

// Config configures the program. Empty folders get their defaults.
type Config struct {
	// DataDir holds the database and the sandbox folder; default: the
	// user's data folder/toolroute ($XDG_DATA_HOME or ~/.local/share on
	// Linux).
	DataDir string
	// DBPath is the SQLite database; default DataDir/toolroute.db. A
	// PostgreSQL URL (postgres://... or postgresql://..., see store.Open)
	// names a PostgreSQL database instead.
	DBPath string
	// ConfigDir holds tools/, skills/ and lib/; default: the user's config
	// folder/toolroute (~/.config/toolroute on Linux).
	ConfigDir string
	// ToolsDir, SkillsDir, LibDir: the user's JS tools, skills and JS
	// libraries; defaults under ConfigDir.
	ToolsDir, SkillsDir, LibDir string
	// SandboxDir is the folder JS tools' fs reaches; default DataDir/files.
	SandboxDir string
	// CacheDir keeps compiled wasm between runs; default the user's cache
	// folder/toolroute; "-" for none.
	CacheDir string
	// AllowOverride lets user tools replace built-in ones of the same name.
	AllowOverride bool
	// Provider (openai, anthropic, responses, gemini, demo) and Model
	// override the environment.
	Provider, Model string
	// Stream asks the provider to stream replies.
	Stream bool
	// Routing is "classic" or "native" (provider-native deferral of the
	// groups where the provider has it); empty means TOOLROUTE_ROUTING,
	// else classic.
	Routing string
	// SearchTools offers search_tools, which finds tools by what they do
	// and loads just those; false means TOOLROUTE_SEARCH_TOOLS (on or off),
	// else off.
	SearchTools bool
	// ToolBudget is the most tokens of tool schemas a model call may send:
	// a load past it unloads the least recently used groups. 0 means
	// TOOLROUTE_TOOL_BUDGET, else none.
	ToolBudget int
	// ContextLimit is the model's context window in tokens: a call that
	// would pass 80 % of it first summarises the earlier messages. 0 means
	// TOOLROUTE_CONTEXT_LIMIT, else the window known for the model.
	ContextLimit int
	// Approver asks the user before tools that act on the world run (the
	// terminal's prompt, serve's page); nil means no one can be asked.
	Approver host.Approver
	// NoModel is for commands that never call a model (tokens, call) or
	// can run without one (serve, whose page may bring its own key): no
	// provider needs to be configured, and with none a model call fails
	// with ErrNoProvider.
	NoModel bool
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Fetch configures the network access of JS tools, webfetch among them.
	Fetch safehttp.Options
	// Watch is how often the tools and skills folders are checked for
	// changes; 0 means every 2 seconds, a negative value never.
	Watch time.Duration
	// MCPConfig is the MCP servers' configuration (mcp.json), which must
	// exist; empty means ConfigDir/mcp.json when there is one.
	MCPConfig string
	// NoMCP starts no MCP server (export: their tools run in Go only).
	NoMCP bool
	// Exec offers the exec tool (internal/command): shell commands in the
	// sandbox folder, the user asked before every run. chat and call offer
	// it; serve only with --exec.
	Exec bool
	// Browser offers the browser tool (internal/browser), a headless Chromium,
	// when one is installed: chat, call and serve offer it.
	Browser bool
	// NoAgents leaves create_agent out: toolroute mcp, which calls no
	// model (the client's model is the one calling).
	NoAgents bool
	// MCP tunes the servers' restarts; the zero value is the program's.
	MCP mcp.Options
	// MCPNoWait opens without waiting for the MCP servers' first start:
	// serve and mcp, whose clients must not wait on a server slow to start
	// or hung (an MCP client gives up on initialize after 60 s). A server
	// that comes up later is offered then (Changes).
	MCPNoWait bool
	// Now is the scheduled tasks' clock; nil means time.Now.
	Now func() time.Time
	// ReleaseIdle gives the memory freed by a spell of work back to the
	// system once the host has been quiet this long (host.Options): for
	// the commands that run for days (serve, mcp). Zero leaves it to Go.
	ReleaseIdle time.Duration
}

// The database's decoded logs are emptied with the rest once the host is
// quiet (Config.ReleaseIdle).
var _ host.CacheReleaser = (*store.DB)(nil)

// App is the running program.
type App struct {
	Host     *host.Host
	Store    *store.DB
	JS       *jsrun.Runner
	Provider ProviderInfo
	Config   Config
	// Google is the Google account JS tools use, here and, through serve,
	// in the browser.
	Google jsrun.CredentialProvider
	// MCP runs the MCP servers of the configuration, each a tool group; nil
	// without any.
	MCP *mcp.Manager
	// Tasks keeps the scheduled tasks; RunTasks runs them at their times.
	Tasks *schedule.Service

	model     settingsModel
	closeOnce sync.Once
	mu        sync.Mutex
	problems  []string
	// toolProblems say which built-in tool is left out and why (pdftoppm
	// missing); they do not change while the program runs.
	toolProblems []string
	deps         builtin.Deps
	// browser is the browser tool's Chromium, started at its first call;
	// nil without the tool.
	browser *browser.Browser
	stop    chan struct{}
	done    chan struct{} // closed when the watcher ends; nil without one
	// tasksDone is closed when RunTasks' loop ends; nil until it starts.
	tasksDone chan struct{}

	// generation counts the catalogue's changes; changed is closed at the
	// next one. Both are guarded by mu.
	generation uint64
	changed    chan struct{}
}

// Routing says which routing the program's turns use: what was asked
// (classic when nothing was), what is used, and why they differ.
func (a *App) Routing() (asked, used session.Routing, note string) {
	asked = session.Routing(a.Config.Routing)
	if asked == "" {
		asked = session.RoutingClassic
	}
	used, note = session.RoutingFor(a.Format(), asked)
	return asked, used, note
}

// Changes gives the catalogue's generation, which grows with every change
// (a tool created, changed or deleted, a file of the tools folder changed,
// a tool enabled or disabled), and a channel closed at the next change.
func (a *App) Changes() (uint64, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.changed == nil {
		a.changed = make(chan struct{})
	}
	return a.generation, a.changed
}

// notify tells the Changes' watchers that the catalogue changed.
func (a *App) notify() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.generation++
	if a.changed != nil {
		close(a.changed)
	}
	a.changed = make(chan struct{})
}

// Open starts the program: folders, store, runner, tools, skills, host.
func Open(ctx context.Context, cfg Config) (*App, error) {
	if err := cfg.Defaults(); err != nil {
		return nil, err
	}
	if cfg.Routing == "" {
		cfg.Routing = cfg.Getenv("TOOLROUTE_ROUTING")
	}
	switch session.Routing(cfg.Routing) {
	case "", session.RoutingClassic, session.RoutingNative:
	default:
		return nil, fmt.Errorf("routing %q: use classic or native", cfg.Routing)
	}
	if v := cfg.Getenv("TOOLROUTE_TOOL_BUDGET"); cfg.ToolBudget == 0 && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("TOOLROUTE_TOOL_BUDGET=%q: give a number of tokens, such as 4000, or 0 for none", v)
		}
		cfg.ToolBudget = n
	}
	if v := cfg.Getenv("TOOLROUTE_CONTEXT_LIMIT"); cfg.ContextLimit == 0 && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("TOOLROUTE_CONTEXT_LIMIT=%q: give the model's context window in tokens, such as 128000", v)
		}
		cfg.ContextLimit = n
	}
	if cfg.ContextLimit < 0 {
		return nil, fmt.Errorf("context limit %d: give the model's context window in tokens, such as 128000", cfg.ContextLimit)
	}
	if cfg.ToolBudget < 0 {
		return nil, fmt.Errorf("tool budget %d: give a number of tokens, such as 4000, or 0 for none", cfg.ToolBudget)
	}
	if !cfg.SearchTools {
		switch v := cfg.Getenv("TOOLROUTE_SEARCH_TOOLS"); v {
		case "", "off":
		case "on":
			cfg.SearchTools = true
		default:
			return nil, fmt.Errorf("TOOLROUTE_SEARCH_TOOLS=%q: use on or off", v)
		}
	}
	provider, info, err := resolveProvider(cfg.Provider, cfg.Model, cfg.Getenv)
	if errors.Is(err, ErrNoProvider) && cfg.NoModel {
		provider, info, err = noModel{}, ProviderInfo{Name: "none"}, nil
	}
	if err != nil {
		return nil, err
	}
	mcpCfg, err := cfg.readMCP()
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{cfg.ToolsDir, cfg.SkillsDir, cfg.LibDir, cfg.SandboxDir} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("making %s: %w", dir, err)
		}
	}
	cache := cfg.CacheDir
	if cache == "-" {
		cache = ""
	}
	removeOldCaches(cache)
	db, err := store.Open(ctx, cfg.DBPath)
	if err != nil {
		return nil, err
	}
	a := &App{Store: db, Provider: info, Config: cfg, stop: make(chan struct{})}
	a.Google = NewGoogle(cfg.Getenv, safehttp.New(cfg.Fetch), filepath.Join(cfg.ConfigDir, GoogleFile))
	runner, err := jsrun.New(jsrun.Options{
		SandboxRoot: cfg.SandboxDir,
		Libraries:   []fs.FS{manifests.Lib, os.DirFS(cfg.LibDir)},
		Fetch:       jsrun.FetchOptions{AllowPrivate: cfg.Fetch.AllowPrivate, Rewrites: rewrites(cfg.Fetch.Rewrites)},
		Google:      a.Google,
		CacheDir:    cacheSub(cache, "quickjs"),
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	a.JS = runner

	var h *host.Host
	a.deps = builtin.Deps{
		Store: db, JS: runner, ToolsDir: cfg.ToolsDir,
		Reload:      func(ctx context.Context) error { return a.reload(ctx) },
		SetDisabled: func(names []string) { h.SetDisabled(names); a.notify() },
		Tools: func(ctx context.Context) ([]registry.ToolState, error) {
			d, err := h.Describe(ctx, "")
			if err != nil {
				return nil, err
			}
			out := make([]registry.ToolState, len(d.Tools))
			for i, t := range d.Tools {
				out[i] = registry.ToolState{Name: t.Name, Group: t.Group, Origin: t.Origin, Enabled: t.Enabled}
			}
			return out, nil
		},
		Settings: []builtin.SettingSpec{
			{Key: builtin.ProviderSettingKey, Description: "where model calls go: empty for the program's own, or a stored provider (list_providers), which then calls its default model",
				Default: "the program's own (" + info.Name + ")", Check: func(v string) error { return storedProviderReady(db, v) }},
			{Key: "model", Description: "the model to call with the program's own provider", Default: defaultModel(info), Check: nonEmpty},
			{Key: "system_prompt", Description: "the base system prompt", Default: "toolroute's default"},
		},
	}
	a.Tasks = schedule.New(db, a.runTask, cfg.Now)
	a.deps.Schedule = a.Tasks
	if !cfg.NoAgents {
		a.deps.RunAgent = a.runAgent
	}
	disabled, err := builtin.DisabledTools(ctx, a.deps)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.model = settingsModel{Provider: provider, store: db}
	fingerprint := a.fingerprint()
	// The servers start while the module compiles; the host asks them for
	// their tools at each reload.
	// The pdf group reads the sandbox folder, and URLs as JS tools' fetch
	// does.
	pdfGroup, pdfTools, pdfProblems := pdf.Tools(pdf.Options{SandboxDir: cfg.SandboxDir, Fetch: safehttp.New(cfg.Fetch)})
	a.toolProblems = pdfProblems
	nativeTools := pdfTools
	var coreTools []host.NativeTool
	if cfg.Exec {
		t, problem := command.Tool(command.Options{SandboxDir: cfg.SandboxDir, Getenv: cfg.Getenv})
		if problem != "" {
			a.toolProblems = append(a.toolProblems, problem)
		} else {
			coreTools = append(coreTools, t)
		}
	}
	if cfg.Browser {
		b, t, problem := browser.New(browser.Options{AllowPrivate: cfg.Fetch.AllowPrivate})
		if problem != "" {
			a.toolProblems = append(a.toolProblems, problem)
		} else {
			a.browser = b
			coreTools = append(coreTools, t)
		}
	}
	nativeTools = append(coreTools, nativeTools...)
	var sources []host.ToolSource
	if len(mcpCfg.Servers) > 0 {
		opts := cfg.MCP
		if opts.CacheFile == "" {
			// The servers' tools from their last run, so that a stdio
			// server is started by its first call, not at every start.
			opts.CacheFile = filepath.Join(cfg.DataDir, mcp.CacheFile)
		}
		if opts.AuthFile == "" {
			// What toolroute mcp login kept, beside google.json.
			opts.AuthFile = filepath.Join(cfg.ConfigDir, mcp.AuthFile)
		}
		a.MCP = mcp.Start(mcpCfg, opts)
		sources = append(sources, a.MCP)
	}
	h, err = host.New(ctx, host.Options{
		Provider:     a.model,
		Store:        db,
		Prompt:       a.prompt,
		Memories:     a.memories,
		Stream:       cfg.Stream,
		Routing:      session.Routing(cfg.Routing),
		SearchTools:  cfg.SearchTools,
		ToolBudget:   cfg.ToolBudget,
		ContextLimit: cfg.ContextLimit,
		ToolFolders:  []host.ToolFolder{{FS: os.DirFS(cfg.ToolsDir), Label: cfg.ToolsDir, Override: cfg.AllowOverride}},
		Groups:       []registry.Group{pdfGroup},
		Tools:        nativeTools,
		ToolSources:  sources,
		Skills:       a.loadSkills(),
		Disabled:     disabled,
		JS:           runner,
		Env:          a.env,
		Secrets:      a.secrets,
		Ops:          builtin.Ops(a.deps),
		Approver:     cfg.Approver,
		Policies:     a.Policies,
		AllowHint:    AllowHint,
		Agents:       a.agentOf,
		Module:       module.Config{CacheDir: cacheSub(cache, "module")},
		// The schemas' token counts, so that a start need not load the
		// tokenizer's table for the first turn's usage.
		TokenCountFile: cacheSub(cache, "token-counts"),
		ReleaseIdle:    cfg.ReleaseIdle,
		// The tools' sentence vectors sit where `toolroute search` keeps
		// them, so that both embed a catalogue once.
		SearchCacheDir: cfg.CacheDir,
	})
	if err != nil {
		if a.MCP != nil {
			a.MCP.Close()
		}
		runner.Close()
		db.Close()
		return nil, err
	}
	a.Host = h
	if a.MCP != nil {
		if !cfg.MCPNoWait {
			a.MCP.Ready(ctx)
		}
		// From now on a server whose tools change reloads the catalogue,
		// so a running turn offers the change from its next model call.
		if missed := a.MCP.OnChange(a.mcpChanged); missed {
			if err := h.Reload(ctx); err != nil {
				a.Close()
				return nil, err
			}
		}
	}
	go runner.Precompile(h.AllSources())
	if cfg.Watch >= 0 {
		a.done = make(chan struct{})
		go a.watch(cfg.Watch, fingerprint)
	}
	return a, nil
}

// RunTasks runs the scheduled tasks at their times until the App closes
// (serve does; chat and call do not): each run is a turn in a new session
// of its own, with no one to answer approval questions. Problems go to
// logf. Calling it again does nothing.
func (a *App) RunTasks(logf func(format string, args ...any)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tasksDone != nil {
		return
	}
	a.tasksDone = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-a.stop
		cancel()
	}()
	go func() {
		defer close(a.tasksDone)
		a.Tasks.Loop(ctx, logf)
	}()
}

// runTask is a scheduled task's run: prompt as the user's message of the
// new session id, titled title, unattended. Its answer is the turn's, or
// the turn's failure is the error.
func (a *App) runTask(ctx context.Context, id, title, prompt string) (string, error) {
	var answer string
	var failed error
	for ev, err := range a.Host.Session(id).Unattended().Send(ctx, prompt) {
		if err != nil {
			failed = err
			break
		}
		switch ev.Type {
		case host.EventDone:
			answer = ev.Text
		case host.EventFailed:
			failed = errors.New(a.Hint(ev.Failure.Message))
		}
	}
	// The session exists once its first message is stored.
	if _, ok, err := a.Store.Session(context.WithoutCancel(ctx), id); err == nil && ok {
		_ = a.Store.Rename(context.WithoutCancel(ctx), id, title)
	}
	a.notify()
	return answer, failed
}

// cacheSub is a folder of the cache, or "" without one.
// removeOldCaches removes what earlier releases kept in the cache folder
// and this one no longer reads: SQLite's compiled code (SQLite is Go code
// now) and the module's compiled code kept outside a folder per binary
// (module.Config.CacheDir), about 20 MB a release.
func removeOldCaches(cache string) {
	if cache == "" {
		return
	}
	_ = os.RemoveAll(filepath.Join(cache, "sqlite"))
	old, _ := filepath.Glob(filepath.Join(cache, "module", "wazero-*"))
	for _, dir := range old {
		_ = os.RemoveAll(dir)
	}
}

func cacheSub(cache, name string) string {
	if cache == "" {
		return ""
	}
	return filepath.Join(cache, name)
}

// defaultModel is the model setting's default, for people: the provider's
// model, or why there is none.
func defaultModel(info ProviderInfo) string {
	if info.Model == "" {
		return "none, as no model provider is configured (set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY)"
	}
	return info.Model
}

// storedProviderReady refuses a provider setting that names no stored
// provider, or one whose key's secret is not set.
func storedProviderReady(db *store.DB, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rec, key, ok, err := builtin.StoredProvider(ctx, db, name)
	switch {
	case err != nil:
		return err
	case !ok:
		names := []string{}
		if list, err := db.Settings(ctx, builtin.ProviderPrefix); err == nil {
			for _, s := range list {
				names = append(names, strings.TrimPrefix(s.Key, builtin.ProviderPrefix))
			}
		}
		if len(names) == 0 {
			return fmt.Errorf("no provider %q is stored: create_provider stores one", name)
		}
		return fmt.Errorf("no provider %q is stored: use one of %s, or empty for the program's own", name, strings.Join(names, ", "))
	case rec.KeySecret != "" && key == "":
		return fmt.Errorf("%s's key, the secret %s, is not set: the user sets it (toolroute env set %s), or manage_env_var does, asking first", name, rec.KeySecret, rec.KeySecret)
	}
	return nil
}

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("give a value")
	}
	return nil
}

func rewrites(rs []safehttp.Rewrite) []jsrun.Rewrite {
	out := make([]jsrun.Rewrite, len(rs))
	for i, r := range rs {
		out[i] = jsrun.Rewrite(r)
	}
	return out
}

// Close stops the program. Calling it again does nothing.
func (a *App) Close() {
	a.closeOnce.Do(func() {
		close(a.stop)
		if a.done != nil {
			<-a.done
		}
		a.mu.Lock()
		tasksDone := a.tasksDone
		a.mu.Unlock()
		if tasksDone != nil {
			<-tasksDone
		}
		if a.MCP != nil {
			a.MCP.Close()
		}
		if a.Host != nil {
			a.Host.Close(context.Background())
		}
		if a.JS != nil {
			a.JS.Close()
		}
		a.browser.Close()
		a.Store.Close()
	})
}

// Hint adds to a failed turn's message what to check, such as the API key
// variable for HTTP 401 or the model for HTTP 404.
func (a *App) Hint(msg string) string {
	info := a.Provider
	info.Model = a.model.Model()
	return info.Hint(msg)
}

// Problems lists what did not load: a malformed skill, a bad manifest, an
// MCP server that is down or a tool of it left out.
func (a *App) Problems() []string {
	a.mu.Lock()
	out := slices.Concat(a.toolProblems, a.problems)
	a.mu.Unlock()
	rep := a.Host.Report()
	for _, r := range rep.Manifests {
		for _, p := range r.Skipped {
			out = append(out, p.Error())
		}
	}
	out = append(out, rep.Errors...)
	return append(out, mcp.Problems(a.MCPStatus())...)
}

// MCPStatus reports each MCP server of the configuration: its group and
// tools, or why it is down. Nil without any.
func (a *App) MCPStatus() []mcp.Status {
	if a.MCP == nil {
		return nil
	}
	return a.MCP.Status()
}

// mcpChanged reloads the catalogue after an MCP server's tools changed.
func (a *App) mcpChanged() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Host.Reload(ctx); err == nil {
		a.notify()
	}
}

// ReadMCP reads the MCP servers' configuration as the program does: the
// file given, which must exist, or the config folder's mcp.json when there
// is one (an empty configuration without either).
func (c *Config) ReadMCP() (mcp.Config, error) { return c.readMCP() }

// readMCP reads the MCP servers' configuration: the file given, which must
// exist, or the config folder's mcp.json when there is one.
func (c *Config) readMCP() (mcp.Config, error) {
	if c.NoMCP {
		return mcp.Config{}, nil
	}
	path := c.MCPConfig
	if path == "" {
		path = filepath.Join(c.ConfigDir, mcp.ConfigFile)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return mcp.Config{}, nil
		}
	}
	cfg, err := mcp.ReadConfig(path)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return cfg, fmt.Errorf("%w: give an mcp.json in the mcpServers shape, or leave out --mcp-config", err)
	}
	return cfg, err
}

// reload reads the skills and the tools folder again.
func (a *App) reload(ctx context.Context) error {
	a.Host.SetSkills(a.loadSkills())
	if err := a.Host.Reload(ctx); err != nil {
		return err
	}
	a.notify()
	go a.JS.Precompile(a.Host.AllSources())
	return nil
}

// loadSkills reads SkillsDir/NAME/SKILL.md; a malformed skill is reported
// and skipped.
func (a *App) loadSkills() []registry.Skill {
	var skills []registry.Skill
	var problems []string
	entries, err := os.ReadDir(a.Config.SkillsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		problems = append(problems, fmt.Sprintf("skills: %v", err))
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		text, err := os.ReadFile(filepath.Join(a.Config.SkillsDir, e.Name(), "SKILL.md"))
		if err != nil {
			problems = append(problems, fmt.Sprintf("skill %s: no SKILL.md (%v)", e.Name(), err))
			continue
		}
		s, err := registry.ParseSkill(e.Name(), text)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		skills = append(skills, s)
	}
	a.mu.Lock()
	a.problems = problems
	a.mu.Unlock()
	return skills
}

// prompt is each turn's base system prompt: the system_prompt setting, or
// the default.
func (a *App) prompt(ctx context.Context) (string, error) {
	base, ok, err := a.Store.Setting(ctx, "system_prompt")
	if err != nil {
		return "", err
	}
	if !ok || strings.TrimSpace(base) == "" {
		base = DefaultSystemPrompt
	}
	return base, nil
}

// memories are the saved memories' texts, oldest first: the module lists
// them in the system prompt.
func (a *App) memories(ctx context.Context) ([]string, error) {
	mems, err := a.Store.Memories(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(mems))
	for i, m := range mems {
		out[i] = m.Text
	}
	return out, nil
}

// env gives JS tools the variables set for them (`toolroute env set`,
// manage_env_var), never the process's environment, which holds the provider's
// key and the Google credentials.
func (a *App) env(name string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if v, ok, err := a.Store.Setting(ctx, builtin.EnvPrefix+name); err == nil && ok {
		return v, true
	}
	return "", false
}

// AllowHint tells the model, when a call that asks is refused because no
// one can be asked (a piped chat, a scheduled task), how the user allows
// the tool in this program.
const AllowHint = "The user can allow it with: toolroute policy set tool {tool} allow"

// PolicyPrefix is the settings' prefix of the user's approval rules:
// policy.tool.NAME and policy.group.NAME hold ask, allow or deny.
const PolicyPrefix = "policy."

// Policies are the user's approval rules, from the settings (`toolroute
// policy set`), in the order of their keys.
func (a *App) Policies(ctx context.Context) ([]session.Policy, error) {
	rules, err := a.Store.Settings(ctx, PolicyPrefix)
	if err != nil {
		return nil, err
	}
	var out []session.Policy
	for _, r := range rules {
		kind, name, _ := strings.Cut(strings.TrimPrefix(r.Key, PolicyPrefix), ".")
		d := registry.Decision(r.Value)
		if !registry.ValidDecision(d) || name == "" {
			continue
		}
		switch kind {
		case "tool":
			out = append(out, session.Policy{Tool: name, Decision: d})
		case "group":
			out = append(out, session.Policy{Group: name, Decision: d})
		}
	}
	return out, nil
}

// PolicyTarget checks the tool or group (kind "tool" or "group") a rule is
// about to be set for. A name the catalogue has, enabled or not, is fine; so
// is the group of a configured MCP server. A name nothing has is refused
// with an *UnknownPolicyTargetError (a typo would otherwise be kept and
// never apply) unless an MCP server's tools are not listed now (it is
// starting, down or disabled): then the tool may be one of them, and the
// rule is kept with the warning returned. The catalogue is the module's
// (Host.Describe).
func (a *App) PolicyTarget(ctx context.Context, kind, name string) (warning string, err error) {
	r, err := a.Host.Describe(ctx, "")
	if err != nil {
		return "", err
	}
	var servers []mcp.Status
	if a.MCP != nil {
		servers = a.MCP.Status()
	}
	if kind == "group" {
		if slices.ContainsFunc(r.Groups, func(g abi.GroupInfo) bool { return g.Name == name }) {
			return "", nil
		}
		for _, st := range servers {
			if st.Group == name {
				return "", nil
			}
		}
		return "", &UnknownPolicyTargetError{Kind: kind, Name: name}
	}
	if slices.ContainsFunc(r.Tools, func(t abi.ToolInfo) bool { return t.Name == name }) {
		return "", nil
	}
	var unlisted []string
	for _, st := range servers {
		if st.State != mcp.Connected {
			unlisted = append(unlisted, fmt.Sprintf("%s (%s)", st.Key, st.State))
		}
	}
	if len(unlisted) == 0 {
		return "", &UnknownPolicyTargetError{Kind: kind, Name: name}
	}
	which := "the MCP server " + unlisted[0] + ", whose tools are"
	if len(unlisted) > 1 {
		which = "one of the MCP servers " + strings.Join(unlisted, ", ") + ", whose tools are"
	}
	return fmt.Sprintf("no tool named %q is loaded now: the rule is kept, as it may be a tool of %s not listed now (GET /api/health says why); check the name in GET /api/catalogue once the server is connected", name, which), nil
}

// UnknownPolicyTargetError is PolicyTarget's error for a name no tool or
// group has.
type UnknownPolicyTargetError struct {
	Kind, Name string
}

// Error says which name is unknown and where the known ones are listed.
func (e *UnknownPolicyTargetError) Error() string {
	return fmt.Sprintf("no %s is named %q: the %ss are listed by GET /api/catalogue (toolroute tools); a rule is set for one of those", e.Kind, e.Name, e.Kind)
}

// secretVars are the process's variables that hold secrets: the provider's
// keys, the Google credentials, serve's token.
var secretVars = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_ACCESS_TOKEN", "GOOGLE_REFRESH_TOKEN", "GOOGLE_CLIENT_SECRET", "TOOLROUTE_TOKEN"}

// secrets are the values redacted wherever text leaves the host: the
// process's secret variables, the variables set for tools and the Google
// account's credentials.
func (a *App) secrets(ctx context.Context) []host.Secret {
	var out []host.Secret
	for _, name := range secretVars {
		if v := a.Config.Getenv(name); v != "" {
			out = append(out, host.Secret{Name: name, Value: v})
		}
	}
	if vars, err := a.Store.Settings(ctx, builtin.EnvPrefix); err == nil {
		for _, v := range vars {
			out = append(out, host.Secret{Name: strings.TrimPrefix(v.Key, builtin.EnvPrefix), Value: v.Value})
		}
	}
	if g, ok := a.Google.(interface{ secrets() []host.Secret }); ok {
		out = append(out, g.secrets()...)
	}
	return out
}

// NewSessionID returns a fresh session id: the time, then random hex.
func NewSessionID() string {
	b := make([]byte, 3)
	rand.Read(b)
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// watch reloads when the tools or skills folders change.
func (a *App) watch(every time.Duration, last string) {
	defer close(a.done)
	if every == 0 {
		every = 2 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-tick.C:
			if fp := a.fingerprint(); fp != last {
				last = fp
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				a.reload(ctx)
				cancel()
			}
		}
	}
}

// fingerprint summarizes the names, sizes and times of the files the
// watcher follows.
func (a *App) fingerprint() string {
	var b strings.Builder
	for _, dir := range []string{a.Config.ToolsDir, a.Config.SkillsDir} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if info, err := d.Info(); err == nil {
				b.WriteString(path + ":" + strconv.FormatInt(info.Size(), 10) + ":" + strconv.FormatInt(info.ModTime().UnixNano(), 10) + "\n")
			}
			return nil
		})
	}
	return b.String()
}

// Defaults fills in the empty folders and Getenv with their defaults.
func (c *Config) Defaults() error {
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	home, _ := os.UserHomeDir()
	if c.DataDir == "" {
		if x := c.Getenv("XDG_DATA_HOME"); x != "" {
			c.DataDir = filepath.Join(x, "toolroute")
		} else if home != "" {
			c.DataDir = filepath.Join(home, ".local", "share", "toolroute")
		} else {
			return errors.New("no data folder: set --data or HOME")
		}
	}
	if c.ConfigDir == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return fmt.Errorf("no config folder: set --config-dir: %w", err)
		}
		c.ConfigDir = filepath.Join(dir, "toolroute")
	}
	if c.CacheDir == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			c.CacheDir = filepath.Join(dir, "toolroute")
		} else {
			c.CacheDir = "-"
		}
	}
	set := func(p *string, def string) {
		if *p == "" {
			*p = def
		}
	}
	set(&c.DBPath, filepath.Join(c.DataDir, "toolroute.db"))
	set(&c.ToolsDir, filepath.Join(c.ConfigDir, "tools"))
	set(&c.SkillsDir, filepath.Join(c.ConfigDir, "skills"))
	set(&c.LibDir, filepath.Join(c.ConfigDir, "lib"))
	set(&c.SandboxDir, filepath.Join(c.DataDir, "files"))
	return nil
}

// BrowserCatalogue is what a browser or worker host needs to run the same
// JS tools: the catalogue with the host-native tools it runs here for the
// page (ServerTools), every JS source by reference, and the libraries by file
// name without ".js" (NAME or NAME.min; a user's library of a built-in's
// name is left out, as jsrun would never load it). The pdf group is left
// out: the JS hosts have their own (web/packages/toolroute/host/pdf.js), over their own files.
type BrowserCatalogue struct {
	Catalogue registry.Catalogue `json:"catalogue"`
	Sources   map[string]string  `json:"sources"`
	Libraries map[string]string  `json:"libraries"`
	// ServerTools are the catalogue's host tools, which the server runs
	// for the page (serve's POST /api/ui/tools/{name}): its MCP servers'
	// tools, which a page cannot start (stdio) or may not reach (CORS).
	ServerTools []string `json:"server_tools"`
}

// ForBrowser returns the catalogue for a browser host: the JS tools, run
// by the page, and the host tools (its MCP servers'), run by this program
// when the page asks (RunForBrowser).
func (a *App) ForBrowser() (BrowserCatalogue, error) {
	cat := a.Host.Catalogue()
	cat.Groups = slices.DeleteFunc(slices.Clone(cat.Groups), func(g registry.Group) bool { return g.Name == pdf.GroupName })
	cat.Tools = slices.DeleteFunc(slices.Clone(cat.Tools), func(t registry.Tool) bool { return t.Group == pdf.GroupName || !forPage(t.Name) })
	out := BrowserCatalogue{Catalogue: cat, Sources: map[string]string{}, Libraries: map[string]string{}, ServerTools: []string{}}
	for _, t := range cat.Tools {
		out.ServerTools = append(out.ServerTools, t.Name)
	}
	for ref, src := range a.Host.AllSources() {
		out.Sources[ref] = string(src)
	}
	// One map holds both folders: a library the built-in folder has, as
	// NAME.js or NAME.min.js, is left out of the user's, so that the page
	// finds what jsrun finds (the first folder with either, NAME.min.js
	// first).
	builtin := map[string]bool{}
	for i, dir := range []fs.FS{manifests.Lib, os.DirFS(a.Config.LibDir)} {
		entries, err := fs.ReadDir(dir, ".")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".js")
			if !ok || e.IsDir() {
				continue
			}
			base := strings.TrimSuffix(name, ".min")
			if i > 0 && builtin[base] {
				continue
			}
			if i == 0 {
				builtin[base] = true
			}
			text, err := fs.ReadFile(dir, e.Name())
			if err != nil {
				return out, err
			}
			out.Libraries[name] = string(text)
		}
	}
	return out, nil
}

// forPage reports whether a core tool of this program goes to a page: not
// exec nor browser, which act on this machine for its own turns only.
func forPage(name string) bool { return name != command.Name && name != browser.Name }

// RunForBrowser runs one of ForBrowser's ServerTools for a page whose own
// host made the call (and asked the user first, as its tool's permissions
// say): a JS tool, which the page runs itself, is refused.
func (a *App) RunForBrowser(ctx context.Context, name string, input json.RawMessage) (registry.Result, error) {
	for _, t := range a.Host.Catalogue().Tools {
		if t.Name == name && t.Group != pdf.GroupName && forPage(t.Name) {
			return a.Host.CallTool(ctx, name, input)
		}
	}
	return registry.Result{}, fmt.Errorf("%q is not a tool this server runs for the page: the page runs its JS tools itself, and /api/ui/catalogue's server_tools lists the others", name)
}
