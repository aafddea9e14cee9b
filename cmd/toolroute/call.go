package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolroute/toolroute/host"
	"github.com/toolroute/toolroute/registry"
)

// runCall runs one tool directly: the output goes to stdout, a failure to
// stderr with exit status 1.
func runCall(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("call", stderr)
	var af appFlags
	af.register(fs)
	af.registerMCP(fs)
	params := fs.String("params", "{}", `the tool's arguments as a JSON object, such as '{"code":"6 * 7"}' for js_eval; - reads them from standard input`)
	var timeout durationFlag
	fs.Var(&timeout, "timeout", "stop the call after this long, in seconds (10) or as a Go duration (500ms, 2m), instead of the tool's own limit (its manifest's timeoutSeconds, 30 by default)")
	problems := fs.Bool("problems", false, "print everything in the tools folder and the MCP servers that did not load, not only what concerns this tool")
	verbose := fs.Bool("verbose", false, "print a failed JS tool's whole stack, not only the lines in its own file")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return exitFor(err)
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "usage: toolroute call TOOL [--params JSON] [--timeout 10s]: toolroute tools lists the tools you can call")
		return 2
	}
	name := rest[0]
	input := []byte(*params)
	if *params == "-" {
		if input, err = io.ReadAll(stdin); err != nil {
			fmt.Fprintf(stderr, "toolroute call: reading the parameters: %v\n", err)
			return 1
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	af.cfg.NoModel = true
	af.noWatch = true
	af.quiet = true
	// Calling exec is the user's own command line: nothing else asks.
	af.cfg.Exec = true
	af.cfg.Browser = true
	// An MCP server that asks the user something during the call asks
	// here: prompts on standard error, answers from standard input (unless
	// it gave the parameters).
	var asker host.Asker
	if *params != "-" && stdin != nil {
		asker = &stdinAsker{out: stderr, in: stdin}
		af.cfg.MCP.Ask = true
	}
	a, err := af.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	if asker != nil {
		ctx = host.WithAsker(ctx, asker)
	}
	d, err := a.Host.Describe(ctx, "")
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	// The tool as the module has it, when it is enabled: what it is
	// called, its group and where its file is.
	tool := enabledTool(d, name)
	for _, p := range a.Problems() {
		// What names the tool, or its group (an MCP server that is down).
		if *problems || concerns(p, name) || (tool.Group != "" && concerns(p, tool.Group)) {
			fmt.Fprintf(stderr, "toolroute: not loaded: %s\n", p)
		}
	}
	res, err := a.Host.CallToolWith(ctx, name, json.RawMessage(input), host.CallOptions{Timeout: time.Duration(timeout), Console: true})
	var ce *host.CallError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(stderr, "toolroute call: %s%s\n", ce.Message, callHint(ce, tool.Group))
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "toolroute call: %v\n", err)
		return 1
	}
	if res.Status != registry.StatusSuccess {
		own := ""
		if tool.Origin.Kind == registry.OriginJS && !strings.HasPrefix(tool.Origin.Source, builtinLabel+"/") {
			own = tool.Origin.Source
		}
		fmt.Fprintf(stderr, "%s failed (%s): %s\n", name, res.ErrorType, stackLines(res.Message, own, *verbose))
		if res.ErrorType == "timeout" {
			fmt.Fprintln(stderr, "toolroute call: --timeout 2m gives it longer")
		}
		return 1
	}
	fmt.Fprintln(stdout, res.Output)
	return 0
}

// builtinLabel is the folder name the built-in manifests' sources have.
const builtinLabel = "builtin"

// callHint says what to do after a call that did not run; group is the
// tool's ("" for a core tool).
func callHint(e *host.CallError, group string) string {
	switch e.Kind {
	case host.CallUnknownTool:
		return ": toolroute tools lists the tools you can call"
	case host.CallDisabled:
		return fmt.Sprintf(": enable it with toolroute call set_tool_enabled --params '{\"name\":%q,\"enabled\":true}'", e.Tool)
	case host.CallMetaTool:
		return ": the model calls it in toolroute chat or serve"
	case host.CallBadParameters:
		return fmt.Sprintf(": give them with --params, such as --params '%s' (toolroute tools --group %s --json shows its schema)", e.Example, cmp.Or(group, "core"))
	}
	return ""
}

// concerns reports whether a problem of the tools folder names the tool or
// its manifest (NAME.json, a group's file holding it), as a word.
func concerns(problem, tool string) bool {
	re := regexp.MustCompile(`(^|[^a-z0-9_])` + regexp.QuoteMeta(tool) + `([^a-z0-9_]|$)`)
	return re.MatchString(problem)
}

// stackFrame is a line of a JS stack: "    at f (FILE:LINE:COLUMN)" or
// "    at FILE:LINE:COLUMN".
var stackFrame = regexp.MustCompile(`^\s+at \S`)

// stackLines keeps, of a failure's JS stack, the frames in the tool's own
// file (own; "" for a built-in tool, whose file is not the caller's): the
// line to look at. verbose keeps them all. The console output after the
// message is kept whole.
func stackLines(msg, own string, verbose bool) string {
	if verbose {
		return msg
	}
	text, console, hasConsole := strings.Cut(msg, "\n\nConsole output:")
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !stackFrame.MatchString(l) || (own != "" && strings.Contains(l, own+":")) {
			kept = append(kept, l)
		}
	}
	out := strings.Join(kept, "\n")
	if hasConsole {
		out += "\n\nConsole output:" + console
	}
	return out
}

// durationFlag is a time limit given in seconds (30, 1.5) or as a Go
// duration (500ms, 2m).
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return fmt.Errorf("%q is not a time: give seconds, such as 10, or a duration, such as 500ms or 2m", s)
		}
		v = time.Duration(secs * float64(time.Second))
	}
	if v <= 0 {
		return fmt.Errorf("%q: give a time over zero", s)
	}
	*d = durationFlag(v)
	return nil
}
