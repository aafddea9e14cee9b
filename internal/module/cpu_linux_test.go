package module

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the CPU time of the calling thread: what the module's work
// costs whatever else the machine runs (wazero runs a call on the calling
// goroutine, and a goroutine locked to its thread stays on it).
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
