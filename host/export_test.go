package host

import "sync"

// LockedSessions is the number of sessions h keeps a turn lock for.
func LockedSessions(h *Host) int {
	return h.locks.count()
}

// CountReleases makes h count its idle releases as it makes them, and
// returns the count so far.
func CountReleases(h *Host) func() int {
	var mu sync.Mutex
	n := 0
	release := h.idle.release
	h.idle.release = func() {
		release()
		mu.Lock()
		n++
		mu.Unlock()
	}
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// WordVectorsGiven reports whether h's module instances are given word
// vectors.
func WordVectorsGiven(h *Host) bool { return h.rt.HasWordVectors() }

// ForgetTokenCounts empties the token counts remembered in memory and
// the files read, as in a new process.
func ForgetTokenCounts() {
	tokenCounts.mu.Lock()
	tokenCounts.m = nil
	tokenCounts.mu.Unlock()
	tokenFiles.mu.Lock()
	clear(tokenFiles.files)
	tokenFiles.mu.Unlock()
}
