package pluginhost

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// hostHelperEnv makes the test binary act as a host: it starts the plugin
// at the path the variable holds, prints the plugin's PID and waits to be
// killed.
const hostHelperEnv = "PLUGINHOST_TEST_HOST_HELPER"

func runHostHelper(path string) int {
	inst, err := Start(context.Background(), Options{
		Path: path,
		Init: Init{Kind: pluginv1.KindVM, Name: "orphan", LogLevel: "INFO"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start:", err)
		return 1
	}
	fmt.Println(inst.PID())
	select {}
}

func TestPluginDiesWithHost(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("parent-death signal and /proc are Linux-only")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), hostHelperEnv+"="+testPluginPath)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read plugin PID from the host helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		t.Fatalf("host helper printed %q", line)
	}
	if !plugintest.ProcessAlive(pid) {
		t.Fatalf("plugin %d is not running", pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The parent-death signal kills it at once; the SDK's watchdog would
	// take a few hundred milliseconds.
	plugintest.Eventually(t, 5*time.Second, func() error {
		if plugintest.ProcessAlive(pid) {
			return fmt.Errorf("the orphaned plugin %d still runs", pid)
		}
		return nil
	})
}
