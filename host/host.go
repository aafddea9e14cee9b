// Package host runs toolroute in a Go program: the wasm module in wazero,
// a pool of instances, and everything the module leaves to its host: the
// model's HTTP calls, running tools (host-native Go functions and JS tools),
// and storing each session's message log.
//
// A Host is built once and serves any number of sessions:
//
//	h, err := host.New(ctx, host.Options{
//		Provider: &host.HTTPProvider{Wire: wire.OpenAI, BaseURL: "https://api.openai.com/v1", APIKey: key, ModelName: "gpt-4o-mini"},
//	})
//	defer h.Close(ctx)
//	for ev, err := range h.Session("demo").Send(ctx, "What time is it?") {
//		...
//	}
//
// The log is the only state: a Session is just a name for a log in the
// Store, and the tool groups it loaded are found again in that log on every
// turn, in this process or the next.
//
// A program that makes the model calls in its own loop needs no Provider:
// Session.Start begins a Turn, whose Tools and SystemPrompt are what to
// send the model, and Turn.Reply routes the model's tool calls as Send's
// turns do and returns what the model reads of each:
//
//	turn, err := h.Session("demo").Start(ctx, "What time is it?")
//	defer turn.Close(ctx)
//	for !turn.Over() {
//		reply := yourModelCall(turn.SystemPrompt(), turn.Tools(), messages)
//		results, err := turn.Reply(ctx, reply) // each to send back under its ID
//	}
package host

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/toolroute/toolroute/assets"
	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
)

