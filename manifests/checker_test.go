package manifests_test

import (
	"context"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/internal/module"
)

var checker = sync.OnceValues(func() (*module.Pool, error) {
	rt, err := module.New(context.Background(), module.Config{})
	if err != nil {
		return nil, err
	}
	p := module.NewPool(rt, module.PoolConfig{MaxInstances: 2})
	p.SetCatalogue([]byte(`{}`))
	return p, nil
})

// checked is t's context with the module the runner's bridges ask to word
// their refusals (toolroute_check's js_bridge), as host.Host gives every
// JS call; the tests that run jsrun.Runner directly take it.
func checked(t testing.TB) context.Context {
	t.Helper()
	p, err := checker()
	if err != nil {
		t.Fatal(err)
	}
	return module.WithChecker(t.Context(), p)
}
