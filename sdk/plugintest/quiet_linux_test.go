package plugintest_test

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/chainhost/chainhost/sdk/plugintest"
)

// captureStderr returns what f wrote to the process's file descriptor 2,
// whoever wrote it (go-plugin's loggers keep their own copy of os.Stderr).
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup3(int(w.Fd()), 2, 0); err != nil {
		t.Fatal(err)
	}
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		read <- string(b)
	}()
	defer func() {
		_ = syscall.Dup3(saved, 2, 0)
		_ = syscall.Close(saved)
	}()
	f()
	if err := syscall.Dup3(saved, 2, 0); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	return <-read
}

// TestQuietBelowWarn: with the default logger, a plugin's whole life in
// the harness (start, calls, a restart, a crash, shutdown) prints nothing
// below Warn, go-plugin's own lines included, and no error: the plugin's
// one warning is all.
func TestQuietBelowWarn(t *testing.T) {
	out := captureStderr(t, func() {
		t.Run("life", func(t *testing.T) {
			h := plugintest.Start(t, &counterVM{}, plugintest.Options{})
			acceptAll(t, h, 0, "a")
			h.Restart(t, &counterVM{})
			h.Crash(t)
			h.Restart(t, &counterVM{})
		})
	})
	for _, level := range []string{"[TRACE]", "[DEBUG]", "[INFO]", "[ERROR]"} {
		if strings.Contains(out, level) {
			t.Errorf("the harness printed %s lines:\n%s", level, out)
		}
	}
}
