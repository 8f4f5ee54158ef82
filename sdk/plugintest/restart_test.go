package plugintest_test

import (
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// acceptAll posts each body to the counter VM's accept and checks the
// positions it answers, from first.
func acceptAll(t *testing.T, h *plugintest.Harness, first int, bodies ...string) {
	t.Helper()
	for i, b := range bodies {
		code, body := post(t, h.URL("rpc")+"/accept", b)
		if want := strconv.Itoa(first + i); code != 200 || body != want {
			t.Fatalf("accept %q = %d %q, want 200 %q", b, code, body, want)
		}
	}
}

// height reads the counter VM's height straight from its database.
func height(t *testing.T, h *plugintest.Harness) uint64 {
	t.Helper()
	b, err := h.DB().Get(t.Context(), []byte("height"))
	if errors.Is(err, host.ErrNotFound) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint64(b)
}

// TestRestartKeepsHostState: Restart shuts the plugin down and starts a
// new one over the same database, index and data directory, behind the
// same URLs.
func TestRestartKeepsHostState(t *testing.T) {
	first := &counterVM{}
	h := plugintest.Start(t, first, plugintest.Options{Name: "R"})
	acceptAll(t, h, 0, "a", "b", "c")
	_, env := get(t, h.URL("rpc")+"/env")

	second := &counterVM{}
	h.Restart(t, second)
	if n := first.shutdowns.Load(); n != 1 {
		t.Errorf("the first plugin was shut down %d times, want 1", n)
	}
	if second.env == nil {
		t.Fatal("Restart did not initialize the new plugin")
	}
	if _, env2 := get(t, h.URL("rpc")+"/env"); env2 != env {
		t.Errorf("the restarted plugin's env = %s, want the first's %s", env2, env)
	}
	if n, err := h.AcceptedCount(t.Context(), "block"); err != nil || n != 3 {
		t.Errorf("AcceptedCount after the restart = %d, %v; want 3 from the kept database", n, err)
	}
	acceptAll(t, h, 3, "d")
	if got := len(h.Containers("block")); got != 4 {
		t.Errorf("index holds %d containers after the restart, want 4", got)
	}
	if got := h.Handlers(); len(got) != 2 {
		t.Errorf("Handlers after the restart = %v, want the new plugin's two", got)
	}
}

// TestCrashAndRestart: Crash ends the plugin without Shutdown, and cuts
// it off; Restart then starts another over what the host committed.
func TestCrashAndRestart(t *testing.T) {
	crashed := &counterVM{}
	h := plugintest.Start(t, crashed, plugintest.Options{})
	acceptAll(t, h, 0, "a", "b")
	h.Crash(t)
	if _, err := h.AcceptedCount(t.Context(), "block"); err == nil {
		t.Error("a crashed plugin still answers")
	}
	if code, _ := post(t, h.URL("rpc")+"/accept", "lost"); code == 200 {
		t.Error("a crashed plugin still accepts")
	}
	h.Restart(t, &counterVM{})
	acceptAll(t, h, 2, "c")
	if n := crashed.shutdowns.Load(); n != 0 {
		t.Errorf("the crashed plugin was shut down %d times, want 0", n)
	}
}

// TestCutNextAccept: a cut accept is committed, state and container, yet
// answered with an error, once; a VM that reads its height back goes on
// above it.
func TestCutNextAccept(t *testing.T) {
	h := plugintest.Start(t, &counterVM{}, plugintest.Options{})
	acceptAll(t, h, 0, "a")
	h.CutNextAccept()
	code, body := post(t, h.URL("rpc")+"/accept", "b")
	if code != 500 || !strings.Contains(body, "cut after the host committed") {
		t.Fatalf("cut accept = %d %q, want 500 saying it was cut", code, body)
	}
	if got := h.Containers("block"); len(got) != 2 || string(got[1].Bytes) != "b" {
		t.Fatalf("index after the cut accept = %d containers, want the cut one committed", len(got))
	}
	if got := height(t, h); got != 2 {
		t.Fatalf("height after the cut accept = %d, want its state committed (2)", got)
	}
	acceptAll(t, h, 2, "c") // the cut applies once
}

// TestAcceptRefusesAnIndexedID: as on the node, an ID the index holds is
// refused with host.ErrAlreadyIndexed and nothing is written.
func TestAcceptRefusesAnIndexedID(t *testing.T) {
	h := plugintest.Start(t, &counterVM{}, plugintest.Options{})
	acceptAll(t, h, 0, "a")
	code, body := post(t, h.URL("rpc")+"/accept", "a")
	if code != 500 || !strings.Contains(body, host.ErrAlreadyIndexed.Error()) {
		t.Fatalf("accept of an indexed ID = %d %q, want 500 %q", code, body, host.ErrAlreadyIndexed)
	}
	if n, got := height(t, h), len(h.Containers("block")); n != 1 || got != 1 {
		t.Fatalf("after the refused accept: height %d, %d containers; want 1 and 1", n, got)
	}
}
