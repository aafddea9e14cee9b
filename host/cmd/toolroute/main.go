// Command toolroute is toolroute's program: it chats with a model through
// the tool-group router, in a terminal or behind a local HTTP server, serves
// the routed tools to MCP clients, runs single tools, counts schema tokens,
// checks tool manifests and ranks a tool list for queries.
//
// Usage:
//
//	toolroute serve  [--port N] [APP FLAGS]
//	toolroute mcp    [--http [--port N]] [APP FLAGS]
//	toolroute chat   [--session NAME] [APP FLAGS]
//	toolroute call   TOOL [--params JSON] [APP FLAGS]
//	toolroute tokens [--json] [--catalogue FILE] [APP FLAGS]
//	toolroute google login|logout|status
//	toolroute env    list|set NAME|unset NAME
//	toolroute policy list|set tool|group NAME ask|allow|deny|reset tool|group NAME
//	toolroute check  [--json] [--with-builtin] [--override] [--mcp-config FILE] [DIR...]
//	toolroute search --tools FILE.json [-k 5] [--json] < queries
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `toolroute routes tools to language models by group.

Usage:
  toolroute serve [--port 8377] [APP FLAGS]
      Serve the chat API and page on http://127.0.0.1:PORT.
  toolroute mcp [--http [--port 8378] [--token T]] [APP FLAGS]
      Serve the tools to an MCP client (Claude Desktop and Code, Cursor, ...)
      over standard input and output, routed by group: the client lists the
      core tools and load_tool_group, and a load adds a group's tools. --http
      serves Streamable HTTP on http://127.0.0.1:PORT/mcp instead, for
      clients that send serve's token as Authorization: Bearer.
  toolroute chat [--session NAME] [APP FLAGS]
      Chat in the terminal; --session continues (or starts) a named session.
      Reads one message per line when standard input is not a terminal.
  toolroute call TOOL [--params JSON] [APP FLAGS]
      Run one tool directly and print its result, for tool authors.
  toolroute tokens [--json] [--catalogue FILE] [APP FLAGS]
      Count the tool schema tokens each model call sends: all tools, core
      only, core plus each group, all groups loaded. --catalogue counts the
      catalogue in FILE (toolroute export's output) instead.
  toolroute google login|logout|status
      Connect a Google account for the Google Workspace tools.
  toolroute env list|set NAME|unset NAME
      The variables JS tools may read (each only those its manifest lists);
      set reads the value from standard input.
  toolroute policy list|set tool|group NAME ask|allow|deny|reset tool|group NAME
      Whether a tool may run without asking you first.
  toolroute check [--json] [--with-builtin] [--override] [--mcp-config FILE] [DIR...]
      Check the JS tool manifests (NAME.json with NAME.js) in each folder, or
      the built-in manifests when no folder is given, and the MCP servers of
      CONFIG/mcp.json (or FILE): each one's group and tools, or why it is down.
      Exit status 1 on any error.
  toolroute search --tools FILE.json [-k 5] [--json] < queries
      Rank the tools of FILE.json (a JSON array of objects with "name" and
      "description") for each line of standard input: the names of the best
      5, tab-separated, one line per query.
  toolroute export [--builtin] [APP FLAGS]
      Print the JS tools, their sources and libraries as one JSON document,
      as the edge worker's build (web/worker) and the browser UI take them.

Models: set OPENAI_API_KEY (and OPENAI_BASE_URL for Ollama, llama.cpp or
vLLM), ANTHROPIC_API_KEY or GEMINI_API_KEY; --provider responses speaks
OpenAI's Responses API with the OpenAI variables; choose the model with
--model or TOOLROUTE_MODEL; --provider demo plays a scripted demo that needs
no model.

APP FLAGS (see toolroute COMMAND -h): --provider, --model, --db, --data,
--config-dir, --tools-dir, --skills-dir, --allow-override, --no-cache,
--no-watch; serve, mcp, chat, call and tokens also take --mcp-config FILE.

MCP servers: each server of CONFIG/mcp.json ({"mcpServers": {"NAME":
{"command", "args", "env"} or {"url", "headers"}}}, as Claude Desktop and
Cursor write it; ~/.config/toolroute/mcp.json on Linux) is a tool group
named NAME; --mcp-config FILE reads another file.
`

// run is the program with its arguments and streams, for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
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
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "toolroute: unknown command %q\n\n%s", args[0], usage)
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
