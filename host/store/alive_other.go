//go:build !unix && !windows

package store

// processAlive cannot tell here: a lease lasts until it expires.
func processAlive(int) bool { return true }
