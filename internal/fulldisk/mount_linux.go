package fulldisk

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new temporary folder and returns
// the folder; it is unmounted when the test ends, after the cleanups
// registered later (a database closed, say). Without the right to mount the
// test is skipped.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("fulldisk: mounting a small tmpfs for a full disk needs root; run the test as root to cover it")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("fulldisk: mounting a small tmpfs for a full disk: %v (the test needs CAP_SYS_ADMIN)", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("fulldisk: unmount %s: %v", dir, err)
		}
	})
	return dir
}
