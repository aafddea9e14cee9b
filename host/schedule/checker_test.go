package schedule

import (
	"context"
	"sync"
	"testing"

	"github.com/toolroute/toolroute/host/module"
)

var (
	checkerOnce sync.Once
	checkerPool *module.Pool
	checkerErr  error
)

// opCtx is t's context with the module to ask for argument checks, as the
// host gives every operation it runs (module.WithChecker with its pool).
func opCtx(t testing.TB) context.Context {
	t.Helper()
	checkerOnce.Do(func() {
		var rt *module.Runtime
		rt, checkerErr = module.New(context.Background(), module.Config{})
		if checkerErr == nil {
			checkerPool = module.NewPool(rt, module.PoolConfig{MaxInstances: 2})
			checkerPool.SetCatalogue([]byte(`{}`))
		}
	})
	if checkerErr != nil {
		t.Fatal(checkerErr)
	}
	return module.WithChecker(t.Context(), checkerPool)
}
