package nodetest

import (
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/plugintest"
)

// restartPoll is how often WaitNewPlugin looks: often enough that a crash
// test can kill a plugin early in its start-up.
const restartPoll = 2 * time.Millisecond

// restartTimeout bounds a plugin's restart, backoff included.
const restartTimeout = 30 * time.Second

// WaitNewPlugin waits until a live plugin process named name other than old
// runs, and returns its PID.
func (n *Node) WaitNewPlugin(t testing.TB, name string, old int) int {
	t.Helper()
	var pid int
	plugintest.EventuallyEvery(t, restartTimeout, restartPoll, func() error {
		for _, p := range n.PluginPIDs(name) {
			if p != old && Alive(p) {
				pid = p
				return nil
			}
		}
		return fmt.Errorf("no new %s plugin process since %d was killed", name, old)
	})
	return pid
}

// WaitGone waits until none of pids is alive.
func WaitGone(t testing.TB, timeout time.Duration, pids []int) {
	t.Helper()
	plugintest.Eventually(t, timeout, func() error {
		for _, pid := range pids {
			if Alive(pid) {
				return fmt.Errorf("process %d still alive", pid)
			}
		}
		return nil
	})
}

// healthyTimeout bounds a node's start until every chain and module is
// healthy: plugins start in parallel on a loaded machine.
const healthyTimeout = 2 * time.Minute

// WaitHealthy waits until GET /ext/health answers 200: every chain and
// module of the node is up.
func (n *Node) WaitHealthy(t testing.TB) {
	t.Helper()
	plugintest.Eventually(t, healthyTimeout, func() error {
		resp, err := http.Get(n.URL + "/ext/health")
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/ext/health answered %d: %s", resp.StatusCode, body)
		}
		return nil
	})
}

// Suspend stops process pid with SIGSTOP and waits until it is stopped:
// kill(2) returns before the process's threads have stopped, and a thread
// still running could answer one more request.
func Suspend(t testing.TB, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop process %d: %v", pid, err)
	}
	plugintest.Eventually(t, restartTimeout, func() error {
		st, err := plugintest.ReadProcStat(pid)
		if err != nil {
			return err
		}
		if st.State != 'T' && st.State != 't' {
			return fmt.Errorf("process %d is in state %c, not stopped", pid, st.State)
		}
		return nil
	})
}
