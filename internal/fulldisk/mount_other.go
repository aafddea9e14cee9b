//go:build !linux

package fulldisk

import "testing"

// Mount skips the test: a small tmpfs is mounted on Linux only.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	t.Skip("fulldisk: a full disk is made with a tmpfs, on Linux only")
	return ""
}
