// Command benchreport is `make bench`: it counts the schema tokens of the
// built-in catalogue, runs the Go benchmarks and the JS hosts' (Node scripts
// in web/) several times, and prints one table of medians, which it also
// writes to BENCHMARKS.md with how each figure was measured and on what
// machine.
//
//	go run ./internal/benchreport [-count 5] [-out BENCHMARKS.md]
//	go run ./internal/benchreport -sizes   the sizes alone, rewriting the browser UI's section
//	go run ./internal/benchreport -search  the tool search figures alone, rewriting their section
//	go run ./internal/benchreport -startup the start-up figures alone, rewriting their section
//	go run ./internal/benchreport -memory  serve's memory over rounds of load alone, rewriting its section
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolroute/toolroute/internal/app"
	"github.com/toolroute/toolroute/internal/budgetbench"
	"github.com/toolroute/toolroute/internal/cachebench"
	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/internal/mcpserve"
	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/schematokens"
	"github.com/toolroute/toolroute/internal/searcheval"
	"github.com/toolroute/toolroute/internal/tokens"
	"github.com/toolroute/toolroute/internal/webui"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
	"github.com/toolroute/toolroute/wasm"
)

// run is one `go test -bench` invocation.
type run struct {
	pkg, bench, benchtime string
}

// runs are the benchmarks the report reads, by package.
var runs = []run{
	// The core through the module in steady state (b.N loops on a warm
	// instance), and the first call on a new instance apart (FirstCall).
	{"./internal/module", "StartTurn|LoadGroupStep|Turn$|FirstCall|Check", "1s"},
	{"./internal/module", "Catalogue|Compile|Instantiate|MemoryAfter1000Turns|StartMemory", "1x"},
	{"./host/jsrun", "ColdCall|FetchCall|RuntimeMemory", "20x"},
	// Steady state: each workload on a warm runtime of each module in
	// turn, the ratios taken within the run.
	{"./host/jsrun", "HardStop", "40x"},
	// Steady state: the first call's one-time costs vanish in b.N calls
	// (ColdCall, above, is a call on a fresh runtime).
	{"./host/jsrun", "CallItself|QJSCall", "1s"},
	{"./host", "Throughput", "1000x"},
	{"./host/store", "TurnWrites", "1000x"},
	{"./host/store", "Messages", "20x"},
	{"./host", "MemoryBombs", "1x"},
	{"./cmd/toolroute", "Start", "3x"},
	// Ten configured MCP servers started at once against none started
	// (their tools from the cache file), and the first call of a tool
	// on a server started before it against one the call starts.
	{"./host/mcp", "MCPStart|MCPFirstCall", "3x"},
	{"./manifests", "WebfetchPage", "1x"},
}

// nodeRuns are the JS hosts' benchmarks: Node scripts in web/ that print Go
// benchmark lines, each given -count.
var nodeRuns = []string{"packages/toolroute/jsrun/bench.mjs", "packages/toolroute/ai-sdk/bench.mjs", "apps/worker/bench.mjs"}

// row is one figure of the report.
type row struct {
	section, figure, value, how string
}