// Options configure a Host. None is required; a Host without a Provider
// serves turns whose model calls the program makes (Session.Start).
type Options struct {
	// Provider makes the model calls of Send's turns (its format and
	// model are the turns'). Nil leaves the model calls to the program's
	// own loop (Session.Start): Send then fails saying so.
	Provider Provider
	// Store keeps the message logs; nil means a new MemoryStore.
	Store Store
	// SystemPrompt is the base system prompt; the skills and the tool group
	// listing are added to it.
	SystemPrompt string
	// Prompt, when set, gives the base system prompt at the start of each
	// turn instead (a setting the user changes, say).
	Prompt func(ctx context.Context) (string, error)
	// Memories gives the user's memories at the start of each turn: the
	// module lists them in the system prompt after the base prompt. Nil
	// means none.
	Memories func(ctx context.Context) ([]string, error)
	// MaxModelCalls ends a turn after this many model calls; 0 means 25.
	MaxModelCalls int
	// MaxTokens caps each reply; 0 leaves it to the provider.
	MaxTokens int
	// Stream asks the provider to stream its replies.
	Stream bool
	// Routing is session.RoutingClassic (the default) or RoutingNative:
	// groups sent deferred and loaded where the load stands, for the
	// providers that can (session.RoutingFor); the others use classic.
	Routing session.Routing
	// SearchTools offers the search_tools meta-tool beside load_tool_group
	// (session.Settings.SearchTools).
	SearchTools bool
	// ToolBudget is the most tokens of tool schemas a model call may send
	// (session.Settings.ToolBudget); 0 is none.
	ToolBudget int
	// ContextLimit is the model's context window in tokens, for
	// compaction (session.Settings.ContextLimit); 0 uses the window
	// toolroute knows for the model, if any.
	ContextLimit int

	// NoBuiltins leaves out the built-in JS tools of manifests/.
	NoBuiltins bool
	// Builtins, when not nil, names the built-in manifests to load, by
	// file name without .json ("get_current_time", "google_gmail"; see
	// BuiltinFiles), leaving the others out; nil loads them all (unless
	// NoBuiltins). An unknown name is an error of New.
	Builtins []string
	// ToolFolders are folders of user JS tools (NAME.json with NAME.js),
	// loaded after the built-ins, in order.
	ToolFolders []ToolFolder
	// Groups and Tools are the host-native groups and tools.
	Groups []registry.Group
	Tools  []NativeTool
	// ToolSources give more host-native groups and tools, which change
	// while the host runs (an MCP server's): each Reload asks them, after
	// Groups and Tools, in order.
	ToolSources []ToolSource
	// Skills are listed in the system prompt and loaded with load_skill.
	Skills []registry.Skill
	// Disabled names tools the model must not see or call.
	Disabled []string

	// JS runs JS tools; nil makes every JS tool call fail with a clear error.
	JS JSRunner
	// ShowConsole adds JS tools' console output to what the model reads for
	// successful calls too; failed calls always include it.
	ShowConsole bool
	// Env gives the environment variables JS tools may read (each only those
	// its manifest declares); nil means none. It is never the process's
	// environment unless the host chooses to hand that over: the process
	// holds the provider's key and the Google credentials.
	Env func(name string) (string, bool)
	// Secrets gives the values known now that must never leave the host
	// (the provider's key, Google credentials, the variables set for
	// tools): each is replaced by "[redacted NAME]" in tool results and
	// console output, in the messages stored and in model requests.
	Secrets func(ctx context.Context) []Secret
	// Ops are the toolroute bridge's operations this host serves, by name
	// ("memories.save"): the built-in tools' view of the host's storage. A
	// JS tool reaches those whose namespace (the part before the dot) its
	// manifest lists in requiredPermissions. See HostOps.
	Ops HostOps

	// Module configures the wasm runtime: the binary, a compilation cache.
	// Its WordVectors, when nil, are toolroute's English table
	// (assets.WordVectors) when SearchTools is set, unless NoWordVectors
	// is.
	Module ModuleConfig
	// NoWordVectors leaves word vectors out of the module's tool search:
	// search_tools then finds only tools sharing a word with the query
	// while the module ranks. It saves each module instance about 1 MB of
	// memory and a few milliseconds at its start. Without SearchTools no
	// instance is given them anyway.
	NoWordVectors bool
	// NoEncoderSearch leaves search_tools' ranking to the module (BM25F
	// and word vectors). Otherwise, with SearchTools, the host ranks the
	// searches itself as `toolroute search` does (package toolsearch:
	// BM25F fused with a sentence encoder), once it has embedded the
	// catalogue's tools: in the background after New and after each
	// Reload that changes them, while turns leave the ranking to the
	// module (WaitSearch waits for it).
	NoEncoderSearch bool
	// TokenCountFile, when set, keeps the token counts of the tool
	// schemas' texts (CallUsage.Schema) between runs, so that a new
	// process's first turn need not load the tokenizer's table; "" keeps
	// them in memory alone.
	TokenCountFile string
	// SearchCacheDir keeps the tools' sentence vectors between runs, as
	// `toolroute search` does: "" is the user's cache folder's toolroute
	// folder, "-" none.
	SearchCacheDir string
	// MaxInstances bounds the module instances, and so the turns running at
	// once; 0 means 8.
	MaxInstances int
	// Approver asks the user whether tool calls may run (the tools whose
	// policy is ask). Nil means no one can be asked: such calls are refused
	// with a message saying how to allow them.
	Approver Approver
	// Agents gives the agent a session's turns are (its stored agent), or
	// nil for none, at the start of each of its turns; a Session given an
	// Agent does not ask. Nil: no session has one.
	Agents func(ctx context.Context, session string) (*Agent, error)
	// Policies gives the user's approval rules at the start of each turn.
	Policies func(ctx context.Context) ([]session.Policy, error)
	// AllowHint is the sentence that ends the refusal of a call that asks
	// when no one can be asked: how the user allows the tool in this
	// program, "{tool}" standing for its name (toolroute's is "The user
	// can allow it with: toolroute policy set tool {tool} allow"). Empty
	// gives a sentence that names no program's way (wasm/ABI.md,
	// settings.allow_hint).
	AllowHint string
	// ReleaseIdle, when set, gives the memory the host's work freed back to
	// the system once no turn or tool call (nor the program's own work,
	// Busy) has run for this long: a long-running process (serve) then
	// shrinks after each burst of load, at the cost of one collection per
	// quiet spell. It first empties the Store's caches (CacheReleaser)
	// and closes the module's idle instances (the next turn copies the
	// catalogue's snapshot), and applies to the whole process
	// (debug.FreeOSMemory).
	// Zero leaves it to Go's collector.
	ReleaseIdle time.Duration
	// MaxParallelTools bounds the tool calls running at once, in all
	// sessions: the others wait their turn (their timeout starts when they
	// run). A JS call may take its memory limit and as much again in the
	// host, so this bounds the host's memory; 0 means 4. One session (or
	// one MCP client) runs at most one fewer, so that its slow calls leave
	// a slot to the others.
	MaxParallelTools int
}

// Approver asks the user about tool calls before they run: each may run
// once, run unasked for the rest of the session, or not run. Approve blocks
// until the user answers or ctx ends; a call missing from the answers is
// denied.
type Approver interface {
	Approve(ctx context.Context, sessionID string, calls []session.Call) ([]session.Approval, error)
}

// ApproverFunc is an Approver made of a function.
type ApproverFunc func(ctx context.Context, sessionID string, calls []session.Call) ([]session.Approval, error)

// Approve implements Approver.
func (f ApproverFunc) Approve(ctx context.Context, sessionID string, calls []session.Call) ([]session.Approval, error) {
	return f(ctx, sessionID, calls)
}

