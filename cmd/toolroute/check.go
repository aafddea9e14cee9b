package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/toolroute/toolroute/host/jsrun"
	"github.com/toolroute/toolroute/host/mcp"
	"github.com/toolroute/toolroute/internal/abi"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

// checkResult is what `toolroute check --json` prints.
type checkResult struct {
	Reports []checkReport `json:"reports"`
	// UnpairedJS are the .js files with no manifest beside them: a
	// warning each, and an error for one that does not parse.
	UnpairedJS []jsFile `json:"unpaired_js"`
	Tools      int      `json:"tools"`
	Groups     int      `json:"groups"`
	Errors     int      `json:"errors"`
	Warnings   int      `json:"warnings"`
	// MCP are the MCP servers of the configuration, when there is one.
	MCP []mcp.Status `json:"mcp,omitempty"`
}

// checkReport is a manifest's report from the registry, and what QuickJS
// found in its JS file: errors each.
type checkReport struct {
	registry.Report
	// Code holds the file's syntax error, or what its top level threw, or
	// each function an entry names that the file does not define.
	Code []registry.Problem `json:"code"`
}

// OK reports whether the manifest has no error.
func (c checkReport) OK() bool { return c.Report.OK() && len(c.Code) == 0 }

// jsFile is a .js file no manifest names.
type jsFile struct {
	File string `json:"file"`
	// Error is its syntax error, when it does not parse.
	Error string `json:"error,omitempty"`
}

// codeFolder is a folder being checked: its files and its manifests.
type codeFolder struct {
	fsys   fs.FS
	label  string
	folder catalog.Folder
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("check", stderr)
	asJSON := flags.Bool("json", false, "print the reports as JSON")
	var builtin bool
	flags.BoolVar(&builtin, "builtin", false, "check the built-in manifests too, loaded first so that clashes with them show (alone when no folder is given)")
	flags.BoolVar(&builtin, "with-builtin", false, "the same as --builtin")
	override := flags.Bool("override", false, "let the folders' tools replace built-in tools of the same name, as user tools may")
	mcpConfig := flags.String("mcp-config", "", "check the MCP servers of this configuration (default: CONFIG/mcp.json when it exists)")
	configDir := flags.String("config-dir", "", "the folder holding tools/ and mcp.json (default: ~/.config/toolroute)")
	toolsDir := flags.String("tools-dir", "", "your tools folder, checked when no folder is given (default: CONFIG/tools)")
	dirs, err := parseArgs(flags, args)
	if err != nil {
		return exitFor(err)
	}
	// With no folder given, the user's own tools folder is checked: the
	// one serve, chat and call load.
	userFolder, noFolder := "", false
	if len(dirs) == 0 && !builtin {
		cfg := app.Config{ConfigDir: *configDir, ToolsDir: *toolsDir, NoModel: true}
		if err := cfg.Defaults(); err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		userFolder = cfg.ToolsDir
		dirs = []string{userFolder}
	}

	var folders []codeFolder
	read := func(fsys fs.FS, label string, override bool) bool {
		f, err := catalog.ReadFolder(fsys, label, override)
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return false
		}
		folders = append(folders, codeFolder{fsys, label, f})
		return true
	}
	if builtin {
		if !read(manifests.FS, builtinLabel, false) {
			return 1
		}
	}
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist) && dir == userFolder:
			// An error, but the MCP servers are still checked.
			fmt.Fprintf(stderr, "toolroute check: your tools folder, %s, does not exist yet: make it with\n  mkdir -p %s\nthen put a tool's NAME.json and NAME.js in it (toolroute serve, chat and call make it too); toolroute check --builtin checks the built-in tools\n", dir, shellQuote(dir))
			noFolder = true
			continue
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(stderr, "toolroute check: there is no folder %s: give the folder holding your NAME.json and NAME.js files (to make one: mkdir -p %s)\n", dir, shellQuote(dir))
			return 1
		case err == nil && !info.IsDir():
			fmt.Fprintf(stderr, "toolroute check: %s is not a folder: give the folder holding NAME.json and NAME.js\n", dir)
			return 1
		case err != nil:
			fmt.Fprintf(stderr, "toolroute check: %v\n", err)
			return 1
		}
		if !read(os.DirFS(dir), strings.TrimSuffix(dir, "/"), *override) {
			return 1
		}
	}
	if userFolder != "" && !noFolder && !*asJSON {
		fmt.Fprintf(stdout, "Your tools folder, %s (--tools-dir or a folder argument checks another; --builtin the built-in tools):\n\n", userFolder)
	}

	res := checkResult{Reports: []checkReport{}, UnpairedJS: []jsFile{}}
	runner, ctx, pool, closeModule, err := codeRunner(*configDir)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	defer closeModule()
	defer runner.Close()
	d, perFolder, err := loadFolders(ctx, pool, folders)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	for i, f := range folders {
		unpaired, err := checkCode(ctx, runner, d, f, perFolder[i])
		if err != nil {
			fmt.Fprintf(stderr, "toolroute: %v\n", err)
			return 1
		}
		res.Reports = append(res.Reports, perFolder[i]...)
		res.UnpairedJS = append(res.UnpairedJS, unpaired...)
	}
	for _, rep := range res.Reports {
		res.Tools += len(rep.Loaded)
		res.Errors += len(rep.Skipped) + len(rep.Code)
		res.Warnings += len(rep.Warnings)
		if rep.Group != "" {
			res.Groups++
		}
	}
	for _, u := range res.UnpairedJS {
		res.Warnings++
		if u.Error != "" {
			res.Errors++
		}
	}

	statuses, mcpFile, err := checkMCP(*mcpConfig, *configDir, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "toolroute: %v\n", err)
		return 1
	}
	res.MCP = statuses
	if noFolder {
		res.Errors++
	}
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
		if len(folders) > 0 {
			printReports(stdout, d, res)
		}
		if mcpFile != "" {
			printMCP(stdout, mcpFile, statuses)
		}
	}
	if res.Errors > 0 {
		return 1
	}
	return 0
}

