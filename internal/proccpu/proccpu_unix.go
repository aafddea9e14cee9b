//go:build unix

// Package proccpu reads the CPU time this process, or a process it
// started, has used: for the benchmarks that report cpu-ns/op, and for the
// tests that bound what a call or a program does after its deadline or a
// signal. On a machine shared with other work, the wall time shows neither.
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