// ToolSource gives host-native groups and tools that change while the host
// runs, such as an MCP server's. Whoever runs it calls Host.Reload when they
// change.
type ToolSource interface {
	// Tools gives the groups and tools now. cat is the catalogue without
	// them (and without the sources after it), so that their names can keep
	// clear of the others'. ctx asks the module (module.WithChecker), as a
	// source that has the module name its tools does (host/mcp).
	Tools(ctx context.Context, cat registry.Catalogue) ([]registry.Group, []NativeTool)
}

// ToolFolder is a folder of user JS tools.
type ToolFolder struct {
	// FS holds NAME.json and NAME.js files at its root.
	FS fs.FS
	// Label names the folder in reports and source references.
	Label string
	// Override lets its tools replace built-in ones of the same name.
	Override bool
}

// Host runs sessions. It is safe for concurrent use.
type Host struct {
	opts    Options
	store   Store
	rt      *module.Runtime
	pool    *module.Pool
	js      JSRunner
	env     func(string) (string, bool)
	locks   sessionLocks
	mu      sync.RWMutex
	native  map[string]NativeTool // by name, the sources' included
	sources map[string][]byte
	// refused holds every manifest file of the catalogue in load order: a
	// file refused before the module saw it, or nil where the module's
	// report of the file goes (Report).
	refused   []*registry.Report
	skills    []registry.Skill
	disabled  []string
	catalogue registry.Catalogue
	slots     *slots // the tool calls running
	// reloading keeps two reloads from interleaving: the last to start is
	// the catalogue that stays.
	reloading sync.Mutex
	// search ranks search_tools' searches; nil leaves them to the module.
	search *searcher
	// idle releases memory once the host is quiet; nil without
	// Options.ReleaseIdle.
	idle *idle
}

// New compiles the module, registers the catalogue and returns a Host. The
// catalogue's problems (a bad manifest, say) do not stop it: Report has
// them.
func New(ctx context.Context, opts Options) (*Host, error) {
	h := &Host{opts: opts, store: opts.Store, js: opts.JS, env: opts.Env, native: map[string]NativeTool{},
		skills: opts.Skills, disabled: opts.Disabled, search: newSearcher(opts)}
	if h.store == nil {
		h.store = NewMemoryStore()
	}
	if opts.MaxParallelTools <= 0 {
		opts.MaxParallelTools = 4
	}
	h.slots = newSlots(opts.MaxParallelTools)
	if opts.ReleaseIdle > 0 {
		h.idle = newIdle(opts.ReleaseIdle, h.release)
	}
	if h.env == nil {
		h.env = func(string) (string, bool) { return "", false }
	}
	for _, t := range opts.Tools {
		if t.Run == nil && t.RunOutput == nil {
			return nil, fmt.Errorf("host: native tool %q has no Run or RunOutput function", t.Tool.Name)
		}
	}
	if err := checkBuiltins(opts.Builtins); err != nil {
		return nil, err
	}
	mc := opts.Module
	// Only search_tools ranks with the vectors: without it, no instance
	// is given them (a megabyte of each instance's memory).
	if mc.WordVectors == nil && !opts.NoWordVectors && opts.SearchTools {
		mc.WordVectors = assets.WordVectors
	}
	rt, err := module.New(ctx, mc)
	if err != nil {
		return nil, err
	}
	h.rt = rt
	h.pool = module.NewPool(rt, module.PoolConfig{MaxInstances: opts.MaxInstances})
	if err := h.Reload(ctx); err != nil {
		h.Close(ctx)
		return nil, err
	}
	return h, nil
}

