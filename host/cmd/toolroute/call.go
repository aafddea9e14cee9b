package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolroute/toolroute/registry"
)

// runCall runs one tool directly: the output goes to stdout, a failure to
// stderr with exit status 1.
func runCall(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var af appFlags
	af.register(fs)
	af.registerMCP(fs)
	params := fs.String("params", "{}", `the tool's arguments as a JSON object, such as '{"path":"notes.md"}'; - reads them from standard input`)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, `usage: toolroute call TOOL [--params JSON]; toolroute tokens or the catalogue lists the tools`)
		return 2
	}
	input := []byte(*params)
	if *params == "-" {
		if input, err = io.ReadAll(stdin); err != nil {
			fmt.Fprintf(stderr, "toolroute: reading the parameters: %v\n", err)
			return 1
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	af.cfg.NoModel = true
	af.noWatch = true
	// Calling exec is the user's own command line: nothing else asks.
	af.cfg.Exec = true
	af.cfg.Browser = true
	a, err := af.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	res, err := a.Host.CallTool(ctx, rest[0], json.RawMessage(input))
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	if res.Status != registry.StatusSuccess {
		fmt.Fprintf(stderr, "%s failed (%s): %s\n", rest[0], res.ErrorType, res.Message)
		return 1
	}
	fmt.Fprintln(stdout, res.Output)
	return 0
}
