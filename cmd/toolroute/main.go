// Command toolroute is toolroute's program: it chats with a model through
// the tool-group router, in a terminal or behind a local HTTP server, serves
// the routed tools to MCP clients, runs single tools, counts schema tokens,
// checks tool manifests and ranks a tool list for queries.
//
// `toolroute help` lists the commands and every flag; `toolroute COMMAND
// --help` one command's.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	private()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one of the program's commands, for the help: its synopsis,
// which names every flag but the shared ones (APP FLAGS, ROUTING FLAGS),
// and what it does.
type command struct {
	name, synopsis, text string
}

var commands = []command{
	{"serve", "toolroute serve [--port 8377] [--open] [--ui DIR | --minimal-page] [--token T] [--exec] [--debug-addr 127.0.0.1:6060] [--release-idle 10s] [ROUTING FLAGS] [APP FLAGS]", `
Serve the browser chat UI and the JSON API on http://127.0.0.1:PORT, at
the URL it prints (--open opens it). --ui DIR serves a UI built in DIR (make
ui builds web/apps/chat/dist); --minimal-page a small page whose turns run in this
program. Without a provider configured it still starts: the page can use a
key kept in the browser, and the API's turns say what to set. --exec offers
the exec tool (shell commands, asked about every time) to the turns it runs.
While it serves, it runs the scheduled tasks (schedule_task) at their
times, each a session of its own with no one to answer questions.
--debug-addr serves the Go runtime's profiles (pprof) on another loopback
port, at http://ADDR/debug/pprof/, to requests with the API's token (as
Authorization: Bearer, or the signed-in page's cookie): go tool pprof reads
a heap profile fetched with curl -H 'Authorization: Bearer TOKEN'.
Once no turn or tool call has run for --release-idle (10s; 0 never), it
gives the memory they freed back to the system.`},
	{"mcp", "toolroute mcp [--http [--port 8378] [--token T] [--debug-addr 127.0.0.1:6060]] [--release-idle 10s] [APP FLAGS] | login NAME [--no-browser] [--client-id ID [--client-secret S]] [--token] | logout NAME", `
Serve the tools to an MCP client (Claude Desktop and Code, Cursor, ...)
over standard input and output, routed by group: the client lists the
core tools and load_tool_group, and a load adds a group's tools. --http
serves Streamable HTTP on http://127.0.0.1:PORT/mcp instead, for clients
that send serve's token as Authorization: Bearer; --debug-addr then serves
the Go runtime's profiles behind that token, as serve's does.
--release-idle gives memory back once quiet, as serve's does.
login NAME signs toolroute in to the MCP server NAME of mcp.json that
needs authorization (OAuth in a browser; --token keeps a static token read
from standard input instead); logout NAME forgets what it keeps for it.`},
	{"chat", "toolroute chat [--session NAME] [--agent NAME] [--ask-stdin] [ROUTING FLAGS] [APP FLAGS]", `
Chat in the terminal; --session continues (or starts) a named session,
--agent talks to a stored agent (list_agents), which the session keeps.
Reads one message per line when standard input is not a terminal
(--ask-stdin: the answers to approval questions too). At a terminal the
line is edited, Up brings back earlier lines (kept in ~/.local/state/
toolroute/chat_history, or under $XDG_STATE_HOME), and replies show as
rendered markdown fitted to the width (NO_COLOR: as written). /help lists the
chat's commands. Scheduled tasks are kept and run_scheduled_task runs one,
but chat runs none at its time: serve does.`},
	{"tools", "toolroute tools [--group G] [--json] [ROUTING FLAGS] [APP FLAGS]", `
List every tool the model could be offered: the core tools sent on every
call (the meta-tools saying when each is offered), then each group with
its source (built-in, user file, MCP server, native), whether it is
enabled, and each tool's schema tokens (o200k, as toolroute tokens counts).`},
	{"call", "toolroute call TOOL [--params JSON] [--timeout 10s] [--problems] [--verbose] [APP FLAGS]", `
Run one tool directly and print its result and console output, for tool
authors. --timeout replaces the tool's own limit; --problems prints all
that did not load, not only what concerns TOOL; --verbose a failure's
whole JS stack.`},
	{"tokens", "toolroute tokens [--json] [--catalogue FILE] [APP FLAGS]", `
Count the tool schema tokens each model call sends: all tools, core only,
core plus each group, all groups loaded. --catalogue counts the catalogue
in FILE (toolroute export's output) instead.`},
	{"check", "toolroute check [--json] [--builtin] [--override] [--mcp-config FILE] [--config-dir DIR] [--tools-dir DIR] [DIR...]", `
Check the JS tool manifests (NAME.json with NAME.js) in each folder, or in
your tools folder (CONFIG/tools) when none is given; --builtin checks the
built-in manifests too (alone when no folder is given; --with-builtin is
the same). Also the MCP servers of CONFIG/mcp.json (or FILE): each one's
group and tools, or why it is down. Exit status 1 on any error.`},
	{"search", "toolroute search --tools FILE.json [-k 5] [--json] [--words] [--cache DIR] < queries", `
Rank the tools of FILE.json (a JSON array of objects with "name" and
"description") for each line of standard input, by words and by meaning:
the names of the best 5, tab-separated, one line per query. The tools'
sentence embeddings are kept in DIR (the user's cache folder's toolroute
folder) for the next run; --words ranks by words alone.`},
	{"export", "toolroute export [--builtin] [APP FLAGS]", `
Print the JS tools, their sources and libraries as one JSON document, as
the edge worker's build (web/apps/worker) and the browser UI take them.`},
	{"google", "toolroute google login [--client-id ID --client-secret SECRET] [--scopes S1,S2] [--no-browser] [--config-dir DIR] | logout | status", `
Connect a Google account for the Google Workspace tools.`},
	{"env", "toolroute env list|set NAME|unset NAME [--db FILE|URL] [--data DIR]", `
The variables JS tools may read (each only those its manifest lists);
set reads the value from standard input.`},
	{"policy", "toolroute policy list|set tool|group NAME ask|allow|deny|reset tool|group NAME [--db FILE|URL] [--data DIR]", `
Whether a tool may run without asking you first.`},
	{"help", "toolroute help [COMMAND]", `
This help, or one command's with all its flags (as toolroute COMMAND --help).`},
}

