package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/app"
)

// appFlags are the flags of the commands that run the program.
type appFlags struct {
	cfg     app.Config
	noCache bool
	noWatch bool
	// quiet leaves what did not load unprinted: the command says what of
	// it concerns the user (toolroute call, toolroute tools).
	quiet bool
}

func (f *appFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.cfg.Provider, "provider", "", "the model provider: openai, anthropic, responses (OpenAI's Responses API), gemini or demo (default: from whichever API key is set)")
	fs.StringVar(&f.cfg.Model, "model", "", "the model (default: TOOLROUTE_MODEL, the model setting, or the provider's default)")
	fs.StringVar(&f.cfg.DBPath, "db", "", "the database: a SQLite file (default: the user's data folder/toolroute/toolroute.db), or a PostgreSQL URL postgres://user:password@host/database that several toolroute processes share")
	fs.StringVar(&f.cfg.DataDir, "data", "", "the data folder: database and files JS tools may use")
	fs.StringVar(&f.cfg.ConfigDir, "config-dir", "", "the folder holding tools/, skills/ and lib/ (default: ~/.config/toolroute)")
	fs.StringVar(&f.cfg.ToolsDir, "tools-dir", "", "the user's JS tools (default: CONFIG/tools)")
	fs.StringVar(&f.cfg.SkillsDir, "skills-dir", "", "the user's skills, NAME/SKILL.md (default: CONFIG/skills)")
	fs.BoolVar(&f.cfg.AllowOverride, "allow-override", false, "let the user's tools replace built-in tools of the same name")
	fs.BoolVar(&f.noCache, "no-cache", false, "do not keep compiled wasm between runs")
	fs.BoolVar(&f.noWatch, "no-watch", false, "do not reload when the tools or skills folders change")
}

// registerMCP adds --mcp-config, for the commands that run tools.
func (f *appFlags) registerMCP(fs *flag.FlagSet) {
	fs.StringVar(&f.cfg.MCPConfig, "mcp-config", "", "the MCP servers' configuration, in the mcpServers shape (default: CONFIG/mcp.json when it exists)")
	fs.BoolVar(&f.cfg.MCP.Eager, "mcp-eager", false, "start every MCP server at once; without it, a stdio server whose tools are known from its last run (DATA/"+mcp.CacheFile+") is started at the first call of one of them")
}

// registerRouting adds --routing, for the commands that run turns.
func (f *appFlags) registerRouting(fs *flag.FlagSet) {
	fs.IntVar(&f.cfg.ContextLimit, "context-limit", 0, "the model's context window in tokens: a call that would pass 80% of it first summarises the earlier messages (default: TOOLROUTE_CONTEXT_LIMIT, else the window known for the model: GPT, Claude and Gemini families)")
	fs.IntVar(&f.cfg.ToolBudget, "tool-budget", 0, "the most tokens of tool schemas a model call may send: a load past it unloads the least recently used groups, and unload_tool_group is offered (default: TOOLROUTE_TOOL_BUDGET, else none)")
	fs.BoolVar(&f.cfg.SearchTools, "search-tools", false, "offer search_tools, which finds tools of every group by what they do and loads just those (default: TOOLROUTE_SEARCH_TOOLS=on, else off)")
	fs.StringVar(&f.cfg.Routing, "routing", "", "how a tool group reaches the model: classic (load_tool_group adds its tools) or native (the provider's own deferral, Anthropic and the Responses API; others fall back to classic) (default: TOOLROUTE_ROUTING, else classic)")
}

// defaultReleaseIdle is how long serve and mcp wait, once quiet, before
// giving the memory their work freed back to the system: long enough that
// a conversation's next turn usually comes first, short enough that a
// process left alone after a burst shrinks within a minute. One release
// costs a collection, a few milliseconds.
const defaultReleaseIdle = 10 * time.Second

// registerRelease adds --release-idle, for the commands that run for days.
func (f *appFlags) registerRelease(fs *flag.FlagSet) {
	fs.DurationVar(&f.cfg.ReleaseIdle, "release-idle", defaultReleaseIdle, "once no turn or tool call has run for this long, give the memory they freed back to the system (0: leave it to Go's collector)")
}

// open starts the program, printing what did not load to stderr.
func (f *appFlags) open(ctx context.Context, stderr io.Writer) (*app.App, error) {
	cfg := f.cfg
	cfg.Getenv = os.Getenv
	cfg.Stream = true
	if f.noCache {
		cfg.CacheDir = "-"
	}
	if f.noWatch {
		cfg.Watch = -1
	}
	if os.Getenv("TOOLROUTE_ALLOW_PRIVATE") == "1" {
		cfg.Fetch.AllowPrivate = true // for local test servers
	}
	a, err := app.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if f.quiet {
		return a, nil
	}
	for _, p := range a.Problems() {
		fmt.Fprintf(stderr, "toolroute: not loaded: %s\n", p)
	}
	return a, nil
}
