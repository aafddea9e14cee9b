// Package testcache gives a package's tests one temporary folder for
// compiled wasm, shared by its tests and removed when they end.
package testcache

import (
	"os"
	"testing"
)

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
