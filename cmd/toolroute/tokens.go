package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/schematokens"
	"github.com/toolroute/toolroute/registry"
)

// runTokens prints the tool schema tokens per model call for the catalogue:
// the built-in tools and the user's, or, with --catalogue, a catalogue in a
// file (what `toolroute export` prints, or its "catalogue" alone), such as
// the one a browser or a worker offers.
func runTokens(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("tokens", stderr)
	var af appFlags
	af.register(fs)
	af.registerMCP(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	file := fs.String("catalogue", "", "count the catalogue in this file (toolroute export's output, or a catalogue object) instead")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return exitFor(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "toolroute tokens: unexpected %q\n", rest[0])
		return 2
	}
	ctx := context.Background()
	var cat registry.Catalogue
	cfg := af.cfg
	if *file != "" {
		if cat, err = readCatalogue(*file); err != nil {
			fmt.Fprintf(stderr, "toolroute tokens: %v\n", err)
			return 1
		}
		if err := cfg.Defaults(); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
	} else {
		af.cfg.NoModel = true
		af.noWatch = true
		// The catalogue chat sends, exec and browser included.
		af.cfg.Exec = true
		af.cfg.Browser = true
		a, err := af.open(ctx, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		defer a.Close()
		cat, cfg = a.Host.Catalogue(), a.Config
	}
	// The counts are of the texts the module sends for the catalogue: an
	// instance of it loads and describes it.
	moduleCache := ""
	if cfg.CacheDir != "-" && !af.noCache {
		moduleCache = filepath.Join(cfg.CacheDir, "module")
	}
	rt, err := module.New(ctx, module.Config{CacheDir: moduleCache})
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer rt.Close(ctx)
	rep, err := schematokens.Measure(ctx, rt, cat)
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

// readCatalogue reads a catalogue file: an export bundle, whose
// "catalogue" it takes, or a catalogue object.
func readCatalogue(path string) (registry.Catalogue, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return registry.Catalogue{}, err
	}
	var bundle struct {
		Catalogue *registry.Catalogue `json:"catalogue"`
	}
	if err := json.Unmarshal(b, &bundle); err != nil {
		return registry.Catalogue{}, fmt.Errorf("%s is not JSON: %v: give toolroute export's output or a catalogue object", path, err)
	}
	if bundle.Catalogue != nil {
		return *bundle.Catalogue, nil
	}
	var cat registry.Catalogue
	if err := json.Unmarshal(b, &cat); err != nil {
		return registry.Catalogue{}, fmt.Errorf("%s is not a catalogue: %v", path, err)
	}
	return cat, nil
}
