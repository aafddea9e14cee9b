// Package toolroute adds tool routing to a Go program in a few lines: the
// model sees the tool groups by name and loads a group's tools when it
// needs them, instead of every schema on every call.
//
// New makes a host.Host for the common case: no built-in tools unless
// asked for, the JS runner made when there are JS tools to run, and
// compiled code kept in the user's cache folder, so a second start is fast.
// Everything else is the host package's (host.Options through
// Options.Host):
//
//	h, err := toolroute.New(ctx, toolroute.OpenAI(os.Getenv("OPENAI_API_KEY"), "gpt-4o-mini"), toolroute.Options{
//		Groups: []registry.Group{{Name: "clock", Description: "Tell the time in a city"}},
//		Tools:  []host.NativeTool{clockNow},
//	})
//	defer h.Close(ctx)
//	for ev, err := range h.Session("demo").Send(ctx, "What time is it in Paris?") { ... }
//
// A provider is any host.Provider: OpenAI, OpenAIResponses, Anthropic,
// OpenAICompatible and Gemini here, a function (host.ProviderFunc), or an SDK client
// (sdk/openaisdk, sdk/anthropicsdk).
//
// A program that keeps its own model loop passes no provider and routes
// through a host.Turn: Session.Start logs the user's message, the Turn's
// Tools and SystemPrompt are what to offer the model, and Turn.Reply
// routes the model's tool calls exactly as Send's turns do (groups
// loaded, a tool of a group not loaded refused, arguments checked,
// approval rules applied, everything logged) and gives what the model
// reads of each (Example_ownLoop; sdk/openaisdk converts to and from
// OpenAI's SDK types):
//
//	turn, err := h.Session("demo").Start(ctx, "What time is it in Paris?")
//	defer turn.Close(ctx)
//	for !turn.Over() {
//		reply := callYourModel(turn.SystemPrompt(), turn.Tools(), messages)
//		results, err := turn.Reply(ctx, reply) // send results back, each under its ID
//	}
package toolroute

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
)

// Options configure New. All are optional: the zero value is a host with
// no tools but the meta-tool load_tool_group, its logs in memory.
type Options struct {
	// Groups and Tools are tools written in Go: a tool whose Group names
	// one of Groups is loaded with it, a tool with no group is sent on
	// every call. None by default.
	Groups []registry.Group
	Tools  []host.NativeTool
	// ToolFolders are folders of JS tools on disk (NAME.json with NAME.js,
	// as `toolroute check` checks them), loaded in order; a name that is
	// not a folder is an error of New. None by default.
	ToolFolders []string
	// ToolFS are folders of JS tools as file systems, NAME.json and NAME.js
	// at the root (an embed.FS's folder through fs.Sub, say), loaded
	// after ToolFolders, in order. None by default.
	ToolFS []fs.FS
	// Builtins names toolroute's built-in JS tools and groups to offer, by
	// manifest (host.BuiltinFiles: "get_current_time", "webfetch",
	// "google_gmail", ...); none by default.
	Builtins []string
	// Sandbox is the folder JS tools' fs reads and writes, made if
	// missing; "" (the default) gives them none.
	Sandbox string
	// MCPServers are MCP servers whose tools the model gets, one tool
	// group per server (its Key made a group name), over stdio (Command)
	// or Streamable HTTP (URL); mcp.ReadConfig reads them from an
	// mcp.json. New starts them and waits for each to list its tools, up
	// to its TimeoutSeconds (0: mcp.DefaultTimeoutSeconds); a server
	// slower than that, or one that starts again with other tools, joins
	// the catalogue when it is up. Close stops them. None by default.
	MCPServers []mcp.ServerConfig
	// CacheDir keeps the compiled module, QuickJS, search_tools' tool
	// vectors, the schemas' token counts and the MCP servers' tool lists
	// between runs: "" (the
	// default) means the user's cache folder (os.UserCacheDir, then
	// toolroute), "-" none.
	CacheDir string
	// SystemPrompt is the base system prompt; the group listing is added
	// to it. "" by default.
	SystemPrompt string
	// Store keeps the sessions' logs; nil (the default) keeps them in
	// memory, for this process only (host/store keeps them in SQLite or
	// PostgreSQL).
	Store host.Store
	// Policies are the user's approval rules, in order: a tool's
	// ({Tool: "send_email", Decision: registry.DecisionAllow}) or a
	// group's decision, ask, allow or deny, over the tools' own defaults
	// (ask for those that write, send, delete or share; allow for the
	// others). None by default.
	Policies []session.Policy
	// Approver asks the user before the calls whose decision is ask; nil
	// (the default) refuses them, saying how to allow them (Policies).
	Approver host.Approver
	// Host, when set, changes any other host.Options field before the host
	// is made, after New has set those above. New makes the JS runner
	// afterwards, when the options have JS tools to run (tool folders or
	// built-ins) and give none (host.Options.JS).
	Host func(*host.Options)
}

// Host is a host.Host with what New started for it (the JS runner, the
// MCP servers), which Close stops too.
type Host struct {
	*host.Host
	js  *jsrun.Runner
	mcp *mcp.Manager
}

// Close stops the host, its MCP servers and its JS runner.
func (h *Host) Close(ctx context.Context) error {
	err := h.Host.Close(ctx)
	if h.mcp != nil {
		h.mcp.Close()
	}
	if h.js != nil {
		h.js.Close()
	}
	return err
}

