//go:build !unix

package command

import "os/exec"

// supported is false: without POSIX process groups a command's children
// would outlive its timeout, so the tool is left out.
const supported = false

func ownGroup(*exec.Cmd) {}
