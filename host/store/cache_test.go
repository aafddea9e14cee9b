package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The compiled code lands in the cache folder. SetCacheDir is per process,
// so the test runs in a child process.
func TestSetCacheDir(t *testing.T) {
	if dir := os.Getenv("STORE_TEST_CACHE"); dir != "" {
		if err := SetCacheDir(dir); err != nil {
			t.Fatal(err)
		}
		db, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		if err := SetCacheDir(dir); err == nil {
			t.Error("a second SetCacheDir did not fail")
		}
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetCacheDir$")
	cmd.Env = append(os.Environ(), "STORE_TEST_CACHE="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Errorf("the cache folder is empty (%v)", err)
	}
}