// Reload reads the tool folders again, asks the tool sources for their
// tools and hands the new catalogue to the module. A running turn uses it
// from its next model call after a tool call; others, from their next turn.
func (h *Host) Reload(ctx context.Context) error {
	h.reloading.Lock()
	defer h.reloading.Unlock()
	h.mu.RLock()
	cat := registry.Catalogue{Groups: slices.Clone(h.opts.Groups), Skills: h.skills, Disabled: h.disabled}
	h.mu.RUnlock()
	native := map[string]NativeTool{}
	for _, t := range h.opts.Tools {
		cat.Tools = append(cat.Tools, t.Tool)
		native[t.Tool.Name] = t
	}
	sources := map[string][]byte{}
	// order holds every manifest file in load order: a refused file's report,
	// or nil where the module's report goes.
	var order []*registry.Report
	var folders []ToolFolder
	if !h.opts.NoBuiltins {
		folders = append(folders, ToolFolder{FS: builtinFS(h.opts.Builtins), Label: "builtin"})
	}
	folders = append(folders, h.opts.ToolFolders...)
	for _, tf := range folders {
		f, err := catalog.ReadFolder(tf.FS, tf.Label, tf.Override)
		if err != nil {
			return fmt.Errorf("host: %w", err)
		}
		for ref, src := range f.Sources {
			sources[ref] = src
		}
		for _, file := range f.Files {
			if file.Refused != "" {
				order = append(order, &registry.Report{File: file.Manifest.File, Loaded: []registry.Loaded{},
					Skipped:  []registry.Problem{{File: file.Manifest.File, Entry: -1, Reason: file.Refused}},
					Warnings: []registry.Problem{}})
				continue
			}
			if tf.Label == "builtin" && !h.offers(file.Manifest.File) {
				continue
			}
			order = append(order, nil)
			cat.Manifests = append(cat.Manifests, file.CatalogueManifest())
		}
	}
	// The sources' groups and tools come after the fixed ones, in the
	// catalogue as the module registers it (host groups before JS ones);
	// each source sees the catalogue without them.
	for _, src := range h.opts.ToolSources {
		groups, tools := src.Tools(module.WithChecker(ctx, h.pool), cat)
		cat.Groups = append(cat.Groups, groups...)
		for _, t := range tools {
			if t.Run == nil && t.RunOutput == nil {
				return fmt.Errorf("host: native tool %q has no Run or RunOutput function", t.Tool.Name)
			}
			if _, ok := native[t.Tool.Name]; ok {
				continue // the registry reports the duplicate
			}
			cat.Tools = append(cat.Tools, t.Tool)
			native[t.Tool.Name] = t
		}
	}
	data, err := module.Marshal(cat)
	if err != nil {
		return fmt.Errorf("host: catalogue: %w", err)
	}
	// Nothing here waits for an instance: the module loads the catalogue
	// at the next call that needs it (a turn, Report, Describe).
	h.pool.SetCatalogue(data)
	h.mu.Lock()
	h.sources, h.refused, h.catalogue, h.native = sources, order, cat, native
	h.mu.Unlock()
	if h.search != nil {
		// The search documents are the module's description of the
		// catalogue, asked in the background with the ranker's build:
		// until they are in, turns leave the ranking to the module.
		gen := h.search.pending()
		h.search.builds.Add(1)
		go func() {
			defer h.search.builds.Done()
			docs, err := h.searchDocs(context.WithoutCancel(ctx))
			h.search.update(gen, docs, err)
		}()
	}
	return nil
}

// searchDocs are what the host's search ranks, from the module's
// description of the catalogue: every group tool, the disabled ones too,
// so that enabling or disabling a tool embeds nothing again; the module
// names the enabled ones a search may find.
func (h *Host) searchDocs(ctx context.Context) ([]registry.SearchDoc, error) {
	d, err := h.describeCatalogue(ctx)
	if err != nil {
		return nil, err
	}
	groups := make(map[string]registry.Group, len(d.Groups))
	for _, g := range d.Groups {
		groups[g.Name] = g.Group
	}
	var docs []registry.SearchDoc
	for _, t := range d.Tools {
		if t.Group == "" {
			continue
		}
		docs = append(docs, registry.SearchDocOf(t.Tool, groups[t.Group]))
	}
	return docs, nil
}

// describeCatalogue is the module's description of the catalogue alone:
// its groups, tools (with their definitions, enabled or not), files and
// skills, without a session, prompt or settings.
func (h *Host) describeCatalogue(ctx context.Context) (Description, error) {
	inst, err := h.pool.Acquire(ctx)
	if err != nil {
		return abi.Description{}, err
	}
	defer h.pool.Release(ctx, inst)
	return inst.Describe(ctx, abi.DescribeRequest{})
}

// Catalogue is the catalogue the module was last given: tools, groups,
// manifests, skills and tool states.
func (h *Host) Catalogue() registry.Catalogue {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.catalogue
}

// SetSkills replaces the skills; Reload makes them the model's.
func (h *Host) SetSkills(skills []registry.Skill) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.skills = skills
}

// SetDisabled replaces the names of the disabled tools; Reload applies it.
func (h *Host) SetDisabled(names []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.disabled = names
}

// Source returns the JS source of a reference, as the runner gets it.
func (h *Host) Source(ref string) ([]byte, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	src, ok := h.sources[ref]
	return src, ok
}

// AllSources returns every JS source of the catalogue by reference, to
// precompile them.
func (h *Host) AllSources() map[string][]byte {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make(map[string][]byte, len(h.sources))
	for k, v := range h.sources {
		out[k] = v
	}
	return out
}

