// Package probe is what the start-up benchmark's programs print when their
// first turn is over: the line package startbench reads, with the
// process's peak resident memory so far. It imports nothing the programs
// would not have, so that it adds nothing to what they measure.
package probe

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Marker begins the line FirstTurn prints.
const Marker = "first-turn"

// FirstTurn prints "first-turn PEAK_KB ANSWER" on standard output: the
// process's peak resident memory in KiB (VmHWM, or getrusage's maxrss
// where /proc is missing) and the model's answer.
func FirstTurn(answer string) {
	fmt.Printf("%s %d %q\n", Marker, PeakKB(), answer)
}

// PeakKB is the process's peak resident memory so far, in KiB.
func PeakKB() int64 {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
					return kb
				}
			}
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		return int64(ru.Maxrss)
	}
	return 0
}
