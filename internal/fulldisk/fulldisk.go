// Package fulldisk gives tests a real full disk: a small tmpfs mounted on a
// temporary folder (Mount), filled to its last byte (Fill). Mounting needs
// root (CAP_SYS_ADMIN) on Linux; elsewhere, or without it, the test is
// skipped, saying why.
package fulldisk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Fill writes a file in dir until the disk holding it is full, and returns
// a function that removes it, freeing the space.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("fulldisk: %v", err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	for n := len(block); n > 0; {
		_, err := f.Write(block[:n])
		switch {
		case errors.Is(err, syscall.ENOSPC):
			n /= 2 // the last bytes, down to one
		case err != nil:
			t.Fatalf("fulldisk: filling %s: %v", dir, err)
		}
	}
	return func() {
		if err := os.Remove(path); err != nil {
			t.Errorf("fulldisk: %v", err)
		}
	}
}