// New makes a host that routes tools for provider's model. provider makes
// the model calls of Session.Send's turns; it may be nil for a program
// that makes them in its own loop and hands the replies to a host.Turn
// (Session.Start).
func New(ctx context.Context, provider host.Provider, o Options) (*Host, error) {
	cache, err := cacheDir(o.CacheDir)
	if err != nil {
		return nil, err
	}
	opts := host.Options{
		Provider:     provider,
		Store:        o.Store,
		SystemPrompt: o.SystemPrompt,
		Groups:       o.Groups,
		Tools:        o.Tools,
		Approver:     o.Approver,
		Builtins:     o.Builtins,
		NoBuiltins:   len(o.Builtins) == 0,
		// Where a host that offers search_tools (Host) keeps the tools'
		// sentence vectors.
		SearchCacheDir: o.CacheDir,
	}
	if len(o.Policies) > 0 {
		policies := slices.Clone(o.Policies)
		opts.Policies = func(context.Context) ([]session.Policy, error) { return policies, nil }
	}
	if cache != "" {
		opts.Module.CacheDir = filepath.Join(cache, "module")
		opts.TokenCountFile = filepath.Join(cache, "token-counts")
	}
	for _, dir := range o.ToolFolders {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("toolroute: the tool folder %s is not a folder: give a folder of NAME.json and NAME.js files", dir)
		}
		opts.ToolFolders = append(opts.ToolFolders, host.ToolFolder{FS: os.DirFS(dir), Label: dir})
	}
	for i, fsys := range o.ToolFS {
		if fsys == nil {
			return nil, fmt.Errorf("toolroute: ToolFS[%d] is nil: give a file system holding NAME.json and NAME.js files", i)
		}
		opts.ToolFolders = append(opts.ToolFolders, host.ToolFolder{FS: fsys, Label: fmt.Sprintf("ToolFS[%d]", i)})
	}
	h := &Host{}
	if len(o.MCPServers) > 0 {
		mo := mcp.Options{}
		if cache != "" {
			mo.CacheFile = filepath.Join(cache, mcp.CacheFile)
		}
		h.mcp = mcp.Start(mcp.Config{File: "Options.MCPServers", Servers: o.MCPServers}, mo)
		opts.ToolSources = append(opts.ToolSources, h.mcp)
	}
	if o.Host != nil {
		o.Host(&opts)
	}
	// The runner is made once the options are final, so that JS tools
	// the Host hook adds have one.
	if opts.JS == nil && (len(opts.ToolFolders) > 0 || !opts.NoBuiltins) {
		js, err := jsrun.New(jsrun.Options{
			SandboxRoot: o.Sandbox,
			Libraries:   []fs.FS{manifests.Lib},
			CacheDir:    sub(cache, "quickjs"),
		})
		if err != nil {
			h.close(ctx)
			return nil, err
		}
		h.js = js
		opts.JS = js
	}
	h.Host, err = host.New(ctx, opts)
	if err != nil {
		h.close(ctx)
		return nil, err
	}
	if h.mcp != nil {
		h.mcp.Ready(ctx)
		// From now on a server whose tools change (one that was slow to
		// start, say) reloads the catalogue.
		if missed := h.mcp.OnChange(h.reload); missed {
			if err := h.Host.Reload(ctx); err != nil {
				h.Close(ctx)
				return nil, err
			}
		}
	}
	return h, nil
}

// reload gives the module the catalogue with the MCP servers' tools as
// they are now.
func (h *Host) reload() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.Host.Reload(ctx)
}

// close stops what New started before the host was made.
func (h *Host) close(ctx context.Context) {
	if h.mcp != nil {
		h.mcp.Close()
	}
	if h.js != nil {
		h.js.Close()
	}
}

// cacheDir is where compiled code is kept: dir, or the user's cache folder
// for "", or nowhere for "-".
func cacheDir(dir string) (string, error) {
	switch dir {
	case "-":
		return "", nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			// No home to keep it in: every start compiles again.
			return "", nil
		}
		return filepath.Join(base, "toolroute"), nil
	}
	return dir, nil
}

func sub(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// OpenAI is OpenAI's Chat Completions API with key, calling model.
func OpenAI(key, model string) host.Provider {
	return &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "https://api.openai.com/v1", APIKey: key, ModelName: model}
}

// OpenAICompatible is a server speaking OpenAI's Chat Completions at
// baseURL (its /v1): Ollama, llama.cpp's server, vLLM, a gateway. key may
// be empty.
func OpenAICompatible(baseURL, key, model string) host.Provider {
	return &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: baseURL, APIKey: key, ModelName: model}
}

// OpenAIResponses is OpenAI's Responses API with key, calling model.
func OpenAIResponses(key, model string) host.Provider {
	return &host.HTTPProvider{Wire: wire.Responses, BaseURL: "https://api.openai.com/v1", APIKey: key, ModelName: model}
}

// Anthropic is Anthropic's Messages API with key, calling model.
func Anthropic(key, model string) host.Provider {
	return &host.HTTPProvider{Wire: wire.Anthropic, BaseURL: "https://api.anthropic.com", APIKey: key, ModelName: model}
}

// Gemini is Google's Gemini API with key, calling model.
func Gemini(key, model string) host.Provider {
	return &host.HTTPProvider{Wire: wire.Gemini, BaseURL: "https://generativelanguage.googleapis.com", APIKey: key, ModelName: model}
}
