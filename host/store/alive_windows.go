//go:build windows

package store

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether a process with this id may run on this
// machine: only an id Windows does not know is dead.
func processAlive(pid int) bool {
	if pid <= 0 {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		const errorInvalidParameter = syscall.Errno(87) // no such process
		return !errors.Is(err, errorInvalidParameter)
	}
	p.Release()
	return true
}
