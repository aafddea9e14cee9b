//go:build !unix

// Package proccpu reads the CPU time this process has used, for the
// benchmarks that report cpu-ns/op; on this system it is not measured.
package proccpu

import "time"

// Used is 0 here: the CPU time is not measured.
func Used() time.Duration { return 0 }
