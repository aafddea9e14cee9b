// Package testcache gives a package's tests one temporary folder, shared by
// its tests and removed when they end, and the cache home (as
// XDG_CACHE_HOME) where their compiled wasm is kept: one for every test
// process of a run when Env is set.
package testcache

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names a folder that every test process of a run shares as its cache
// home (make test and make fuzz set it): the toolroute module and QuickJS
// are then compiled once a run, not once a package (about 5 s and 1.6 s of
// CPU time each). Every cache write is a complete file renamed into place,
// so processes can share it.
const Env = "TOOLROUTE_TEST_CACHE"

// Run makes the folder, sets *dir to it, runs the tests and removes it,
// returning the tests' exit code: TestMain's
//
//	os.Exit(testcache.Run(m, &cacheDir))
func Run(m *testing.M, dir *string) int {
	d, err := os.MkdirTemp("", "toolroute-test-cache")
	if err != nil {
		panic(err)
	}
	*dir = d
	defer os.RemoveAll(d)
	return m.Run()
}

// Home is the cache home the tests give the program (XDG_CACHE_HOME): Env's
// folder when it is set, else dir, the package's own ("" for none).
func Home(dir string) string {
	if shared := os.Getenv(Env); shared != "" {
		return shared
	}
	return dir
}

// App is the cache folder of app.Config.CacheDir under Home(dir), as the
// program lays it out; "" when Home(dir) is, for no cache.
func App(dir string) string { return under(Home(dir), "toolroute") }

// Module is App(dir)'s folder of module.Config.CacheDir.
func Module(dir string) string { return under(App(dir), "module") }

// QuickJS is App(dir)'s folder of jsrun.Options.CacheDir.
func QuickJS(dir string) string { return under(App(dir), "quickjs") }

func under(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}
