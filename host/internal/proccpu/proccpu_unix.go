//go:build unix

// Package proccpu reads the CPU time this process has used, for the
// benchmarks that report cpu-ns/op: what an operation costs on a machine
// shared with other work, which its wall time does not show.
package proccpu

import (
	"syscall"
	"time"
)

// Used is the CPU time this process has used so far, user and system.
func Used() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
