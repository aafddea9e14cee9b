package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// runExport prints the JS tools as the browser UI and the edge worker take
// them: {catalogue, sources, libraries} (app.BrowserCatalogue), the
// built-in tools and, unless --builtin, the user's tools, skills and
// libraries. Host-native tools are left out: they run in Go only.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("export", stderr)
	var af appFlags
	af.register(fs)
	builtinOnly := fs.Bool("builtin", false, "only the built-in tools: leave the user's tools, skills and libraries out")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return exitFor(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute export: unexpected %q\n", rest[0])
		return 2
	}
	// Exporting reads no session: a database of its own, thrown away, keeps
	// the user's untouched (and lets a build run where there is none).
	tmp, err := os.MkdirTemp("", "toolroute-export-")
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if af.cfg.DataDir == "" && af.cfg.DBPath == "" {
		af.cfg.DataDir = tmp
	}
	if *builtinOnly {
		af.cfg.ConfigDir = tmp
		af.cfg.ToolsDir, af.cfg.SkillsDir, af.cfg.LibDir = "", "", ""
	}
	af.cfg.NoModel = true
	af.cfg.NoMCP = true // their tools run in Go only
	af.noWatch = true
	a, err := af.open(context.Background(), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer a.Close()
	bc, err := a.ForBrowser()
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(bc); err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	return 0
}
