package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolroute/toolroute/host/catalog"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

// checkResult is what `toolroute check --json` prints.
type checkResult struct {
	Reports  []registry.Report `json:"reports"`
	Tools    int               `json:"tools"`
	Groups   int               `json:"groups"`
	Errors   int               `json:"errors"`
	Warnings int               `json:"warnings"`
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	withBuiltin := fs.Bool("with-builtin", false, "load the built-in manifests first, to see conflicts with them")
	override := fs.Bool("override", false, "let the folders' tools replace built-in tools of the same name, as user tools may")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: toolroute check [--json] [--with-builtin] [--override] [DIR...]\n")
		fs.PrintDefaults()
	}
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}

	var folders []catalog.Folder
	read := func(f catalog.Folder, err error) bool {
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return false
		}
		folders = append(folders, f)
		return true
	}
	if len(dirs) == 0 || *withBuiltin {
		if !read(catalog.ReadFolder(manifests.FS, "builtin", false)) {
			return 1
		}
	}
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err == nil && !info.IsDir() {
			err = fmt.Errorf("%s is not a folder: give the folder holding NAME.json and NAME.js", dir)
		}
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		if !read(catalog.ReadFolder(os.DirFS(dir), strings.TrimSuffix(dir, "/"), *override)) {
			return 1
		}
	}

	r := registry.New()
	res := checkResult{Reports: []registry.Report{}}
	for _, f := range folders {
		res.Reports = append(res.Reports, f.Load(r)...)
	}
	for _, rep := range res.Reports {
		res.Tools += len(rep.Loaded)
		res.Errors += len(rep.Skipped)
		res.Warnings += len(rep.Warnings)
		if rep.Group != "" {
			res.Groups++
		}
	}

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
	} else {
		printReports(stdout, r, res)
	}
	if res.Errors > 0 {
		return 1
	}
	return 0
}

func printReports(w io.Writer, r *registry.Registry, res checkResult) {
	for _, rep := range res.Reports {
		var loaded []string
		for _, l := range rep.Loaded {
			s := l.Tool
			if l.Replaced != "" {
				s += " (replaces the one from " + l.Replaced + ")"
			}
			loaded = append(loaded, s)
		}
		status := "ok"
		if !rep.OK() {
			status = "ERROR"
		}
		what := fmt.Sprintf("%d tools", len(loaded))
		if len(loaded) == 1 {
			what = "1 tool"
		}
		if rep.Group != "" {
			g, _ := r.Group(rep.Group)
			what = fmt.Sprintf("group %s (%s), %s", g.Name, g.DisplayName, what)
		}
		if len(loaded) > 0 {
			what += ": " + strings.Join(loaded, ", ")
		} else if !rep.OK() {
			what = "nothing loaded"
		}
		fmt.Fprintf(w, "%-5s %s: %s\n", status, rep.File, what)
		for _, p := range rep.Skipped {
			fmt.Fprintf(w, "      error:   %s\n", where(p))
		}
		for _, p := range rep.Warnings {
			fmt.Fprintf(w, "      warning: %s\n", where(p))
		}
	}
	fmt.Fprintf(w, "\n%s: %s in %s loaded; %s, %s\n", plural(len(res.Reports), "manifest"),
		plural(res.Tools, "tool"), plural(res.Groups, "group"), plural(res.Errors, "error"), plural(res.Warnings, "warning"))
}

// where is a problem without its file name, which the report's line gives.
func where(p registry.Problem) string {
	var b strings.Builder
	if p.Entry >= 0 {
		fmt.Fprintf(&b, "entry %d", p.Entry)
	}
	switch {
	case p.Tool != "" && b.Len() > 0:
		fmt.Fprintf(&b, " (%s)", p.Tool)
	case p.Tool != "":
		fmt.Fprintf(&b, "tool %s", p.Tool)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Reason)
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