// codeRunner is the QuickJS runner the JS files are compiled and run in,
// with the library folders a call has (so a top level's lib() works), no
// sandbox folder and the network refused (Runner.Undefined), and the
// context a top level runs in: its bridges' refusals are the module's
// words (toolroute_check's js_bridge), as in a call.
func codeRunner(configDir string) (*jsrun.Runner, context.Context, *module.Pool, func(), error) {
	cfg := app.Config{ConfigDir: configDir, NoModel: true}
	if err := cfg.Defaults(); err != nil {
		return nil, nil, nil, nil, err
	}
	cache, moduleCache := "", ""
	if cfg.CacheDir != "-" {
		cache, moduleCache = filepath.Join(cfg.CacheDir, "quickjs"), filepath.Join(cfg.CacheDir, "module")
	}
	ctx := context.Background()
	rt, err := module.New(ctx, module.Config{CacheDir: moduleCache})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pool := module.NewPool(rt, module.PoolConfig{MaxInstances: 1})
	pool.SetCatalogue([]byte(`{}`))
	closeModule := func() {
		pool.Close(ctx)
		rt.Close(ctx)
	}
	runner, err := jsrun.New(jsrun.Options{Libraries: []fs.FS{manifests.Lib, os.DirFS(cfg.LibDir)}, CacheDir: cache, Warm: 1})
	if err != nil {
		closeModule()
		return nil, nil, nil, nil, err
	}
	return runner, module.WithChecker(ctx, pool), pool, closeModule, nil
}

