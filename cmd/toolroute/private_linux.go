package main

import "syscall"

// private makes the process's memory and environment unreadable by other
// processes of the same user, its children among them: an approved exec
// command, or an MCP server, could read the provider's key in
// /proc/PPID/environ or anything in /proc/PPID/mem. A process that is not
// dumpable has those files owned by root, and no core dump.
func private() {
	const prSetDumpable = 4 // PR_SET_DUMPABLE
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
}