func main() {
	count := flag.Int("count", 5, "runs of each benchmark; the report gives the median")
	out := flag.String("out", "BENCHMARKS.md", "the file to write")
	sizes := flag.Bool("sizes", false, "measure the sizes alone (the module's, the browser UI's and a first visit's), running no benchmark: print them and rewrite the browser UI's section of -out, whose figures are sizes alone")
	search := flag.Bool("search", false, "measure tool search alone and rewrite its section of -out, leaving the other figures as they are")
	tokens := flag.Bool("tokens", false, "count the tokens alone (counts, not timings: a busy machine gives the same) and rewrite their section of -out, leaving the other figures as they are")
	startup := flag.Bool("startup", false, "measure start-up alone (a plain openai-go agent and the same agent through toolroute, each a new process, -count times) and rewrite its section of -out, leaving the other figures as they are")
	memory := flag.Bool("memory", false, "measure serve's memory over three rounds of load alone (about six minutes) and rewrite its section of -out, leaving the other figures as they are")
	flag.StringVar(&metatool, "metatool", searcheval.Dir(), "the folder of MetaTool's development data, for the tool search figures (default: $"+searcheval.EnvDir+")")
	flag.Parse()
	if *startup {
		if err := updateStartup(*count, *out); err != nil {
			fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *memory {
		if err := updateMemory(*out); err != nil {
			fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *tokens {
		if err := updateTokens(*out); err != nil {
			fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *search {
		if err := updateSearch(*count, *out); err != nil {
			fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *sizes {
		if err := printSizes(*out); err != nil {
			fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := report(*count, *out); err != nil {
		fmt.Fprintf(os.Stderr, "benchreport: %v\n", err)
		os.Exit(1)
	}
}

// metatool is the folder of MetaTool's data.
var metatool string

// updateSearch measures tool search and puts its section into the report
// at out, written by an earlier make bench.
func updateSearch(count int, out string) error {
	rows, err := searchRows(count, metatool)
	if err != nil {
		return err
	}
	table := render(rows)
	fmt.Print(table)
	doc, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("%v: run make bench first", err)
	}
	return os.WriteFile(out, []byte(replaceSection(string(doc), table, notes)), 0o644)
}

// updateTokens counts the tokens and puts their section into the report at
// out, written by an earlier make bench.
func updateTokens(out string) error {
	rows, err := tokenRows()
	if err != nil {
		return err
	}
	table := render(rows)
	fmt.Print(table)
	doc, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("%v: run make bench first", err)
	}
	return os.WriteFile(out, []byte(replaceSection(string(doc), table, notes)), 0o644)
}

// printSizes prints the rows that measure files, in seconds: after a
// change to the UI, before a whole make bench. The browser UI's section
// holds sizes alone, which no run changes, so it is rewritten in out; the
// module's size stays in "The module" beside its timings, which only a
// whole make bench rewrites.
func printSizes(out string) error {
	rows, err := moduleRows()
	if err != nil {
		return err
	}
	ui, err := uiRows(webui.Files, wasm.Binary)
	if err != nil {
		return err
	}
	visit, err := firstVisitRows(webui.Files, wasm.Binary)
	if err != nil {
		return err
	}
	fmt.Print(render(append(append(rows, ui...), visit...)))
	doc, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("%v: run make bench first", err)
	}
	return os.WriteFile(out, []byte(replaceSection(string(doc), render(append(ui, visit...)), notes)), 0o644)
}

func report(count int, out string) error {
	var rows []row
	tok, err := tokenRows()
	if err != nil {
		return err
	}
	rows = append(rows, tok...)
	cache, err := cacheRows()
	if err != nil {
		return err
	}
	rows = append(rows, cache...)
	results := map[string]map[string][]float64{} // benchmark -> unit -> values
	var order []string
	how := map[string]string{} // benchmark -> the command that measures it
	// measure runs cmd and adds the benchmarks it prints.
	measure := func(cmd *exec.Cmd, howOf func(name string) string) error {
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, buf.String())
		}
		for name, units := range parse(buf.String(), &order) {
			how[name] = howOf(name)
			if results[name] == nil {
				results[name] = map[string][]float64{}
			}
			for u, v := range units {
				results[name][u] = append(results[name][u], v...)
			}
		}
		return nil
	}
	for _, r := range runs {
		fmt.Fprintf(os.Stderr, "benchreport: go test %s -bench '%s' -count %d\n", r.pkg, r.bench, count)
		cmd := exec.Command("go", "test", r.pkg, "-run", "^$", "-bench", r.bench, "-benchtime", r.benchtime, "-count", strconv.Itoa(count), "-benchmem")
		err := measure(cmd, func(name string) string {
			return fmt.Sprintf("go test %s -run '^$' -bench '%s' -benchtime %s -count %d", r.pkg, benchPattern(name), r.benchtime, count)
		})
		if err != nil {
			return err
		}
	}
	// The module's JSON codecs in wasm: registry/wire's tests built for
	// wasip1 and run under wazero's command, one process per run, so each
	// run's first call is a new instance's.
	wireTest := filepath.Join(os.TempDir(), "toolroute-wire-bench.wasm")
	build := exec.Command("go", "test", "-c", "-o", wireTest, "./registry/wire")
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOEXPERIMENT=jsonv2")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building registry/wire's tests for wasip1: %v", err)
	}
	defer os.Remove(wireTest)
	fmt.Fprintf(os.Stderr, "benchreport: registry/wire -bench Codec in wazero, %d runs\n", count)
	for range count {
		cmd := exec.Command("go", "run", "github.com/tetratelabs/wazero/cmd/wazero", "run", wireTest, "-test.run", "^$", "-test.bench", "Codec", "-test.benchmem")
		err := measure(cmd, func(string) string {
			return "GOEXPERIMENT=jsonv2 GOOS=wasip1 GOARCH=wasm go test -c ./registry/wire, run under `go run github.com/tetratelabs/wazero/cmd/wazero run` with -test.bench Codec"
		})
		if err != nil {
			return err
		}
	}
	for _, script := range nodeRuns {
		fmt.Fprintf(os.Stderr, "benchreport: node %s -count %d (in web/)\n", script, count)
		cmd := exec.Command("node", script, "-count", strconv.Itoa(count))
		cmd.Dir = "web"
		err := measure(cmd, func(string) string { return fmt.Sprintf("cd web && node %s -count %d", script, count) })
		if err != nil {
			return err
		}
	}
	rows = append(rows, benchRows(results, order, how)...)
	mod, err := moduleRows()
	if err != nil {
		return err
	}
	rows = append(rows, mod...)
	ui, err := uiRows(webui.Files, wasm.Binary)
	if err != nil {
		return err
	}
	rows = append(rows, ui...)
	visit, err := firstVisitRows(webui.Files, wasm.Binary)
	if err != nil {
		return err
	}
	rows = append(rows, visit...)
	fmt.Fprintf(os.Stderr, "benchreport: toolroute search on %s, %d runs\n", metatool, count)
	search, err := searchRows(count, metatool)
	if err != nil {
		return err
	}
	rows = append(rows, search...)
	fmt.Fprintf(os.Stderr, "benchreport: start-up, %d starts of each program\n", count)
	startup, err := startupRows(count)
	if err != nil {
		return err
	}
	rows = append(rows, startup...)
	budget, err := budgetRows()
	if err != nil {
		return err
	}
	rows = append(rows, budget...)
	mem, err := measureMemory()
	if err != nil {
		return err
	}
	rows = append(rows, mem...)

	table := render(rows)
	fmt.Print(table)
	doc := "# Benchmarks\n\nWritten by `make bench` (`go run ./internal/benchreport`); every timed figure is the median of " +
		strconv.Itoa(count) + " runs.\n\n" + machine() + "\n" + table + notes
	return os.WriteFile(out, []byte(doc), 0o644)
}

// benchPattern is the -bench pattern that runs the benchmark named name
// (BenchmarkX/sub/sub) alone: go test matches each level of a name with
// its own part of the pattern, unanchored, so each part is anchored
// ("tools=100" alone would run tools=1000 too).
func benchPattern(name string) string {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

// parse reads `go test -bench` output: per benchmark (the -N suffix
// removed), every value of every unit.
func parse(text string, order *[]string) map[string]map[string][]float64 {
	out := map[string]map[string][]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		if out[name] == nil {
			out[name] = map[string][]float64{}
			if !slices.Contains(*order, name) {
				*order = append(*order, name)
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err == nil {
				out[name][f[i+1]] = append(out[name][f[i+1]], v)
			}
		}
	}
	return out
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// duration shows nanoseconds readably.
func duration(ns float64) string {
	return time.Duration(ns).Round(time.Duration(max(1, roundTo(ns)))).String()
}

func roundTo(ns float64) float64 {
	switch {
	case ns >= 1e9:
		return 1e7
	case ns >= 1e6:
		return 1e4
	case ns >= 1e3:
		return 10
	}
	return 1
}

func bytesOf(n float64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f B", n)
}

// benchRows turns the benchmarks into figures, in the order they ran, with
// the wasm/native ratios beside the wasm figures.
func benchRows(results map[string]map[string][]float64, order []string, how map[string]string) []row {
	section := func(name string) string {
		switch {
		case strings.HasPrefix(name, "BenchmarkStartTurn"), strings.HasPrefix(name, "BenchmarkLoadGroupStep"), strings.HasPrefix(name, "BenchmarkCatalogue"), strings.HasPrefix(name, "BenchmarkTurn/"), strings.HasPrefix(name, "BenchmarkFirstCall"), strings.HasPrefix(name, "BenchmarkCheck/"):
			return "2. The core through wasm"
		case strings.HasPrefix(name, "BenchmarkCompile"), strings.HasPrefix(name, "BenchmarkInstantiate"), strings.HasPrefix(name, "BenchmarkMemoryAfter1000Turns"), strings.HasPrefix(name, "BenchmarkStart/"), strings.HasPrefix(name, "BenchmarkStartMemory"), strings.HasPrefix(name, "BenchmarkCodec/"):
			return "4. The module"
		case strings.HasPrefix(name, "BenchmarkWorker"):
			return "9. The edge worker in workerd"
		case strings.HasPrefix(name, "BenchmarkMCP"):
			return "12. MCP servers"
		case strings.HasPrefix(name, "BenchmarkAISDK"):
			return "13. The AI SDK adapter"
		case strings.HasPrefix(name, "BenchmarkThroughput"), strings.HasPrefix(name, "BenchmarkTurnWrites"), strings.HasPrefix(name, "BenchmarkMessages/"):
			return "5. Throughput"
		}
		return "3. JS tools"
	}
	var rows []row
	for _, name := range order {
		units := results[name]
		var parts []string
		if ns := units["ns/op"]; len(ns) > 0 {
			parts = append(parts, duration(median(ns))+"/op")
			// Ratios: wasm against native, the instance keeping the
			// session against the whole history, a timeout mechanism
			// against none.
			for _, vs := range [][2]string{{"/wasm", "/native"}, {"/wasm-kept", "/wasm"}, {"/wasm-copy", "/wasm"}, {"/interrupt-handler", "/none"}, {"/hard-stop", "/none"}, {"/thread", "/here"}, {"/close-on-context-done", "/none"}, {"/poll-every-10000-ops", "/none"}, {"/encoding-json", "/hand"}, {"/encoding-json-v2", "/hand"}, {"/lazy", "/eager"}, {"/session", "/whole-history"}} {
				base, ok := strings.CutSuffix(name, vs[0])
				if other := results[base+vs[1]]; ok && len(other["ns/op"]) > 0 {
					r := median(ns) / median(other["ns/op"])
					if r < 0.5 {
						parts = append(parts, fmt.Sprintf("1/%.0f of %s", 1/r, strings.TrimPrefix(vs[1], "/")))
					} else {
						parts = append(parts, fmt.Sprintf("%.1fx %s", r, strings.TrimPrefix(vs[1], "/")))
					}
				}
			}
		}
		extra := make([]string, 0, len(units))
		for u := range units {
			if u != "ns/op" && u != "B/op" && u != "allocs/op" && u != "MB/s" {
				extra = append(extra, u)
			}
		}
		slices.Sort(extra)
		for _, u := range extra {
			v := median(units[u])
			switch {
			case u == "cpu-ns/op":
				parts = append(parts, duration(v)+" CPU/op")
			case strings.HasSuffix(u, "-ns"):
				// A time beside the per-op one: cold-first-turns-ns
				// reads "12.3ms cold first turns".
				parts = append(parts, duration(v)+" "+strings.ReplaceAll(strings.TrimSuffix(u, "-ns"), "-", " "))
			case strings.Contains(u, "bytes"):
				parts = append(parts, bytesOf(v)+" "+strings.TrimSuffix(strings.TrimSuffix(u, "-bytes"), "bytes"))
			case strings.HasSuffix(u, "/s"):
				parts = append(parts, fmt.Sprintf("%.0f %s", v, u))
			default:
				parts = append(parts, fmt.Sprintf("%.3g %s", v, u))
			}
		}
		if b := units["B/op"]; len(b) > 0 {
			parts = append(parts, bytesOf(median(b))+" allocated/op")
		}
		rows = append(rows, row{section(name), strings.TrimPrefix(name, "Benchmark"), strings.Join(parts, ", "), fmt.Sprintf("`%s` (%d runs)", how[name], len(units["ns/op"]))})
	}
	return rows
}

// cacheRows measures, for each format and routing, how much of each model
// request the previous one's cached prefix covers (internal/cachebench):
// the same scripted conversation through the turn engine, no clock.
// builtinRegistry is the registry of the built-in JS catalogue, as the
// scripted conversations use it.
func builtinRegistry() (*registry.Registry, error) {
	reg := registry.New()
	folder, err := catalog.ReadFolder(manifests.FS, "builtin", false)
	if err != nil {
		return nil, err
	}
	folder.Load(reg)
	return reg, nil
}

func cacheRows() ([]row, error) {
	reg, err := builtinRegistry()
	if err != nil {
		return nil, err
	}
	how := "internal/cachebench: " + strconv.Itoa(len(cachebench.Script)) + " scripted turns loading google_calendar, google_gmail and google_drive on the built-in JS catalogue, through the turn engine; each request against the previous one, in the provider's cache order (" +
		"Anthropic tools, system, messages; Responses instructions, tools, input; Chat Completions tools, messages; Gemini tools, systemInstruction, contents)"
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	var rows []row
	for _, f := range wire.Formats {
		for _, routing := range []session.Routing{session.RoutingClassic, session.RoutingNative} {
			if routing == session.RoutingNative && !wire.NativeDeferral(f) {
				continue
			}
			r, err := cachebench.Run(reg, f, routing, cachebench.Script)
			if err != nil {
				return nil, fmt.Errorf("cache preservation, %s %s: %w", f, routing, err)
			}
			low, mean, afterLoad := r.Summary(r.Sent)
			clow, _, _ := r.Summary(r.InContext)
			klow, _, kload := r.Summary(r.Kept)
			rows = append(rows, row{"7. Cache preservation", fmt.Sprintf("%s, %s routing", f, routing),
				fmt.Sprintf("of each request, the share the previous one's prefix covers: lowest %s (%s at a load), mean %s over %d calls after the first; without the deferred definitions: lowest %s. Of the previous request, the share kept: lowest %s (%s at a load)",
					pct(low), pct(afterLoad), pct(mean), len(r.Sent), pct(clow), pct(klow), pct(kload)), how})
		}
	}
	return rows, nil
}

// budgetRows measures a long conversation with and without a tool budget
// (internal/budgetbench): o200k tokens of tools per model call, loads and
// unloads, no clock.
func budgetRows() ([]row, error) {
	reg, err := builtinRegistry()
	if err != nil {
		return nil, err
	}
	var groups []string
	for _, g := range reg.AvailableGroups() {
		groups = append(groups, g.Name)
	}
	script := budgetbench.Script(groups)
	how := fmt.Sprintf("internal/budgetbench: %d scripted turns over the %d groups of the built-in JS catalogue (runs of 1 to 4 turns in a group, two times in three back to one of the last 4 used), each calling a tool of its group, loading it first when the call lacks it; o200k tokens of each call's tools array, Chat Completions, classic routing", budgetbench.Turns, len(groups))
	var rows []row
	for _, budget := range []int{0, 6000, 3000} {
		r, err := budgetbench.Run(reg, script, budget, 0)
		if err != nil {
			return nil, fmt.Errorf("tool budget %d: %w", budget, err)
		}
		name := "no budget"
		if budget > 0 {
			name = fmt.Sprintf("tool budget %s tokens", thousands(budget))
		}
		rows = append(rows, row{"10. Tool budget and compaction", name, fmt.Sprintf("tools per model call: mean %s o200k tokens, most %s; %d model calls, %d group loads, %d unloaded to fit",
			thousands(int(r.Mean()+0.5)), thousands(r.Max()), r.Calls, r.Loads, r.Unloads), how})
	}
	const window = 30000
	r, err := budgetbench.Run(reg, script, 0, window)
	if err != nil {
		return nil, fmt.Errorf("compaction: %w", err)
	}
	var sizes []string
	same := 0
	for _, c := range r.Compactions {
		sizes = append(sizes, thousands(c.Before)+" → "+thousands(c.After))
		if c.SameTools {
			same++
		}
	}
	rows = append(rows, row{"10. Tool budget and compaction", fmt.Sprintf("compaction, %s-token window", thousands(window)),
		fmt.Sprintf("%d compactions; o200k tokens of the last request before each → the first after: %s; the first call after each sends the tools loaded before it: %d of %d",
			len(r.Compactions), strings.Join(sizes, ", "), same, len(r.Compactions)),
		how + "; the model's summary is one scripted line; no budget"})
	return rows, nil
}

// thousands writes n with commas.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// countingModule is the module the token rows count the texts of,
// compiled once for the report.
var countingModule = sync.OnceValues(func() (*module.Runtime, error) {
	return module.New(context.Background(), module.Config{})
})

// tokenRows measures the built-in catalogue as `toolroute tokens` does.
func tokenRows() ([]row, error) {
	dir, err := os.MkdirTemp("", "benchreport-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	a, err := app.Open(context.Background(), app.Config{DataDir: filepath.Join(dir, "data"), ConfigDir: filepath.Join(dir, "config"),
		CacheDir: "-", NoModel: true, Watch: -1, Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	cat := a.Host.Catalogue()
	rt, err := countingModule()
	if err != nil {
		return nil, err
	}
	rep, err := schematokens.Measure(context.Background(), rt, cat)
	if err != nil {
		return nil, err
	}
	find := func(name string) schematokens.Scenario {
		for _, s := range rep.Scenarios {
			if s.Name == name {
				return s
			}
		}
		return schematokens.Scenario{}
	}
	o200 := func(s schematokens.Scenario) int { return s.Tokens[0].Tokens }
	cl100 := func(s schematokens.Scenario) int { return s.Tokens[1].Tokens }
	all, core := find(schematokens.AllTools), find(schematokens.CoreOnly)
	listing := rep.Listing.Tokens[0].Tokens
	how := "internal/schematokens on the built-in catalogue (toolroute tokens); the tools array of an OpenAI request"
	fig := func(s schematokens.Scenario, extra int) string {
		saved := 100 * float64(o200(all)-o200(s)-extra) / float64(o200(all))
		cmp := fmt.Sprintf("%.1f%% less than", saved)
		if saved < 0 {
			cmp = fmt.Sprintf("%.1f%% more than", -saved)
		}
		return fmt.Sprintf("%d tools: %d o200k_base, %d cl100k_base tokens; with the %d-token group listing, %s all tools",
			len(s.Tools), o200(s), cl100(s), extra, cmp)
	}
	rows := []row{
		{"1. Tokens", "all tools (no routing: every schema on every call)", fmt.Sprintf("%d tools: %d o200k_base, %d cl100k_base tokens per call", len(all.Tools), o200(all), cl100(all)), how},
		{"1. Tokens", "core only (the floor: core schemas plus the group listing)", fig(core, listing), how},
		{"1. Tokens", "core + google_gmail", fig(find(schematokens.CorePlus+"google_gmail"), listing), how},
	}
	several, err := schematokens.Loaded(context.Background(), rt, cat, "several", "google_gmail", "google_calendar", "google_drive")
	if err != nil {
		return nil, err
	}
	rows = append(rows,
		row{"1. Tokens", "core + gmail, calendar, drive", fig(several, listing), how},
		row{"1. Tokens", "all groups loaded", fig(find(schematokens.AllGroupsLoaded), listing), how},
		row{"1. Tokens", "the routing design's estimate", "83% less on a simple query; here a simple query sends core only", "docs/reference/routing.md"},
	)
	n, connect, err := onConnect(a)
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{"1. Tokens", "toolroute mcp: a new client's tools/list", fmt.Sprintf("%d tools: %d o200k_base tokens (load_tool_group's description holds the group listing), %.1f%% less than all tools", n, connect, 100*(1-float64(connect)/float64(o200(all)))), mcpServeHow})
	mcpRows, err := mcpTokenRows(dir)
	if err != nil {
		return nil, err
	}
	return append(rows, mcpRows...), nil
}

// mcpTokenRows measures the built-in catalogue with the three npm MCP
// servers of testdata/mcp connected over stdio (server-everything,
// server-filesystem, server-memory), as `toolroute tokens --mcp-config`
// does: every tool sent, against a routed call.
func mcpTokenRows(dir string) ([]row, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not on PATH: the npm MCP servers need it: %w", err)
	}
	script := func(name string) string {
		return filepath.Join("testdata", "mcp", "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
	}
	for _, name := range []string{"server-everything", "server-filesystem", "server-memory"} {
		if _, err := os.Stat(script(name)); err != nil {
			return nil, fmt.Errorf("the npm MCP server %s is not installed: run make mcp-servers: %w", name, err)
		}
	}
	root := filepath.Join(dir, "files")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script("server-everything"), "stdio"}},
		"filesystem": map[string]any{"command": node, "args": []string{script("server-filesystem"), root}},
		"memory":     map[string]any{"command": node, "args": []string{script("server-memory")}, "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
	}})
	if err != nil {
		return nil, err
	}
	mcpFile := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcpFile, cfg, 0o644); err != nil {
		return nil, err
	}
	a, err := app.Open(context.Background(), app.Config{DataDir: filepath.Join(dir, "mcp-data"), ConfigDir: filepath.Join(dir, "mcp-config"),
		CacheDir: "-", NoModel: true, Watch: -1, Getenv: func(string) string { return "" }, MCPConfig: mcpFile})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	for _, st := range a.MCPStatus() {
		if !st.OK() {
			return nil, fmt.Errorf("the MCP server %s did not start: %+v", st.Key, st)
		}
	}
	rt, err := countingModule()
	if err != nil {
		return nil, err
	}
	rep, err := schematokens.Measure(context.Background(), rt, a.Host.Catalogue())
	if err != nil {
		return nil, err
	}
	var all, core schematokens.Scenario
	for _, sc := range rep.Scenarios {
		switch sc.Name {
		case schematokens.AllTools:
			all = sc
		case schematokens.CoreOnly:
			core = sc
		}
	}
	listing := rep.Listing.Tokens[0].Tokens
	how := "internal/schematokens on the built-in catalogue with server-everything, -filesystem and -memory from npm connected over stdio (`toolroute tokens --mcp-config`)"
	routed := core.Tokens[0].Tokens + listing
	n, connect, err := onConnect(a)
	if err != nil {
		return nil, err
	}
	return []row{
		{"1. Tokens", "with 3 MCP servers: toolroute mcp's tools/list to a new client", fmt.Sprintf("%d tools: %d o200k_base tokens, %.1f%% less than all tools", n, connect, 100*(1-float64(connect)/float64(all.Tokens[0].Tokens))), mcpServeHow},
		{"1. Tokens", "with 3 MCP servers: all tools", fmt.Sprintf("%d tools: %d o200k_base tokens per call", len(all.Tools), all.Tokens[0].Tokens), how},
		{"1. Tokens", "with 3 MCP servers: routed (core + group listing)", fmt.Sprintf("%d tools: %d o200k_base tokens (%d + a %d-token listing), %.1f%% less than all tools",
			len(core.Tools), routed, core.Tokens[0].Tokens, listing, 100*(1-float64(routed)/float64(all.Tokens[0].Tokens))), how},
	}, nil
}

