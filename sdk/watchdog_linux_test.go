//go:build linux

package sdk_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// TestPluginBinaryExitsWhenHostDies starts the binary from a shell that exits a second later, as
// if the host died, and waits for the watchdog to end the plugin. (The
// second lets the plugin note its parent first, as it does under a host.)
func TestPluginBinaryExitsWhenHostDies(t *testing.T) {
	bin := buildTinyVM(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	cmd := exec.Command(sh, "-c", `"$0" >/dev/null 2>&1 & echo $!; sleep 1`, bin)
	result := filepath.Join(t.TempDir(), "serve-result")
	cmd.Env = envWithout(pluginv1.MagicCookieKey+"="+pluginv1.MagicCookieValue, serveResultEnv+"="+result)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("start plugin from sh: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("plugin pid %q: %v", out, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	plugintest.Eventually(t, 5*time.Second, func() error {
		if plugintest.ProcessAlive(pid) {
			return fmt.Errorf("plugin %d still runs after its parent exited", pid)
		}
		return nil
	})
	// Serve returned to main, which could run its defers: tinyvm wrote
	// down the error.
	if b, err := os.ReadFile(result); err != nil || !strings.Contains(string(b), "host process is gone") {
		t.Errorf("main after Serve: %q, %v; want Serve's host-gone error", b, err)
	}
}
