//go:build linux

package rpcchainvm

import (
	"os/exec"
	"syscall"
)

// command runs the plugin at path. The kernel SIGKILLs it when the host
// dies: avalanchego's own command asks for SIGTERM, which a VM ignores
// until the host has told it to shut down, so it would outlive a killed
// host.
func command(path string) *exec.Cmd {
	cmd := exec.Command(path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}