// moduleRows gives the module's size.
func moduleRows() ([]row, error) {
	raw, err := os.ReadFile("wasm/toolroute.wasm")
	if err != nil {
		return nil, fmt.Errorf("run make bench from the repository's root: %w", err)
	}
	return []row{{"4. The module", "size of wasm/toolroute.wasm", fmt.Sprintf("%d bytes raw, %d gzipped", len(raw), gzipSize(raw)), "the file, and Go's compress/gzip at level 9 (`gzip -9` gives about 1% less)"}}, nil
}

func render(rows []row) string {
	// Sections by their number ("10." after "9."), then by name.
	number := func(section string) int {
		n, _ := strconv.Atoi(section[:max(strings.Index(section, "."), 0)])
		return n
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(number(a.section), number(b.section)), strings.Compare(a.section, b.section))
	})
	var b strings.Builder
	section := ""
	for _, r := range rows {
		if r.section != section {
			section = r.section
			fmt.Fprintf(&b, "\n## %s\n\n| figure | median | how |\n| --- | --- | --- |\n", section)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.figure, r.value, r.how)
	}
	return b.String()
}

func machine() string {
	cpu := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(data)); len(f) > 1 {
			if kb, err := strconv.Atoi(f[1]); err == nil {
				mem = fmt.Sprintf(", %.0f GiB of memory", float64(kb)/(1<<20))
			}
		}
	}
	return fmt.Sprintf("Machine: %s, %d cores%s, %s/%s, %s.\n", cpu, runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

const notes = `
## Where figures miss their targets

- This machine's speed moves from run to run (a shared virtual machine
  with no hardware counters): the same code's native load step took 19
  µs of CPU in one run and 24 to 29 in others, and identical runs differ
  by 15%. The wasm/native ratios, and old and new code run alternately,
  are what a run shows; a change worth less than about 10% does not show.
  This run was a slow one: most figures are 1.3 to 2 times the last
  run's, native code that did not change included (QJSCall, the native
  catalogue loads). Run alternately with this code in the same hour, the
  code of that run (53b9fb3) took as long within the noise (a turn 0.99x,
  a turn start 0.9x, the built-in catalogue 1.1x, a warm JS call 1.15x):
  the machine was slower, not the code.
- A session's turn start on the instance that keeps it (StartTurn's
  wasm-kept, ABI v2) was to take at most 1 ms at 10,000 messages: it
  takes about 0.5 ms in this run, met. The load_tool_group step and a
  whole turn were to take at most 100 µs and 400 µs: they take about 245
  µs and 650 µs in this run (165 µs and 610 µs in a fast one), 7.6 and 10
  times native,
  the response body decoded once where it
  stands and a closing response joining the encoded conversation as the
  bytes already sent. What is left, by a count of the calls between the
  module's functions: copies of short strings and literals, string
  comparisons, about 36 allocations of some 7 runtime calls each, map
  hashing and the caches' locks (atomics are calls in wasm), with Go in
  wasm about 8 times native. Profile-guided optimisation of the
  module (a native profile of the same code as default.pgo) made it 10%
  larger and no faster, and is not used.
- The Go host with the SQLite store was to run 2,000 turns/s at 1, 8 and
  64 sessions with an instant model (ThroughputSQLite), in steady state:
  it runs about 940 at 1 session, missed, and 2,150 and 2,430 at 8 and
  64, met (the memory store 1,510, 3,580 and 4,560; in a fast run 1,060,
  2,320 and 2,940 with SQLite). Earlier runs
  timed 200 turns from a new host, so the pool's 8 instances were made
  inside the timed part (about 90 ms of 150 at 8 and 64 sessions) and
  read 1,000, 1,180 and 1,230; those first turns are now given apart
  (cold first turns: 14, 72 and 99 ms in this run). SQLite's
  code is Go now (go-sqlite3 v0.37, translated by
  wasm2go, no longer run in wazero), and one goroutine per database renews
  every turn lock it holds instead of a goroutine, a ticker and a cancel
  per turn, which took a SQLite turn's writes from 300 to 380 µs of CPU to
  about 210 in a fast run (TurnWrites; 186 in this one). A SQLite turn commits three times (its last
  append and its lock's release are one transaction), reads nothing while
  its process holds the session's lease, and runs its statements on the
  writer's connection, prepared once. At 1 session a turn is serial: the
  module's two steps, the HTTP round trip to the model server and the
  three commits follow one another, and the module and HTTP alone take
  more than the 500 µs that 2,000 turns/s allow. Merging the host's two
  appends would lose the user's message to a crash during the model call,
  so they stay apart.
  With the PostgreSQL store (ThroughputPostgres) it runs fewer: each turn
  makes five round trips to the server (take the turn lock, read the new
  messages, two appends, release the lock), two of them commits flushed to
  its disk, and the server's processes share the host's cores.
- The module was to be at most 1 MB gzipped: it is about 1.56 MB, 1.48
  before the rules the hosts had written twice moved into it (the
  toolroute_check ops: about 80 KB gzipped). The
  hand-written codecs (turns, manifests, describe) added about 90 KB
  gzipped beside encoding/json, which stays for their fallback on unusual
  input (so that they give its results and errors exactly) and for what
  runs rarely; fmt is in 25 of its files' error messages, and adds
  nothing once encoding/json is in. The Go runtime alone makes 559 KB
  gzipped of a wasip1 module. wasm-opt -Oz (binaryen 132) takes 2.4% off
  the gzipped module, not kept.
- A catalogue of 10,000 tools was to load in 300 ms, once per catalogue
  rather than once per instance: the Go host's pool loads it into its
  first instance (526 ms in this slow run, missed; 252 ms in a fast one,
  240 to 425 in others) and makes
  every further instance a copy of that instance's memory and globals
  taken just after the load (Catalogue's wasm-copy: 23 ms, 1/23 of a
  load; 7 ms for 100 tools), so
  the catalogue is decoded once. Instances alive when the catalogue
  changes each load the new one: they hold open turns and kept sessions,
  which a copy would drop.
- A warm JS tool call (CallItself) was to take 50 µs: it takes about 72
  µs in this slow run, missed (38 in a fast one, and 46 before then, when
  QuickJS's interrupt handler read the clock at every operation; the hard
  stop's counter replaced it), the
  call's outcome being read as a property rather than by evaluating a
  script. Starting the call with
  QJS_Call instead of a one-line script is no faster: qjs runs the
  promise's jobs only after an evaluation, so one is still needed.
- A cold call (ColdCall) was to take under 3 ms: it does.
- A new worker isolate's first request was to cost half the ~250 ms of
  CPU it did: it costs about 100 cpu-ms in this run, 70 in a fast one (workerd's CPU time
  comes in 10 ms steps; the medians of the five make bench runs before
  were 150, 100, 110, 190 and 160), met. Most of it was loading the
  built-in catalogue, whose manifests are now read by hand rather than by
  encoding/json's reflection (Catalogue/builtin: 19 ms in wazero; 33 to
  48 before, in alternated runs); alternated runs of apps/worker/bench.mjs
  gave medians of 120 cpu-ms before and 80 after.
- Tool search was to find the labelled tool in the top 5 for 80% of
  MetaTool's held-out queries. ` + "`toolroute search`" + ` does for
  81.3% of the development queries (81.0% on half A, where the weights
  were chosen, 81.7% on half B), met there; the held-out queries judge it.
  The Go host's search_tools ranks the same way once it has embedded its
  tools. The page's and the worker's rank in the module by BM25F and word
  vectors, 70.8% (71.7% on half B), since the encoder's weights would add
  7 MB to what they load and each tool takes it about 15 ms to embed.
- Start-up (issue 38): a Go program's first turn was to take at most 3
  times the plain openai-go app's plus 150 ms with the compiled code
  cached, and at most 2 s without; met (about 105 ms, and about 0.4 s on
  the interpreter while the compiler works in the background). Its peak
  RSS was to be at most twice the plain app's plus 40 MiB: about 73 MiB
  against 66 with the cache, missed, and about 205 without, missed. The
  module's share is wazero's: its compiled code mapped in memory (25 MB),
  the decoded module (about 10 MB) and the embedded binary's pages (6
  MB); without the cache, the interpreter's code (about 150 MB of Go
  heap) and the compile beside it. docs/design/startup.md has the
  detail.
- Start-up in Node (issue 38): the first turn of an app with createRouter
  was to take at most 1.5 times the plain AI SDK app's: 1.77x with a JS
  tool called in the turn, missed; 1.38x with host tools alone, met. The
  JS tool's share (about 70 ms) is QuickJS's first instance in a new
  worker thread, which the router starts at once but which the turn
  waits for when it calls the tool at once; the rest is the Go runtime's
  start in the module and V8 compiling its code as first reached.
  docs/design/startup-node.md has the detail.

## How to read them

- The core through wasm runs in steady state (` + "`-benchtime 1s`" + `: b.N
  iterations on a warm instance, the catalogue loaded); FirstCall is the
  first call of its kind on a new instance (made untimed), what the steady
  figures leave out. StartTurn's wasm-kept is a session's next turn on the
  instance that kept the session (ABI v2's Sessions): the fingerprint and
  no history; wasm sends the whole history. The module's other figures run
  one iteration (` + "`-benchtime 1x`" + `) five times, each with its cold start; the
  JS and throughput figures are averages over 20 and 1,000 iterations, except
  CallItself (a warm JS tool call, target 50 µs) and QJSCall (one trivial
  call into QuickJS), which run for a second each: steady state. ColdCall
  is a call on a fresh runtime, its first. Catalogue's tools=N are
  catalogues of N tools given as definitions; its builtin is the built-in
  JS tools given as their manifests' text, as the browser and the worker
  load them at their start (` + "`toolroute export --builtin`" + `).
- HardStop is what the Go host's hard stop costs (the stack check, and the
  counter at loop headers and recursive functions' entries that makes
  every JS call end at its deadline, native code included), in steady
  state: each workload runs 40 times on a warm runtime of each of three
  modules in turn, so its ratios come from one run. ns/op is the runner's
  module; "plain" is the same patch without the hard stop (no stack check,
  no way to stop a call); "close on context done" is that module with
  wazero's WithCloseOnContextDone, the other way to stop a call.
  hard-stop/plain and close-on-context-done/plain are the ratios.
  trivial-loop is the worst case (300,000 turns of a trivial loop),
  native-work JSON, a sort and a regular expression on 5,000 objects,
  tool-call a call of the 15 KB tool as CallItself makes it.
- JSTrivialLoop is the JS hosts' QuickJS (quickjs-emscripten, in Node): one
  loop of 10 million trivial turns, the worst case for the interrupt handler
  polled at every operation (interrupt-handler) against the package's build
  with no handler and with the handler polled every 10,000 operations;
  hard-stop adds the countdown at every loop turn of QuickJS's C code
  (web/packages/toolroute/jsrun/hardstop.js): what the JS hosts' runner does. JSNativeLoop is built-in
  calls that loop in C (indexOf, JSON.stringify, sort), the worst case for
  the hard stop. JSCall and JSBridgeCalls are whole JS Runner calls (web/packages/toolroute/jsrun)
  in Node, a trivial one and one making 1,000 synchronous bridge calls, on
  the caller's thread (here) and in a kept worker thread (thread, what the
  Runner does in Node, so that signals and cancels are seen at once).
- "The AI SDK adapter" is web/packages/toolroute/ai-sdk/bench.mjs in
  Node: an app's generateText loop (a scripted model: a tool call, then
  the answer) on conversations of 4, 400 and 4,000 messages, the module
  keeping the session's state between steps and turns. AISDKPrepareStep's
  session is a session's prepareStep (a turn's mean, the median over 20
  turns); whole-history is what describing the whole conversation costs,
  as every step did before the adapter kept sessions. AISDKTurn is all the
  router does in such a turn: both prepareSteps and the tool call's
  execute. module-messages/step is how many of the conversation's
  messages the module is given per step. The router asks the module for
  no request body (no_body): built, it would be the whole conversation,
  at each model call the module asks for.
- "Throughput" is the Go host against a local server answering every call at
  once: the figure is the host's own cost, model latency left out; each
  session's history grows with its turns. It is the steady state: each
  session's first turn, all sessions at once on a new host, runs before
  the timed turns and is given apart ("cold first turns": the pool makes
  its instances, the store its sessions), and the 1,000 timed turns
  follow. ThroughputSQLite is the same with
  the program's SQLite store (a new file per run) instead of a MemoryStore,
  ThroughputPostgres with the PostgreSQL store (a server of its own on a
  unix socket of the same machine, fsync and synchronous_commit on, a new
  database per run; its processes share the machine's cores with the
  host);
  TurnWrites is that store alone doing its part of a text-only turn (take
  the turn lock, read the messages logged since, append the user's message,
  append the reply and release the lock in one commit) from K sessions at
  once. cpu-ns/op in these is the process's CPU time per turn, all threads:
  on a shared machine it moves less than the wall time. Messages
  reads a 10,000-message log as a turn does: uncached, and cached after a
  turn appended two messages (the store decodes only those).
- "The edge worker in workerd" runs web/apps/worker's build in workerd from npm
  against a scripted model on loopback; each run is a new workerd process.
  WorkerStartup is its CPU time from its start to its socket answering:
  workerd's own start and the worker's script evaluated, a cost a new
  isolate pays before its first request. WorkerFirstRequest is that first
  request (GET /api/health: the module instantiated, the catalogue loaded);
  then the means of 10 warm describes and 10 turns. cpu-ms is workerd's
  process CPU time from /proc, in 10 ms ticks, background compilation
  included.
- "Cache preservation" is bytes, not tokens, and exact: no timing, the same
  on every run. "The share the previous one's prefix covers" is of the new
  request (new bytes at its end, a tool result or a loaded group's
  definitions, lower it without losing anything cached); "the share kept"
  is of the previous request, which is what a provider's cache can reuse:
  native routing keeps all of it, classic loses what follows the tools at
  each load. The deferred definitions are sent on every call but kept out
  of the model's context until loaded; the Responses API injects a loaded
  group's definitions at the end of the input, so its loads add new bytes.
- "all groups loaded" costs a little more than "all tools": it adds
  load_tool_group's schema. Routing saves when a conversation needs few groups.
- "Tool search" runs the program as the held-out queries will be judged,
  one query a line on standard input. Half A is the development queries at
  odd lines of queries-dev.csv, half B at even ones; the weights (and
  BM25F's constants) were chosen on A, so B shows how far they hold on
  queries they were not fitted to. Two-tool queries never count at 1.
- "The browser UI" is sizes, not timings, of the build the program serves:
  initial is what the page fetches as it opens (worker.js holds the module
  driver, the session loop, QuickJS's runner and the MCP client); the rest
  loads when first used. Gzipped is what a server that compresses would
  send: serve, on loopback, sends the files as they are.
- "Endurance" is one ` + "`toolroute serve`" + ` (SQLite, its default
  --release-idle) run by internal/soak against a local model server:
  64 sessions at once send turns for 80 s (plain answers, JS tool calls,
  turns whose client leaves during the model call or a 10 s tool call,
  approvals left unanswered; a new session every 10 turns, every other
  old one deleted), then nothing for 40 s, three times. RSS is read from
  /proc at the end of each idle, before the live heap (a collection
  forced by the heap profile of --debug-addr). It runs once (about six
  minutes), whatever the count; ` + "`make bench-memory`" + ` runs it alone and
  rewrites its section.
`

const mcpServeHow = "internal/mcpserve (`toolroute mcp`) on the same catalogue, its tools/list to a Go SDK client, counted as `toolroute tokens` counts (the tools array of an OpenAI request)"

// onConnect counts what `toolroute mcp` lists to a new client of a's host:
// its tools, and the o200k_base tokens of their OpenAI tools array.
func onConnect(a *app.App) (int, int, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- mcpserve.New(a.Host, mcpserve.Options{}).Run(ctx, st) }()
	defer func() { cancel(); <-done }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "benchreport", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return 0, 0, err
	}
	defer cs.Close()
	var defs []wire.ToolDef
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return 0, 0, err
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return 0, 0, err
		}
		defs = append(defs, wire.ToolDef{Name: t.Name, Description: t.Description, Parameters: schema})
	}
	text, err := wire.OpenAIToolsJSON(defs)
	if err != nil {
		return 0, 0, err
	}
	n, err := tokens.Count(tokens.O200kBase, text)
	return len(defs), n, err
}
