//go:build !linux

package proccpu

import "time"

// Of is not measured here: it reports false.
func Of(pid int) (time.Duration, bool) { return 0, false }
