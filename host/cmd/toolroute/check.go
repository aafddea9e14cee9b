package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host/app"
	"github.com/toolroute/toolroute/host/catalog"
	"github.com/toolroute/toolroute/host/mcp"
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
	// MCP are the MCP servers of the configuration, when there is one.
	MCP []mcp.Status `json:"mcp,omitempty"`
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	withBuiltin := fs.Bool("with-builtin", false, "load the built-in manifests first, to see conflicts with them")
	override := fs.Bool("override", false, "let the folders' tools replace built-in tools of the same name, as user tools may")
	mcpConfig := fs.String("mcp-config", "", "check the MCP servers of this configuration (default: CONFIG/mcp.json when it exists)")
	configDir := fs.String("config-dir", "", "the folder holding tools/ and mcp.json (default: ~/.config/toolroute)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: toolroute check [--json] [--with-builtin] [--override] [--mcp-config FILE] [DIR...]\n")
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

	statuses, mcpFile, err := checkMCP(*mcpConfig, *configDir, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	res.MCP = statuses
	for _, st := range statuses {
		if !st.OK() {
			res.Errors++
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
		if mcpFile != "" {
			printMCP(stdout, mcpFile, statuses)
		}
	}
	if res.Errors > 0 {
		return 1
	}
	return 0
}

// checkMCP starts the MCP servers of the configuration as the program does
// (with the built-in tools and the user's, so that their tools are named as
// the program names them) and reports each. Without a configuration it
// reports nothing.
func checkMCP(file, configDir string, stderr io.Writer) ([]mcp.Status, string, error) {
	cfg := app.Config{ConfigDir: configDir, MCPConfig: file, NoModel: true, Watch: -1}
	if err := cfg.Defaults(); err != nil {
		return nil, "", err
	}
	if cfg.MCPConfig == "" {
		cfg.MCPConfig = filepath.Join(cfg.ConfigDir, mcp.ConfigFile)
		if _, err := os.Stat(cfg.MCPConfig); err != nil {
			return nil, "", nil
		}
	}
	// Checking reads no session: a data folder of its own, thrown away.
	tmp, err := os.MkdirTemp("", "toolroute-check-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	cfg.DataDir, cfg.DBPath, cfg.SandboxDir = tmp, "", ""
	if err := cfg.Defaults(); err != nil {
		return nil, "", err
	}
	a, err := app.Open(context.Background(), cfg)
	if err != nil {
		return nil, "", err
	}
	defer a.Close()
	return a.MCPStatus(), cfg.MCPConfig, nil
}

// printMCP prints each server: its group and tools, or why it is down.
func printMCP(w io.Writer, file string, statuses []mcp.Status) {
	fmt.Fprintf(w, "\nMCP servers of %s:\n", file)
	connected, tools := 0, 0
	for _, st := range statuses {
		status := "ok"
		if !st.OK() {
			status = "ERROR"
		}
		switch {
		case st.State == mcp.Disabled:
			fmt.Fprintf(w, "%-5s %s: disabled\n", "off", st.Key)
			continue
		case st.Group == "":
			fmt.Fprintf(w, "%-5s %s: left out: %s\n", status, st.Key, st.Error)
			continue
		case st.State == mcp.Down:
			fmt.Fprintf(w, "%-5s %s: down: %s; toolroute starts it again in %d s (%s)\n", status, st.Key, st.Error,
				max(1, int(time.Until(st.RetryAt).Round(time.Second)/time.Second)), mcp.DownAdvice)
		default:
			connected++
			fmt.Fprintf(w, "%-5s %s: group %s, %s over %s (%s, MCP %s)\n", status, st.Key, st.Group,
				plural(len(offered(st)), "tool"), st.Transport, st.Server, st.Protocol)
		}
		for _, t := range st.Tools {
			switch {
			case t.Skipped != "":
				fmt.Fprintf(w, "      error: tool %q left out: %s\n", t.MCPName, t.Skipped)
			case t.Renamed():
				fmt.Fprintf(w, "      %s (MCP tool %q): %s\n", t.Name, t.MCPName, approval(t.Permissions))
			default:
				fmt.Fprintf(w, "      %s: %s\n", t.Name, approval(t.Permissions))
			}
			if t.Name != "" {
				tools++
			}
		}
	}
	fmt.Fprintf(w, "\n%s: %d connected; %s offered\n", plural(len(statuses), "MCP server"), connected, plural(tools, "tool"))
}

// offered are the tools of a server the model is offered.
func offered(st mcp.Status) []mcp.Named {
	var out []mcp.Named
	for _, t := range st.Tools {
		if t.Name != "" {
			out = append(out, t)
		}
	}
	return out
}

// approval says whether a tool asks first by default, from its
// annotations' permissions.
func approval(perms []string) string {
	if registry.DefaultDecision(registry.Tool{RequiredPermissions: perms}) == registry.DecisionAsk {
		return strings.Join(perms, ", ") + ", asks first"
	}
	return strings.Join(perms, ", ") + ", runs unasked"
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
