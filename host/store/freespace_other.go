//go:build !linux && !darwin && !freebsd

package store

// freeSpace cannot tell here: a failed write is then a full disk only when
// the driver says so (SQLITE_FULL).
func freeSpace(dir string) (bytes uint64, known bool) { return 0, false }
