//go:build !linux

package rpcchainvm

import "os/exec"

// command runs the plugin at path.
func command(path string) *exec.Cmd { return exec.Command(path) }
