package nodetest

import (
	"fmt"
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
