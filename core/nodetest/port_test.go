package nodetest

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tryLock takes DefaultPortLock without waiting, through a file of its
// own, as another process would; it reports whether it got it.
func tryLock(t *testing.T) bool {
	t.Helper()
	f, err := os.OpenFile(DefaultPortLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// TestHoldDefaultPort: the lock is held from the first holder of the
// process to the end of the last one (a test that restarts its node takes
// it twice), and released then.
func TestHoldDefaultPort(t *testing.T) {
	// A lock of its own: the real one may be held by a node of another
	// test process, which this test would wait for.
	DefaultPortLock = filepath.Join(t.TempDir(), "port.lock")
	t.Run("held", func(t *testing.T) {
		holdDefaultPort(t)
		holdDefaultPort(t) // a restart within the same test
		if tryLock(t) {
			t.Fatal("another holder got the lock of port 9650 while a test held it")
		}
	})
	if !tryLock(t) {
		t.Fatal("the lock of port 9650 is still held after the test that took it ended")
	}
}