const usageHead = `toolroute routes tools to language models by group.

Usage:
`

const usageTail = `
Models: set OPENAI_API_KEY (and OPENAI_BASE_URL for Ollama, llama.cpp or
vLLM), ANTHROPIC_API_KEY or GEMINI_API_KEY; --provider responses speaks
OpenAI's Responses API with the OpenAI variables; choose the model with
--model or TOOLROUTE_MODEL; --provider demo plays a scripted demo that needs
no model.

APP FLAGS (serve, mcp, chat, tools, call, tokens, export):
  --provider P         openai, anthropic, responses, gemini or demo
  --model M            the model (default: TOOLROUTE_MODEL, the model setting, the provider's)
  --db FILE|URL        the SQLite database (default: DATA/toolroute.db), or a
                       PostgreSQL URL, postgres://user:password@host/database,
                       that several toolroute processes share
  --data DIR           the data folder (default: ~/.local/share/toolroute)
  --config-dir DIR     the folder of tools/, skills/, lib/ and mcp.json (default: ~/.config/toolroute)
  --tools-dir DIR      the user's JS tools (default: CONFIG/tools)
  --skills-dir DIR     the user's skills, NAME/SKILL.md (default: CONFIG/skills)
  --allow-override     let the user's tools replace built-in tools of the same name
  --no-cache           do not keep compiled code in ~/.cache/toolroute
  --no-watch           do not reload when the tools or skills folders change
  --mcp-config FILE    the MCP servers (default: CONFIG/mcp.json; not export)
  --mcp-eager          start every MCP server at once, not a known one at the first call of its tools

ROUTING FLAGS (serve, chat, tools):
  --routing R          classic (default; TOOLROUTE_ROUTING) or native: the provider's own deferral
  --search-tools       offer search_tools, which loads single tools by what they do (TOOLROUTE_SEARCH_TOOLS=on)
  --tool-budget N      the most tokens of tool schemas a call sends; offers unload_tool_group (TOOLROUTE_TOOL_BUDGET)
  --context-limit N    the model's context window: a call past 80% of it first summarises the earlier messages (TOOLROUTE_CONTEXT_LIMIT)

MCP servers: each server of CONFIG/mcp.json ({"mcpServers": {"NAME":
{"command", "args", "env"} or {"url", "headers"}}}, as Claude Desktop and
Cursor write it; ~/.config/toolroute/mcp.json on Linux) is a tool group
named NAME; --mcp-config FILE reads another file. A stdio server whose tools
are kept from its last run (DATA/mcp-tools.json) is started at the first
call of one of them.
`

// usage is the program's help: every command with its flags.
func usage() string {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, c := range commands {
		b.WriteString("  " + c.synopsis + "\n")
		for _, l := range strings.Split(strings.TrimSpace(c.text), "\n") {
			b.WriteString("      " + l + "\n")
		}
	}
	b.WriteString(usageTail)
	return b.String()
}

// commandNamed is the command of that name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// newFlagSet is a command's flag set: its --help prints the command's
// synopsis, what it does and every flag. name may have a subcommand after
// the command ("env set").
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		cmd, _, _ := strings.Cut(name, " ")
		if c, ok := commandNamed(cmd); ok {
			fmt.Fprintf(fs.Output(), "usage: %s\n%s\n", c.synopsis, strings.TrimSpace(c.text))
		}
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// exitFor is the exit status after a flag set's error: 0 after --help,
// which printed the help, else 2.
func exitFor(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// isHelp reports whether an argument asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// run is the program with its arguments and streams, for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "serve":
		return runServe(args[1:], stdout, stderr)
	case "mcp":
		return runMCP(args[1:], stdin, stdout, stderr)
	case "chat":
		return runChat(args[1:], stdin, stdout, stderr)
	case "call":
		return runCall(args[1:], stdin, stdout, stderr)
	case "tokens":
		return runTokens(args[1:], stdout, stderr)
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "google":
		return runGoogle(args[1:], stdout, stderr)
	case "export":
		return runExport(args[1:], stdout, stderr)
	case "search":
		return runSearch(args[1:], stdin, stdout, stderr)
	case "env":
		return runEnv(args[1:], stdin, stdout, stderr)
	case "policy":
		return runPolicy(args[1:], stdout, stderr)
	case "tools":
		return runTools(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[1] != "help" {
			if _, ok := commandNamed(args[1]); !ok {
				fmt.Fprintf(stderr, "toolroute help: unknown command %q\n\n%s", args[1], usage())
				return 2
			}
			// The command's own flag set prints its help, on stdout.
			return run([]string{args[1], "--help"}, stdin, stdout, stdout)
		}
		fmt.Fprint(stdout, usage())
		return 0
	default:
		fmt.Fprintf(stderr, "toolroute: unknown command %q\n\n%s", args[0], usage())
		return 2
	}
}

// parseArgs parses flags wherever they stand among the positional arguments,
// so "check DIR --json" works as well as "check --json DIR".
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
