package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/wire"
)

// TestTheModuleDescribesTheCatalogue: the manifests' report, a tool's
// lookup and the search documents are the module's answers, not a registry
// the host builds beside it: given a module whose catalogue differs from
// the one the host built natively, they follow the module.
func TestTheModuleDescribesTheCatalogue(t *testing.T) {
	ctx := context.Background()
	run := func(context.Context, json.RawMessage) (string, error) { return "ok", nil }
	h, err := New(ctx, Options{
		Provider:      &HTTPProvider{Wire: wire.OpenAI, BaseURL: "http://127.0.0.1:1/v1", ModelName: "m"},
		NoBuiltins:    true,
		NoWordVectors: true,
		Groups:        []registry.Group{{Name: "native", Description: "The host's group"}},
		Tools:         []NativeTool{{Tool: registry.Tool{Name: "alpha", Description: "The host's tool", Group: "native"}, Run: run}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	// The module gets another catalogue than the host's: a tool the native
	// registry lacks, and one the module refuses.
	other, err := module.Marshal(registry.Catalogue{
		Groups: []registry.Group{{Name: "other", Description: "The module's group"}},
		Tools: []registry.Tool{
			{Name: "beta", Description: "The module's tool", Group: "other"},
			{Name: "bad name", Description: "Refused"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.pool.SetCatalogue(other)
	if reg, _ := registry.Build(h.Catalogue()); !has(reg, "alpha") {
		t.Fatal("the host's catalogue lacks alpha: the test no longer tells the two apart")
	}

	rep := h.Report()
	if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "bad name") {
		t.Errorf("the report's errors: %q, want the module's refusal of %q", rep.Errors, "bad name")
	}
	d, err := h.Describe(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var tools, groups []string
	for _, ti := range d.Tools {
		if ti.Origin.Kind == registry.OriginMeta {
			continue // load_tool_group
		}
		tools = append(tools, fmt.Sprintf("%s in %s, enabled %v", ti.Name, ti.Group, ti.Enabled))
	}
	for _, g := range d.Groups {
		groups = append(groups, g.Name)
	}
	if want := []string{"beta in other, enabled true"}; !slices.Equal(tools, want) {
		t.Errorf("the tools described: %q, want %q: the module's, not the native registry's alpha", tools, want)
	}
	if !slices.Equal(groups, []string{"other"}) {
		t.Errorf("the groups described: %q, want the module's other", groups)
	}
	docs, err := h.searchDocs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, doc := range docs {
		names = append(names, doc.Name)
		if !strings.Contains(doc.Group, "The module's group") {
			t.Errorf("%s's group text %q is not the module's group", doc.Name, doc.Group)
		}
	}
	if !slices.Equal(names, []string{"beta"}) {
		t.Errorf("the search documents: %q, want the module's tool alone", names)
	}
}

// has reports whether reg defines the tool name.
func has(reg *registry.Registry, name string) bool {
	_, ok := reg.Definition(name)
	return ok
}