// loadFolders hands the folders' manifests to the module as one catalogue,
// in order, and returns its description of them and each folder's
// reports, a file at a time: the module's report (toolroute_load), or the
// refusal of a file it never saw (one too big, say).
func loadFolders(ctx context.Context, pool *module.Pool, folders []codeFolder) (abi.Description, [][]checkReport, error) {
	var cat registry.Catalogue
	for _, f := range folders {
		cat.Manifests = append(cat.Manifests, f.folder.Catalogue().Manifests...)
	}
	data, err := module.Marshal(cat)
	if err != nil {
		return abi.Description{}, nil, fmt.Errorf("check: the catalogue: %w", err)
	}
	pool.SetCatalogue(data)
	rep, err := pool.Report(ctx)
	if err != nil {
		return abi.Description{}, nil, err
	}
	l, err := pool.Acquire(ctx)
	if err != nil {
		return abi.Description{}, nil, err
	}
	d, err := l.Describe(ctx, abi.DescribeRequest{})
	pool.Release(ctx, l)
	if err != nil {
		return abi.Description{}, nil, err
	}
	loaded := rep.Manifests
	perFolder := make([][]checkReport, len(folders))
	for i, f := range folders {
		for _, file := range f.folder.Files {
			r := registry.Report{File: file.Manifest.File, Loaded: []registry.Loaded{},
				Skipped: []registry.Problem{{File: file.Manifest.File, Entry: -1, Reason: file.Refused}}, Warnings: []registry.Problem{}}
			if file.Refused == "" {
				if len(loaded) == 0 {
					return abi.Description{}, nil, fmt.Errorf("check: the module reported on %d manifests of %d", len(rep.Manifests), len(cat.Manifests))
				}
				r, loaded = loaded[0], loaded[1:]
			}
			perFolder[i] = append(perFolder[i], checkReport{Report: r, Code: []registry.Problem{}})
		}
	}
	return d, perFolder, nil
}

// checkCode compiles every JS file of a folder in QuickJS, runs each
// manifest's file's top level to see that every function its entries name
// is defined, and checks that each tool's 'required' names properties its
// schema declares (a warning). It adds what it finds to the folder's
// reports and returns the .js files no manifest names.
func checkCode(ctx context.Context, runner *jsrun.Runner, d abi.Description, f codeFolder, reports []checkReport) ([]jsFile, error) {
	for i := range reports {
		rep := &reports[i]
		ref := strings.TrimSuffix(rep.File, ".json") + ".js"
		src, ok := f.folder.Sources[ref]
		if !ok {
			continue // refused before the registry saw it
		}
		base := path.Base(ref)
		var functions []string
		for _, l := range rep.Loaded {
			if t, ok := loadedTool(d, l, rep.File); ok && !slices.Contains(functions, t.Origin.Function) {
				functions = append(functions, t.Origin.Function)
			}
		}
		if err := runner.Check(ref, src); err != nil {
			rep.Code = append(rep.Code, registry.Problem{File: ref, Entry: -1, Reason: base + " does not parse: " + atLine(err.Error(), ref)})
		} else if len(functions) == 0 {
			// no tool of it loaded: nothing runs it
		} else if missing, err := runner.Undefined(ctx, ref, src, functions); err != nil {
			rep.Code = append(rep.Code, registry.Problem{File: ref, Entry: -1, Reason: base + " fails as it loads, so none of its tools can run: " + atLine(err.Error(), ref)})
		} else {
			for _, l := range rep.Loaded {
				if t, ok := loadedTool(d, l, rep.File); ok && slices.Contains(missing, t.Origin.Function) {
					rep.Code = append(rep.Code, registry.Problem{File: rep.File, Entry: l.Entry, Tool: l.Tool,
						Reason: fmt.Sprintf("function '%s' is not defined in %s", t.Origin.Function, base)})
				}
			}
		}
		for _, l := range rep.Loaded {
			t, ok := loadedTool(d, l, rep.File)
			if !ok {
				continue
			}
			for _, w := range undeclaredRequired(t.Parameters, "") {
				rep.Warnings = append(rep.Warnings, registry.Problem{File: rep.File, Entry: l.Entry, Tool: l.Tool, Reason: w})
			}
		}
	}
	entries, err := fs.ReadDir(f.fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("check: read %s: %w", f.label, err)
	}
	var unpaired []jsFile
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".js")
		if !ok || e.IsDir() {
			continue
		}
		if _, err := fs.Stat(f.fsys, name+".json"); err == nil {
			continue
		}
		ref := path.Join(f.label, e.Name())
		u := jsFile{File: ref}
		src, err := fs.ReadFile(f.fsys, e.Name())
		if err != nil {
			u.Error = fmt.Sprintf("cannot read it: %v", err)
		} else if err := runner.Check(ref, src); err != nil {
			u.Error = e.Name() + " does not parse: " + atLine(err.Error(), ref)
		}
		unpaired = append(unpaired, u)
	}
	return unpaired, nil
}

// loadedTool is the tool a manifest's entry registered, as the module
// describes it, unless a later manifest replaced it.
func loadedTool(d abi.Description, l registry.Loaded, file string) (registry.Tool, bool) {
	t := enabledTool(d, l.Tool)
	return t, t.Name == l.Tool && t.Origin.File == file
}

