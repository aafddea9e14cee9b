//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this id runs (or is a zombie
// not yet reaped) on this machine.
func processAlive(pid int) bool {
	if pid <= 0 {
		return true // not a process id we wrote: do not judge it
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