// Report is what registering the catalogue did: every manifest's report and
// every host definition refused. It is the module's report of loading the
// catalogue (toolroute_load), with the files refused before it in their
// places; when no instance has loaded the catalogue yet, one loads it now
// and stays for the next turn. A module that cannot answer makes the
// report's only error.
func (h *Host) Report() registry.BuildReport {
	h.mu.RLock()
	order := h.refused
	h.mu.RUnlock()
	rep, err := h.pool.Report(context.Background())
	if err != nil {
		return registry.BuildReport{Manifests: []registry.Report{}, Errors: []string{"the module did not load the catalogue: " + err.Error()}}
	}
	loaded := rep.Manifests
	rep.Manifests = make([]registry.Report, 0, len(order))
	for _, refused := range order {
		if refused != nil {
			rep.Manifests = append(rep.Manifests, *refused)
		} else if len(loaded) > 0 {
			rep.Manifests, loaded = append(rep.Manifests, loaded[0]), loaded[1:]
		}
	}
	return rep
}

// Describe returns the catalogue for display, with the tools a session's
// next model call would send.
func (h *Host) Describe(ctx context.Context, sessionID string) (Description, error) {
	return h.describe(ctx, sessionID, false)
}

// DescribeTools is Describe with the schemas of those tools and of every
// tool as a model call sends them (Description.ToolsJSON), for a token
// meter: the browser UI's, for a chat serve keeps.
func (h *Host) DescribeTools(ctx context.Context, sessionID string) (Description, error) {
	return h.describe(ctx, sessionID, true)
}

func (h *Host) describe(ctx context.Context, sessionID string, toolsJSON bool) (Description, error) {
	var history []session.Message
	if sessionID != "" {
		var err error
		if history, err = h.store.Messages(ctx, sessionID); err != nil {
			return abi.Description{}, err
		}
	}
	raw, err := module.Marshal(history)
	if err != nil {
		return abi.Description{}, err
	}
	inst, err := h.pool.Acquire(ctx)
	if err != nil {
		return abi.Description{}, err
	}
	defer h.pool.Release(ctx, inst)
	base, err := h.basePrompt(ctx)
	if err != nil {
		return abi.Description{}, err
	}
	mems, err := h.memories(ctx)
	if err != nil {
		return abi.Description{}, err
	}
	req := abi.DescribeRequest{SystemPrompt: base, Memories: mems, History: raw, ToolsJSON: toolsJSON}
	if h.opts.Provider != nil {
		req.Format, req.Routing = string(h.opts.Provider.Format()), string(h.opts.Routing)
		req.SearchTools, req.ToolBudget = h.opts.SearchTools, h.opts.ToolBudget
	}
	// A session's agent sees its own prompt, only its groups and its tool
	// budget.
	if sessionID != "" && h.opts.Agents != nil {
		agent, err := h.opts.Agents(ctx, sessionID)
		if err != nil {
			return abi.Description{}, fmt.Errorf("host: the agent of session %q: %w", sessionID, err)
		}
		if agent != nil {
			if agent.SystemPrompt != "" {
				req.SystemPrompt = agent.SystemPrompt
			}
			req.AllowedGroups = agent.Groups
			if agent.ToolBudget > 0 && h.opts.Provider != nil {
				req.ToolBudget = agent.ToolBudget
			}
		}
	}
	return inst.Describe(ctx, req)
}

// memories are the user's memories now.
func (h *Host) memories(ctx context.Context) ([]string, error) {
	if h.opts.Memories == nil {
		return nil, nil
	}
	return h.opts.Memories(ctx)
}

// basePrompt is the turn's base system prompt.
func (h *Host) basePrompt(ctx context.Context) (string, error) {
	if h.opts.Prompt != nil {
		return h.opts.Prompt(ctx)
	}
	return h.opts.SystemPrompt, nil
}

// Store is the host's message store.
func (h *Host) Store() Store { return h.store }

// Close releases the module and its instances, once a search ranker being
// built is done (WaitSearch).
func (h *Host) Close(ctx context.Context) error {
	if h.search != nil {
		h.search.builds.Wait()
	}
	h.idle.close()
	h.pool.Close(ctx)
	return h.rt.Close(ctx)
}

// needsOps are the built-in tools that run only where the host serves an
// operation: a host without it leaves the tool out rather than offer one
// that fails.
var needsOps = map[string]string{"builtin/create_agent.json": "agents.run"}

// offers reports whether the host offers the built-in manifest file.
func (h *Host) offers(file string) bool {
	op, ok := needsOps[file]
	return !ok || h.opts.Ops[op] != nil
}
