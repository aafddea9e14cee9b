package proccpu

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// Of is the CPU time process pid has used so far, user and system, its
// children that it waited for included, read from /proc/PID/stat, and
// whether it could be read: tests measure what a program they started does
// after an event with it, which its wall time does not show on a busy
// machine. The children are counted as os.ProcessState's UserTime and
// SystemTime count them (wait4's rusage), so that the two subtract.
func Of(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command's name, in parentheses, may hold spaces: the fields
	// counted from 3 (state) start after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	// utime, stime, cutime and cstime are fields 14 to 17, in clock ticks
	// of 1/100 s (USER_HZ, the same on every Linux).
	if len(f) < 15 {
		return 0, false
	}
	var ticks int64
	for _, field := range f[11:15] {
		n, err := strconv.ParseInt(string(field), 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, true
}
