package budgetbench

import (
	"slices"
	"testing"

	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
)

func builtin(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registry.New()
	folder, err := catalog.ReadFolder(manifests.FS, "builtin", false)
	if err != nil {
		t.Fatal(err)
	}
	folder.Load(reg)
	return reg
}

// The script touches the 12 groups; with a budget every call's tools stay
// under it (the estimate is within a few percent of o200k), the mean
// falls, and groups are unloaded and loaded again; without one nothing is
// unloaded and the last call sends every group used.
func TestBudget(t *testing.T) {
	reg := builtin(t)
	var groups []string
	for _, g := range reg.AvailableGroups() {
		groups = append(groups, g.Name)
	}
	script := Script(groups)
	used := slices.Compact(slices.Sorted(slices.Values(script)))
	if len(script) != Turns || len(used) != len(groups) {
		t.Fatalf("the script has %d turns over %d of the %d groups", len(script), len(used), len(groups))
	}
	free, err := Run(reg, script, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 6000
	capped, err := Run(reg, script, budget, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("without: %d calls, mean %.0f, max %d, %d loads; with %d: %d calls, mean %.0f, max %d, %d loads, %d unloads",
		free.Calls, free.Mean(), free.Max(), free.Loads, budget, capped.Calls, capped.Mean(), capped.Max(), capped.Loads, capped.Unloads)
	if free.Unloads != 0 || free.Loads != len(groups) {
		t.Errorf("without a budget: %d loads, %d unloads; want one load per group and none", free.Loads, free.Unloads)
	}
	if capped.Max() > budget*105/100 {
		t.Errorf("with a budget of %d a call sent %d tokens of tools", budget, capped.Max())
	}
	if capped.Mean() >= free.Mean() || capped.Unloads == 0 || capped.Loads <= free.Loads {
		t.Errorf("the budget changed nothing: mean %.0f against %.0f, %d unloads", capped.Mean(), free.Mean(), capped.Unloads)
	}
}

// With a context window the long conversation is compacted: each request
// after a summary is smaller than the one before it and sends the same
// tools.
func TestCompaction(t *testing.T) {
	reg := builtin(t)
	var groups []string
	for _, g := range reg.AvailableGroups() {
		groups = append(groups, g.Name)
	}
	r, err := Run(reg, Script(groups), 0, 30000)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Compactions) == 0 {
		t.Fatal("200 turns in a 30,000-token window were never compacted")
	}
	for i, c := range r.Compactions {
		t.Logf("compaction %d: %d -> %d tokens", i+1, c.Before, c.After)
		if !c.SameTools || c.After >= c.Before {
			t.Errorf("compaction %d: %+v; want a smaller request with the same tools", i+1, c)
		}
	}
}
