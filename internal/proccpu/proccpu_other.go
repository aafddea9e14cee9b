//go:build !unix

// Package proccpu reads the CPU time this process, or a process it
// started, has used: for the benchmarks that report cpu-ns/op, and for the
// tests that bound what a call or a program does after its deadline or a
// signal. On this system it is not measured.
package proccpu

import "time"

// Used is 0 here: the CPU time is not measured.
func Used() time.Duration { return 0 }
