// Package checktest gives tests of the hosts' operations what the host
// gives every operation it runs: a context whose argument checks ask the
// module (module.WithChecker with a pool of its own).
package checktest

import (
	"context"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/internal/module"
)

var (
	once sync.Once
	pool *module.Pool
	err  error
)

// Context is t's context with the module to ask for argument checks. The
// module is compiled once per test binary.
func Context(t testing.TB) context.Context {
	t.Helper()
	once.Do(func() {
		var rt *module.Runtime
		rt, err = module.New(context.Background(), module.Config{})
		if err == nil {
			pool = module.NewPool(rt, module.PoolConfig{MaxInstances: 2})
			pool.SetCatalogue([]byte(`{}`))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return module.WithChecker(t.Context(), pool)
}
