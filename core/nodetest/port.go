package nodetest

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// DefaultPortLock is the file whose flock a test holds while a node of
// its own listens on the embedded default port, 9650: the test processes
// of `make test` run side by side (tests/firsthour here, compat/avalanchego
// in its own module), and the machine has one port 9650.
var DefaultPortLock = filepath.Join(os.TempDir(), "chainhost-port-9650.lock")

// defaultPort counts this process's holders of DefaultPortLock: the tests
// of one process that use the port run one after another, and a test that
// restarts its node takes the port again while it holds it.
var defaultPort struct {
	sync.Mutex
	holders int
	file    *os.File
}

// holdDefaultPort takes DefaultPortLock, waiting for another process to
// release it, until t ends.
func holdDefaultPort(t testing.TB) {
	t.Helper()
	defaultPort.Lock()
	defer defaultPort.Unlock()
	if defaultPort.holders == 0 {
		f, err := os.OpenFile(DefaultPortLock, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatalf("open the lock of port 9650: %v", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			t.Fatalf("lock port 9650: %v", err)
		}
		defaultPort.file = f
	}
	defaultPort.holders++
	t.Cleanup(func() {
		defaultPort.Lock()
		defer defaultPort.Unlock()
		if defaultPort.holders--; defaultPort.holders == 0 {
			defaultPort.file.Close() // releases the flock
		}
	})
}
