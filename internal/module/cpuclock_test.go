package module

import (
	goruntime "runtime"
	"testing"
	"time"
)

// cpuClock adds up the thread CPU time of a benchmark's timed parts and
// reports it as cpu-ns/op: on a busy machine wall time counts the waits
// for a core, CPU time does not.
type cpuClock struct {
	b       *testing.B
	total   time.Duration
	started time.Duration
}

// newCPUClock locks the benchmark's goroutine to its thread and starts
// counting.
func newCPUClock(b *testing.B) *cpuClock {
	goruntime.LockOSThread()
	b.Cleanup(goruntime.UnlockOSThread)
	return &cpuClock{b: b, started: threadCPU()}
}

// stop pauses the count and the benchmark's timer (whose own work, reading
// the memory statistics, is then not counted).
func (c *cpuClock) stop() {
	c.total += threadCPU() - c.started
	c.b.StopTimer()
}

// start resumes them.
func (c *cpuClock) start() {
	c.b.StartTimer()
	c.started = threadCPU()
}

// report ends the count and reports it.
func (c *cpuClock) report() {
	c.total += threadCPU() - c.started
	if c.total > 0 && c.b.N > 0 {
		c.b.ReportMetric(float64(c.total)/float64(c.b.N), "cpu-ns/op")
	}
}
