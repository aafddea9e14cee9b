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
package toolroute

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// Options configure New. All are optional.
type Options struct {
	// Groups and Tools are tools written in Go: a tool whose Group names
	// one of Groups is loaded with it, a tool with no group is sent on
	// every call.
	Groups []registry.Group
	Tools  []host.NativeTool
	// ToolFolders are folders of JS tools (NAME.json with NAME.js, as
	// `toolroute check` checks them), loaded in order.
	ToolFolders []string
	// Builtins names toolroute's built-in JS tools and groups to offer, by
	// manifest (host.BuiltinFiles: "get_current_time", "webfetch",
	// "google_gmail", ...); none by default.
	Builtins []string
	// Sandbox is the folder JS tools' fs reads and writes, made if
	// missing; "" gives them none.
	Sandbox string
	// CacheDir keeps the compiled module, QuickJS and search_tools' tool
	// vectors between runs: ""
	// means the user's cache folder (os.UserCacheDir, then toolroute),
	// "-" none.
	CacheDir string
	// SystemPrompt is the base system prompt; the group listing is added
	// to it.
	SystemPrompt string
	// Store keeps the sessions' logs; nil keeps them in memory.
	Store host.Store
	// Approver asks the user before tools that change data run; nil
	// refuses them, saying how to allow them.
	Approver host.Approver
	// Host, when set, changes any other host.Options field before the host
	// is made.
	Host func(*host.Options)
}

// Host is a host.Host with the JS runner New made for it, which Close
// closes too.
type Host struct {
	*host.Host
	js *jsrun.Runner
}

// Close stops the host and its JS runner.
func (h *Host) Close(ctx context.Context) error {
	err := h.Host.Close(ctx)
	if h.js != nil {
		h.js.Close()
	}
	return err
}

// New makes a host that routes tools for provider's model.
func New(ctx context.Context, provider host.Provider, o Options) (*Host, error) {
	if provider == nil {
		return nil, fmt.Errorf("toolroute: a provider is required: toolroute.OpenAI, Anthropic, OpenAICompatible, Gemini, a host.ProviderFunc or an SDK client's (sdk/openaisdk)")
	}
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
	if cache != "" {
		opts.Module.CacheDir = filepath.Join(cache, "module")
	}
	for _, dir := range o.ToolFolders {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("toolroute: the tool folder %s is not a folder: give a folder of NAME.json and NAME.js files", dir)
		}
		opts.ToolFolders = append(opts.ToolFolders, host.ToolFolder{FS: os.DirFS(dir), Label: dir})
	}
	h := &Host{}
	if len(opts.ToolFolders) > 0 || len(o.Builtins) > 0 {
		js, err := jsrun.New(jsrun.Options{
			SandboxRoot: o.Sandbox,
			Libraries:   []fs.FS{manifests.Lib},
			CacheDir:    sub(cache, "quickjs"),
		})
		if err != nil {
			return nil, err
		}
		h.js = js
		opts.JS = js
	}
	if o.Host != nil {
		o.Host(&opts)
	}
	h.Host, err = host.New(ctx, opts)
	if err != nil {
		if h.js != nil {
			h.js.Close()
		}
		return nil, err
	}
	return h, nil
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
