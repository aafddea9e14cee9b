package startbench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The medians and the targets are issue 38's arithmetic on the plain
// app's figures.
func TestMedianAndTargets(t *testing.T) {
	f := Figures{Plain: {{30 * time.Millisecond, 3 << 20}, {10 * time.Millisecond, 1 << 20}, {20 * time.Millisecond, 2 << 20}}}
	turn, peak := f.Median(Plain)
	if turn != 20*time.Millisecond || peak != 2<<20 {
		t.Errorf("median %v, %d", turn, peak)
	}
	if turn, peak := f.Median(Cached); turn != 0 || peak != 0 {
		t.Errorf("the median of no runs: %v, %d", turn, peak)
	}
	cached, uncached, rss := Targets(20*time.Millisecond, 2<<20)
	if cached != 210*time.Millisecond || uncached != 2*time.Second || rss != 44<<20 {
		t.Errorf("targets %v, %v, %d", cached, uncached, rss)
	}
}

// Each program runs its first turn to the end, in each kind of start,
// and says so with its peak memory (how long it took is make bench's).
func TestMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the programs")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	figs, err := Measure(context.Background(), root, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Cases {
		if runs := figs[c]; len(runs) != 1 || runs[0].PeakBytes <= 0 || runs[0].FirstTurn <= 0 {
			t.Errorf("%s: %+v", c, runs)
		}
	}
}
