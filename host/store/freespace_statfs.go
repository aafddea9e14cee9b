//go:build linux || darwin || freebsd

package store

import "syscall"

// freeSpace is the space free for this process on the disk holding dir.
func freeSpace(dir string) (bytes uint64, known bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
