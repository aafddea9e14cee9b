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
	once.Do(compile)
	if err != nil {
		t.Fatal(err)
	}
	return module.WithChecker(t.Context(), pool)
}

// Background is the background context with the module to ask, for test
// helpers that have no test at hand. It panics when the module cannot be
// compiled, which fails the test that called the helper.
func Background() context.Context {
	once.Do(compile)
	if err != nil {
		panic(err)
	}
	return module.WithChecker(context.Background(), pool)
}

// compile makes the pool every context asks, once per test binary.
func compile() {
	var rt *module.Runtime
	rt, err = module.New(context.Background(), module.Config{})
	if err == nil {
		pool = module.NewPool(rt, module.PoolConfig{MaxInstances: 2})
		pool.SetCatalogue([]byte(`{}`))
	}
}

// Checker is the module's checker the contexts carry, for a test that
// wraps it.
func Checker(t testing.TB) module.Checker {
	t.Helper()
	once.Do(compile)
	if err != nil {
		t.Fatal(err)
	}
	return pool
}
