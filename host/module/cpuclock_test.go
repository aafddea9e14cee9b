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

// stop pauses the benchmark's timer and the count.
func (c *cpuClock) stop() {
	c.b.StopTimer()
	c.total += threadCPU() - c.started
}

// start resumes them.
func (c *cpuClock) start() {
	c.started = threadCPU()
	c.b.StartTimer()
}

// report ends the count and reports it.
func (c *cpuClock) report() {
	c.total += threadCPU() - c.started
	if c.total > 0 && c.b.N > 0 {
		c.b.ReportMetric(float64(c.total)/float64(c.b.N), "cpu-ns/op")
	}
}