// atPosition is where QuickJS says an error is: "    at FILE:LINE:COLUMN".
var atPosition = regexp.MustCompile(`\n\s*at (?:[^\n]*\()?([^\n():]+):(\d+):(\d+)\)?`)

// atLine writes a QuickJS error on one line, the place its first stack
// line names in the file as "(line N, column M)".
func atLine(msg, ref string) string {
	first, _, _ := strings.Cut(msg, "\n")
	for _, m := range atPosition.FindAllStringSubmatch(msg, -1) {
		if m[1] == ref {
			return first + " (line " + m[2] + ", column " + m[3] + ")"
		}
	}
	return first
}

// undeclaredRequired lists, for a schema and the objects in it (property
// schemas and array items), each name 'required' gives that 'properties'
// does not declare: the model is asked for a parameter it is not told
// about. at is the object's path.
func undeclaredRequired(schema json.RawMessage, at string) []string {
	var node struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(schema, &node) != nil {
		return nil
	}
	var out []string
	where := "'required'"
	if at != "" {
		where = "'required' of '" + at + "'"
	}
	for _, name := range node.Required {
		if _, ok := node.Properties[name]; !ok {
			out = append(out, fmt.Sprintf("%s names '%s', which 'properties' does not declare: declare it, or take it out of 'required'", where, name))
		}
	}
	names := make([]string, 0, len(node.Properties))
	for name := range node.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		out = append(out, undeclaredRequired(node.Properties[name], join(at, name))...)
	}
	if len(node.Items) > 0 {
		out = append(out, undeclaredRequired(node.Items, at+"[]")...)
	}
	return out
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
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
	// It starts every server, to report how each starts, and keeps what
	// they list for the program's next run (the data folder's cache).
	cfg.MCP.Eager, cfg.MCP.CacheFile = true, filepath.Join(cfg.DataDir, mcp.CacheFile)
	cfg.DataDir, cfg.DBPath, cfg.SandboxDir = tmp, "", ""
	if err := cfg.Defaults(); err != nil {
		return nil, "", err
	}
	a, err := app.Open(context.Background(), cfg)
	if err != nil {
		return nil, "", err
	}
	defer a.Close()
	// The program does not wait for a server slow to start; a check does,
	// to report how it ends.
	var starting []string
	for _, st := range a.MCPStatus() {
		if st.State == mcp.Starting {
			starting = append(starting, st.Key)
		}
	}
	if len(starting) > 0 {
		fmt.Fprintf(stderr, "waiting for MCP servers still starting (a process has %d s to answer): %s\n", int(mcp.DefaultStartup/time.Second), strings.Join(starting, ", "))
		a.MCP.Wait(context.Background())
	}
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
		case st.State == mcp.NeedsAuthorization:
			fmt.Fprintf(w, "%-5s %s (%s)\n", status, mcp.LoginAdvice(st.Key), st.Error)
			continue
		case st.State == mcp.Starting && st.Error != "":
			fmt.Fprintf(w, "%-5s %s: starting again; it was down: %s\n", status, st.Key, st.Error)
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

func printReports(w io.Writer, d abi.Description, res checkResult) {
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
			var g registry.Group
			if i := slices.IndexFunc(d.Groups, func(g abi.GroupInfo) bool { return g.Name == rep.Group }); i >= 0 {
				g = d.Groups[i].Group
			}
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
		for _, p := range rep.Code {
			fmt.Fprintf(w, "      error:   %s\n", where(p))
		}
		for _, p := range rep.Warnings {
			fmt.Fprintf(w, "      warning: %s\n", where(p))
		}
	}
	for _, u := range res.UnpairedJS {
		if u.Error != "" {
			fmt.Fprintf(w, "%-5s %s: no manifest beside it, and %s\n", "ERROR", u.File, u.Error)
			continue
		}
		fmt.Fprintf(w, "%-5s %s: no manifest (%s.json) beside it, so no tool runs it; a library for lib() goes in the library folder\n",
			"warn", u.File, strings.TrimSuffix(path.Base(u.File), ".js"))
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

// shellQuote quotes a path for a shell command when it needs it.
func shellQuote(p string) string {
	if p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-~") == "" {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
