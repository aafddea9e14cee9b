package cachebench

import (
	"testing"

	"github.com/toolroute/toolroute/internal/catalog"
	"github.com/toolroute/toolroute/manifests"
	"github.com/toolroute/toolroute/registry"
	"github.com/toolroute/toolroute/registry/session"
	"github.com/toolroute/toolroute/registry/wire"
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

// Native routing repeats the whole of each request as the next one's
// prefix, in both providers that have it; on Anthropic that is at least 95%
// of every request after the first, as sent. The Responses API injects a
// loaded group's definitions at the end, which makes a load's request up to
// a tenth new bytes. Classic loses most of the prefix at a load.
func TestNativeKeepsTheCache(t *testing.T) {
	reg := builtin(t)
	for _, f := range []wire.Format{wire.Anthropic, wire.Responses} {
		native, err := Run(reg, f, session.RoutingNative, Script)
		if err != nil {
			t.Fatalf("%s native: %v", f, err)
		}
		// Only the previous request's closing brackets may differ.
		if low, _, _ := native.Summary(native.Kept); low < 0.999 {
			t.Errorf("%s native: a call changed the previous one's bytes: %v", f, native.Kept)
		}
		want := map[wire.Format]float64{wire.Anthropic: 0.95, wire.Responses: 0.85}[f]
		if low, _, _ := native.Summary(native.Sent); low < want {
			t.Errorf("%s native: lowest %.3f of a request repeated the previous one, want at least %.2f: %v", f, low, want, native.Sent)
		}
		classic, err := Run(reg, f, session.RoutingClassic, Script)
		if err != nil {
			t.Fatalf("%s classic: %v", f, err)
		}
		if _, _, afterLoad := classic.Summary(classic.Kept); afterLoad > 0.9 {
			t.Errorf("%s classic: %.3f kept after a load; the tools change, so the prefix should break at them", f, afterLoad)
		}
		if len(native.Sent) != 14 || len(classic.Sent) != 14 {
			t.Errorf("%s: %d and %d calls after the first, want 14", f, len(native.Sent), len(classic.Sent))
		}
	}
	for _, f := range []wire.Format{wire.OpenAI, wire.Gemini} {
		if _, err := Run(reg, f, session.RoutingClassic, Script); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
