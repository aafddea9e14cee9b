package host

// LockedSessions is the number of sessions h keeps a turn lock for.
func LockedSessions(h *Host) int {
	return h.locks.count()
}
