//go:build !unix

package mcp

// lockAuthFile takes no lock across processes where flock is missing: two
// programs refreshing one token at once may each refresh it, and a server
// that rotates refresh tokens then refuses the second (needs authorization
// again).
func lockAuthFile(path string) func() { return func() {} }
