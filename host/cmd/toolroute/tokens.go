package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/toolroute/toolroute/host/schematokens"
)

// runTokens prints the tool schema tokens per model call for the catalogue:
// the built-in tools and the user's.
func runTokens(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tokens", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var af appFlags
	af.register(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute tokens: unexpected %q\n", rest[0])
		return 2
	}
	af.cfg.NoModel = true
	af.noWatch = true
	a, err := af.open(context.Background(), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	rep, err := schematokens.Measure(a.Host.Catalogue())
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	return 0
}
