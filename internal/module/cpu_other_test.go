//go:build !linux

package module

import "time"

// threadCPU is not measured here: the benchmarks report no CPU time.
func threadCPU() time.Duration { return 0 }
