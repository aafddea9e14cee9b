package abi

import "runtime"

// CollectAt is how many bytes a call of an export takes and gives, at
// least, for the module to collect its garbage before it returns
// (Collect).
const CollectAt = 1 << 20

// Collect collects the garbage of a call that took and gave n bytes,
// when n is CollectAt or more, and reports whether it did.
//
// In a module instance the Go collector makes progress only while a call
// allocates: there is one thread, and no background worker runs between
// calls. The garbage a large call leaves (a start with a long history, a
// large response, a catalogue) then stays until later calls have
// allocated as much again, and the heap goal set while it was live lets
// them grow the memory further, which never shrinks: when histories were
// decoded whole, an instance given a 5.5 MB history with each turn grew
// by 128 MiB a turn, to 637 MiB; read a message at a time, it still crept
// from 34 to 70 MiB over 25 such turns, and stays at 58 collected so.
// Collected as the call ends, the next call starts from the live heap. What a call allocates follows the bytes it moves: the exports'
// inputs, their answers, and the bodies toolroute_turn_body hands out
// (which a start re-encoding a kept conversation builds). Counting them
// costs nothing, where reading the runtime's count of bytes allocated
// costs microseconds on every call, a stream's small chunks included. The
// collection marks the live heap, mostly bytes without pointers (kept
// logs), after a call that cost far more.
func Collect(n int) bool {
	if n < CollectAt {
		return false
	}
	runtime.GC()
	return true
}
