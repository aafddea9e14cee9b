//go:build unix

package host_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system, for
// the cpu-ns/op of the throughput benchmarks (a turn each): what
// a turn costs on a machine shared with other work, which its wall time
// does not show.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
