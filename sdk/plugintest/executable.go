package plugintest

import (
	"os"
	"syscall"
	"testing"
)

// WriteExecutable writes a file a test will run (a plugin binary or a
// script) with mode. It holds syscall.ForkLock while the file is open for
// writing: a process forked meanwhile by a parallel test would hold the
// descriptor until its exec, and running the file then fails with "text
// file busy".
func WriteExecutable(t testing.TB, path string, data []byte, mode os.FileMode) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, data, mode)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}
