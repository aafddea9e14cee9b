package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// memoryRun is the soak of issue 34 (internal/soak): one `toolroute
// serve` loaded by 64 sessions for 80 s, then idle for 40 s, three times.
// It takes about six minutes, so it runs once whatever -count says, with
// go test's time limit raised to fit a busy machine.
var memoryRun = run{"./cmd/toolroute", "ServeMemory", "1x"}

const memorySection = "11. Endurance"

// memoryCommand is the go test command that runs the soak once.
func memoryCommand() *exec.Cmd {
	return exec.Command("go", "test", memoryRun.pkg, "-run", "^$", "-bench", memoryRun.bench, "-benchtime", memoryRun.benchtime, "-count", "1", "-timeout", "40m")
}

// memoryHow is the command the rows name.
func memoryHow() string {
	return fmt.Sprintf("`go test %s -run '^$' -bench %s -benchtime %s -timeout 40m` (internal/soak; 1 run)", memoryRun.pkg, benchPattern("BenchmarkServeMemory"), memoryRun.benchtime)
}

// memoryRows turns BenchmarkServeMemory's metrics into the section's rows:
// serve's resident memory, live heap and goroutines at the start and at
// the end of each round's idle, and the load a round gave.
func memoryRows(units map[string][]float64, how string) []row {
	val := func(unit string) (float64, bool) {
		v := units[unit]
		return median(v), len(v) > 0
	}
	mib := func(b float64) string { return fmt.Sprintf("%.0f", b/(1<<20)) }
	count := func(n float64) string { return fmt.Sprintf("%.0f", n) }
	// series is "start → after round 1, 2, ..." of one measure.
	series := func(start, round string, show func(float64) string) ([]float64, string) {
		var vs []float64
		for i := 1; ; i++ {
			v, ok := val(fmt.Sprintf(round, i))
			if !ok {
				break
			}
			vs = append(vs, v)
		}
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = show(v)
		}
		text := strings.Join(parts, ", ")
		if s, ok := val(start); ok {
			text = "at start " + show(s) + "; after rounds 1 to " + strconv.Itoa(len(vs)) + ": " + text
		}
		return vs, text
	}
	rss, rssText := series("rss-at-start-bytes", "rss-after-round-%d-bytes", mib)
	if len(rss) == 0 {
		return nil
	}
	// The goal of issue 34: after each round, no more than 20% above the
	// first round's.
	verdict := ""
	if len(rss) > 1 {
		met := true
		changes := make([]string, len(rss)-1)
		for i, v := range rss[1:] {
			changes[i] = fmt.Sprintf("%+.0f%%", 100*(v/rss[0]-1))
			met = met && v <= 1.2*rss[0]
		}
		verdict = fmt.Sprintf("; rounds 2 to %d against round 1: %s (target: at most +20%%, %s)", len(rss), strings.Join(changes, ", "), map[bool]string{true: "met", false: "missed"}[met])
	}
	_, peakText := series("", "peak-rss-round-%d-bytes", mib)
	_, heapText := series("live-heap-at-start-bytes", "live-heap-after-round-%d-bytes", mib)
	_, goText := series("goroutines-at-start", "goroutines-after-round-%d", count)
	turns, _ := val("turns/round")
	sessions, _ := val("new-sessions/round")
	return []row{
		{memorySection, "serve's resident memory (RSS) after each of three rounds of load", rssText + " MiB, each at the end of the round's idle" + verdict, how},
		{memorySection, "serve's peak RSS during each round's load", peakText + " MiB", how},
		{memorySection, "serve's live heap after a collection, and its goroutines", heapText + " MiB of live heap; " + goText + " goroutines", how},
		{memorySection, "a round's load", fmt.Sprintf("%.0f turns and %.0f new sessions a round (mean)", turns, sessions), how},
	}
}

// updateMemory runs the soak and puts its section into the report at out,
// written by an earlier make bench.
func updateMemory(out string) error {
	doc, err := os.ReadFile(out)
	if err != nil {
		return fmt.Errorf("%v: run make bench first", err)
	}
	rows, err := measureMemory()
	if err != nil {
		return err
	}
	table := render(rows)
	fmt.Print(table)
	return os.WriteFile(out, []byte(replaceSection(string(doc), table, notes)), 0o644)
}

// measureMemory runs the soak once and gives its rows.
func measureMemory() ([]row, error) {
	fmt.Fprintf(os.Stderr, "benchreport: go test %s -bench %s, once (about six minutes)\n", memoryRun.pkg, memoryRun.bench)
	cmd := memoryCommand()
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, buf.String())
	}
	var order []string
	units := parse(buf.String(), &order)["BenchmarkServeMemory"]
	rows := memoryRows(units, memoryHow())
	if rows == nil {
		return nil, fmt.Errorf("BenchmarkServeMemory reported no RSS:\n%s", buf.String())
	}
	return rows, nil
}
