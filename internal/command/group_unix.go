//go:build unix

package command

import (
	"os/exec"
	"syscall"
)

const supported = true

// ownGroup makes cmd the leader of a process group of its own, killed
// whole when the run is cancelled.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
