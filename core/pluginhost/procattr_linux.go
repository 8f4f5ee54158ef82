//go:build linux

package pluginhost

import (
	"os/exec"
	"syscall"
)

// setProcAttr makes the kernel SIGKILL the plugin when the host dies, so a
// plugin never outlives a SIGKILLed host.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
