// Package startbench measures what a Go program pays at start for
// toolroute (issue 38): the same agent written plainly with the openai-go
// SDK (./plain) and through toolroute's public API (./routed), each
// started as a new process that runs one turn against a local stand-in
// for the model (internal/fakemodel), with toolroute's compiled code in a
// kept cache folder and in a new one at every start (a container with a
// throwaway home). It reports the first turn's wall time, from the
// process's start to the end of its first turn, and the process's peak
// resident memory by then.
//
// `make bench` runs it through internal/benchreport (-startup alone).
package startbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolroute/toolroute/internal/fakemodel"
	"github.com/toolroute/toolroute/internal/startbench/probe"
)

// Case names a kind of start.
type Case string

const (
	// Plain is the agent without toolroute.
	Plain Case = "plain openai-go app"
	// Cached is the toolroute agent with its compiled code in the cache.
	Cached Case = "toolroute, compiled code cached"
	// Uncached is the toolroute agent in a new home: nothing cached.
	Uncached Case = "toolroute, nothing cached (new home)"
)

// Cases are the starts measured, in order.
var Cases = []Case{Plain, Cached, Uncached}

// Run is one start: the first turn's wall time and the peak RSS by then.
type Run struct {
	FirstTurn time.Duration
	PeakBytes int64
}

// Figures are each case's runs.
type Figures map[Case][]Run

// Median is the median first turn and peak RSS of c's runs.
func (f Figures) Median(c Case) (time.Duration, int64) {
	runs := f[c]
	if len(runs) == 0 {
		return 0, 0
	}
	ts := make([]time.Duration, len(runs))
	ms := make([]int64, len(runs))
	for i, r := range runs {
		ts[i], ms[i] = r.FirstTurn, r.PeakBytes
	}
	slices.Sort(ts)
	slices.Sort(ms)
	return ts[len(ts)/2], ms[len(ms)/2]
}

// Targets are issue 38's, against the plain app's medians of the same
// run: the first turn with the cache at most 3x plus 150 ms, without it
// at most 2 s; peak RSS at most 2x plus 40 MiB.
func Targets(plainTurn time.Duration, plainPeak int64) (cachedTurn, uncachedTurn time.Duration, peak int64) {
	return 3*plainTurn + 150*time.Millisecond, 2 * time.Second, 2*plainPeak + 40<<20
}

// Measure builds the programs from the module at root (go build), and
// starts each case n times, interleaved, after one start of each that
// fills the cache and warms the disk. log receives progress.
func Measure(ctx context.Context, root string, n int, log io.Writer) (Figures, error) {
	dir, err := os.MkdirTemp("", "toolroute-startbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bins := map[string]string{}
	for _, pkg := range []string{"./internal/startbench/plain", "./internal/startbench/routed", "./internal/mcptest/testserver"} {
		out := filepath.Join(dir, filepath.Base(pkg))
		fmt.Fprintf(log, "startbench: go build %s\n", pkg)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, log, log
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build %s: %w", pkg, err)
		}
		bins[filepath.Base(pkg)] = out
	}
	model := fakemodel.NewFunc(fakemodel.OpenAI, func(fakemodel.Request) fakemodel.Reply { return fakemodel.Text("Hello! How can I help?") })
	defer model.Close()
	args := []string{"-base-url", model.BaseURL(), "-mcp", bins["testserver"]}
	kept := filepath.Join(dir, "kept-home")
	homes := 0
	start := func(c Case) (Run, error) {
		home := kept
		prog := bins["routed"]
		switch c {
		case Plain:
			prog = bins["plain"]
		case Uncached:
			homes++
			home = filepath.Join(dir, "home-"+strconv.Itoa(homes))
		}
		defer func() {
			if home != kept {
				os.RemoveAll(home)
			}
		}()
		return startOne(ctx, prog, args, home)
	}
	figs := Figures{}
	for round := -1; round < n; round++ {
		for _, c := range Cases {
			r, err := start(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c, err)
			}
			if round >= 0 {
				figs[c] = append(figs[c], r)
				fmt.Fprintf(log, "startbench: %s: first turn %v, peak RSS %.0f MiB\n", c, r.FirstTurn.Round(time.Millisecond), float64(r.PeakBytes)/(1<<20))
			}
		}
	}
	return figs, nil
}

// startOne starts prog with home as its HOME (and its cache folder in it),
// and times it until it prints its first turn's line.
func startOne(ctx context.Context, prog string, args []string, home string) (Run, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return Run{}, err
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Run{}, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return Run{}, err
	}
	var r Run
	found := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), probe.Marker+" ")
		if !ok || found {
			continue
		}
		r.FirstTurn = time.Since(t0)
		kb, _, _ := strings.Cut(rest, " ")
		v, err := strconv.ParseInt(kb, 10, 64)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return Run{}, fmt.Errorf("bad line %q", sc.Text())
		}
		r.PeakBytes, found = v<<10, true
	}
	if err := cmd.Wait(); err != nil {
		return Run{}, fmt.Errorf("%v: %s", err, stderr.String())
	}
	if !found {
		return Run{}, errors.New("the program printed no first turn: " + stderr.String())
	}
	return r, nil
}
