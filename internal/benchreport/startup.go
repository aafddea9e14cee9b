package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolroute/toolroute/internal/startbench"
)

const startupSection = "13. Start-up"

// startupRows starts the plain openai-go agent and the same agent through
// toolroute as new processes, count times each (internal/startbench), and
// gives the medians against issue 38's targets, taken from the plain
// app's figures of the same run.
func startupRows(count int) ([]row, error) {
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	figs, err := startbench.Measure(context.Background(), root, count, os.Stderr)
	if err != nil {
		return nil, err
	}
	how := fmt.Sprintf("`go run ./internal/benchreport -startup -count %d` (internal/startbench: each a new process, one Chat Completions turn against internal/fakemodel, a native tool, a JS tool and an MCP server over stdio; peak RSS is VmHWM at the end of the turn)", count)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	mib := func(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "missed"
	}
	plainTurn, plainPeak := figs.Median(startbench.Plain)
	cachedTurn, cachedPeak := figs.Median(startbench.Cached)
	coldTurn, coldPeak := figs.Median(startbench.Uncached)
	wantCached, wantCold, wantPeak := startbench.Targets(plainTurn, plainPeak)
	return []row{
		{startupSection, "first turn of a new process: " + string(startbench.Plain), ms(plainTurn) + ", peak RSS " + mib(plainPeak), how},
		{startupSection, "first turn of a new process: " + string(startbench.Cached),
			fmt.Sprintf("%s (target: at most %s, %s), peak RSS %s (target: at most %s, %s)", ms(cachedTurn), ms(wantCached), verdict(cachedTurn <= wantCached), mib(cachedPeak), mib(wantPeak), verdict(cachedPeak <= wantPeak)), how},
		{startupSection, "first turn of a new process: " + string(startbench.Uncached),
			fmt.Sprintf("%s (target: at most %s, %s), peak RSS %s (target: at most %s, %s)", ms(coldTurn), ms(wantCold), verdict(coldTurn <= wantCold), mib(coldPeak), mib(wantPeak), verdict(coldPeak <= wantPeak)), how},
	}, nil
}

// updateStartup measures start-up and puts its section into the report at
// out, written by an earlier make bench.
func updateStartup(count int, out string) error {
	rows, err := startupRows(count)
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
