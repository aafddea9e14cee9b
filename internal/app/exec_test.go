package app

import (
	"slices"
	"testing"

	"github.com/toolroute/toolroute/registry"
)

// exec is a core tool of the Go program when Config.Exec asks for it, and
// never in the catalogue a browser gets (the page cannot run it, and the
// server does not run it for the page).
func TestExecOffered(t *testing.T) {
	names := func(tools []registry.Tool) []string {
		var out []string
		for _, tl := range tools {
			out = append(out, tl.Name)
		}
		return out
	}
	off := open(t, testConfig(t))
	if slices.Contains(names(off.Host.Catalogue().Tools), "exec") {
		t.Error("exec is offered without Config.Exec")
	}
	cfg := testConfig(t)
	cfg.Exec = true
	a := open(t, cfg)
	i := slices.IndexFunc(a.Host.Catalogue().Tools, func(tl registry.Tool) bool { return tl.Name == "exec" })
	if i < 0 || a.Host.Catalogue().Tools[i].Group != "" {
		t.Fatalf("exec is not a core tool: %v", names(a.Host.Catalogue().Tools))
	}
	b, err := a.ForBrowser()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(b.Catalogue.Tools), "exec") || slices.Contains(b.ServerTools, "exec") {
		t.Errorf("the browser's catalogue offers exec: %v, %v", names(b.Catalogue.Tools), b.ServerTools)
	}
	if _, err := a.RunForBrowser(t.Context(), "exec", []byte(`{"command":"true"}`)); err == nil {
		t.Error("the server ran exec for a page")
	}
}
