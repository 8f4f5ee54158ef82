package plugintest_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/plugintest"
)

func TestReadProcStat(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	st, err := plugintest.ReadProcStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.State != 'R' && st.State != 'S' {
		t.Errorf("state of the running test = %q, want R or S", st.State)
	}
	if !plugintest.ProcessAlive(os.Getpid()) {
		t.Error("ProcessAlive(the test itself) = false")
	}

	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	// Until it is waited for, the exited child is a zombie.
	plugintest.Eventually(t, 10*time.Second, func() error {
		if plugintest.ProcessAlive(pid) {
			return errors.New("the exited child still counts as alive")
		}
		return nil
	})
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := plugintest.ReadProcStat(pid); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadProcStat(a reaped pid) = %v, want fs.ErrNotExist", err)
	}
}
