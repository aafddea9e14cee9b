package schematokens

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/toolroute/toolroute/internal/module"
	"github.com/toolroute/toolroute/internal/testcache"
)

// testRT is the module every test measures with, compiled once (kept in
// the run's shared cache when make sets one: testcache.Env).
var (
	testCtx = context.Background()
	testRT  *module.Runtime
)

func TestMain(m *testing.M) {
	rt, err := module.New(testCtx, module.Config{CacheDir: testcache.Module("")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testRT = rt
	code := m.Run()
	rt.Close(testCtx)
	os.Exit(code)
}
