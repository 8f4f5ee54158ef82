//go:build !linux

package pluginhost

import "os/exec"

// setProcAttr does nothing where there is no parent-death signal; the SDK's
// parent-pid watchdog still ends orphaned plugins.
func setProcAttr(*exec.Cmd) {}
