//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// lockAuthFile holds an exclusive lock on the auth file's lock file (PATH.lock)
// until the returned function is called: a token refresh in one process
// waits for another's, which then finds the new token in the file. A lock
// that cannot be taken (a read-only folder) leaves the process alone with
// its own lock (authMu's callers), as before.
func lockAuthFile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return func() {}
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
