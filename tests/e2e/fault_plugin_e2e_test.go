package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/faultvm"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// waitEchoes waits until fault.echo answers: the fault VM was restarted.
func waitEchoes(t *testing.T, n *nodetest.Node) {
	t.Helper()
	plugintest.Eventually(t, 30*time.Second, func() error {
		if status, body := postJSON(t, n.URL+"/ext/bc/F/rpc", rpcRequest("fault.echo", `{"text":"hi"}`)); status != 200 {
			return fmt.Errorf("the fault VM was not restarted: fault.echo = %d %s", status, body)
		}
		return nil
	})
}

// echoOK calls fault.echo and fails unless it answers.
func echoOK(t *testing.T, n *nodetest.Node) {
	t.Helper()
	if status, body := postJSON(t, n.URL+"/ext/bc/F/rpc", rpcRequest("fault.echo", `{"text":"hi"}`)); status != 200 || body != `{"jsonrpc":"2.0","result":"hi","id":1}` {
		t.Fatalf("fault.echo = %d %s", status, body)
	}
}

// TestPluginCrashFault: a plugin that crashes answers its caller 503 with
// the reason, keeps answering so while it is down, is restarted, and then
// serves again from a new process.
func TestPluginCrashFault(t *testing.T) {
	t.Parallel()
	n := startFaultNode(t, "--plugin-restart-backoff=3s")
	rpc := n.URL + "/ext/bc/F/rpc"
	echoOK(t, n)
	old := nodetest.PluginPID(t, n, faultvm.Name)
	const down = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"chain F is restarting: plugin exited: exit status 3"},"id":null}`
	if status, body := postJSON(t, rpc, rpcRequest("fault.crash", `{}`)); status != http.StatusServiceUnavailable || body != down {
		t.Fatalf("fault.crash = %d %s, want 503 %s", status, body, down)
	}
	// Within the backoff the chain is down, and says why.
	if status, body := postJSON(t, rpc, rpcRequest("fault.echo", `{"text":"hi"}`)); status != http.StatusServiceUnavailable || body != down {
		t.Fatalf("fault.echo while down = %d %s, want 503 %s", status, body, down)
	}
	waitEchoes(t, n)
	if pid := nodetest.PluginPID(t, n, faultvm.Name); pid == old {
		t.Fatalf("still plugin process %d after the crash", pid)
	}
	if got := pluginRestarts(t, n, "F"); got != 1 {
		t.Errorf("chainhost_plugin_restarts_total of F = %d, want 1", got)
	}
}

// readCut reads a response body and reports what came and whether the
// connection was cut before the answer ended.
func readCut(t *testing.T, resp *http.Response) (string, bool) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err != nil
}

// TestPluginGarbageAndCut: a plugin whose answer breaks the protocol gets
// its caller a 502 naming the fault; one whose answer fails after it began
// (a panic, or the process dying) has the client's answer cut, not
// completed; neither takes the host or the other requests down.
func TestPluginGarbageAndCut(t *testing.T) {
	t.Parallel()
	n := startFaultNode(t, "--plugin-restart-backoff=100ms")
	for path, want := range map[string]string{
		"/status": `{"jsonrpc":"2.0","error":{"code":-32000,"message":"bad response from plugin: handler garbage: status 7"},"id":null}`,
		"/empty":  `{"jsonrpc":"2.0","error":{"code":-32000,"message":"bad response from plugin: handler garbage: http channel: the plugin sent an empty message"},"id":null}`,
		"/kind":   `{"jsonrpc":"2.0","error":{"code":-32000,"message":"bad response from plugin: handler garbage: http channel: the plugin sent a message of the host's kind (*pluginv1.HTTPChannelMessage_Credit)"},"id":null}`,
	} {
		status, body := postJSON(t, n.URL+"/ext/bc/F/"+faultvm.GarbageHandler+path, rpcRequest("x", `{}`))
		if status != http.StatusBadGateway || body != want {
			t.Errorf("garbage %s = %d %s, want 502 %s", path, status, body, want)
		}
		echoOK(t, n)
	}
	// The same handler, not garbled, answers.
	if status, body := postJSON(t, n.URL+"/ext/bc/F/"+faultvm.GarbageHandler, rpcRequest("x", `{}`)); status != 200 || body != `{"ok":true}` {
		t.Errorf("garbage handler unharmed = %d %s", status, body)
	}

	// A panic after the answer began: the client's answer is cut.
	resp, err := http.Post(n.URL+"/ext/bc/F/"+faultvm.CutHandler, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if got, cut := readCut(t, resp); resp.StatusCode != 200 || got != faultvm.StartedAnswer || !cut {
		t.Errorf("a handler panicking midway: %d %q cut %v, want the started answer cut", resp.StatusCode, got, cut)
	}
	echoOK(t, n)
	if out := n.Output(); strings.Contains(out, "chain plugin down") {
		t.Fatalf("the fault VM went down before it was made to:\n%s", out)
	}

	// The process dying while an answer streams: that answer is cut, the
	// call that killed it is a 503 with the reason, and the VM comes back.
	resp, err = http.Post(n.URL+"/ext/bc/F/"+faultvm.StreamHandler, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	started := make([]byte, len(faultvm.StartedAnswer))
	if _, err := io.ReadFull(resp.Body, started); err != nil || string(started) != faultvm.StartedAnswer {
		t.Fatalf("stream: %q, %v", started, err)
	}
	const down = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"chain F is restarting: plugin exited: exit status 3"},"id":null}`
	if status, body := postJSON(t, n.URL+"/ext/bc/F/rpc", rpcRequest("fault.crash", `{}`)); status != http.StatusServiceUnavailable || body != down {
		t.Errorf("fault.crash = %d %s, want 503 %s", status, body, down)
	}
	if rest, cut := readCut(t, resp); rest != "" || !cut {
		t.Errorf("the streaming answer after the crash: %q, cut %v; want it cut", rest, cut)
	}
	waitEchoes(t, n)
}

// floodLines counts the lines of a log file that hold marker.
func floodLines(t *testing.T, path, marker string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	count := 0
	for sc.Scan() {
		if strings.Contains(sc.Text(), marker) {
			count++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return count
}

// TestPluginStderrFlood: a plugin that writes to stderr, and to its
// logger, as fast as it can keeps being served, as do the other requests;
// the host logs at most logging.PluginLines of it and says how much it
// dropped, and its memory, goroutines and descriptors come back to where
// they were.
func TestPluginStderrFlood(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	n := startFaultNode(t)
	rpc := n.URL + "/ext/bc/F/rpc"
	echoOK(t, n)
	goroutines, fds := hostMetric(t, n, "go_goroutines"), hostMetric(t, n, "process_open_fds")
	heap := hostMetric(t, n, "go_memstats_heap_inuse_bytes")

	const seconds = 3
	for _, via := range []string{"stderr", "logger"} {
		status, body := postJSON(t, rpc, rpcRequest("fault.flood", fmt.Sprintf(`{"seconds":%d,"via":%q}`, seconds, via)))
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","result":"flooding %s for %ds","id":1}`, via, seconds); status != 200 || body != want {
			t.Fatalf("fault.flood = %d %s", status, body)
		}
	}
	// Served while it floods.
	for end := time.Now().Add(seconds * time.Second); time.Now().Before(end); {
		echoOK(t, n)
		if status, _ := postJSON(t, n.URL+"/ext/info", rpcRequest("info.getNetworkID", `{}`)); status != 200 {
			t.Fatalf("info.getNetworkID during the flood = %d", status)
		}
	}
	if !strings.Contains(n.Output(), "F: log lines dropped over the limit: dropped=") {
		t.Errorf("no report of dropped lines:\n%s", n.Output())
	}
	// The token bucket bounds what went through since the node started.
	log := filepath.Join(n.DataDir, "logs", "F.log")
	limit := logging.PluginLines()
	most := limit.Burst + int(limit.PerSecond*time.Since(begin).Seconds()) + 1
	got := floodLines(t, log, strings.Repeat("x", 200)) + floodLines(t, log, strings.Repeat("y", 200))
	if got == 0 || got > most {
		t.Errorf("%d flood lines in %s, want 1 to %d", got, log, most)
	}
	if info, err := os.Stat(log); err != nil || info.Size() > int64(most)*1024 {
		t.Errorf("%s: %v, %v", log, info.Size(), err)
	}
	waitMetricAtMost(t, n, "go_goroutines", goroutines+5)
	waitMetricAtMost(t, n, "process_open_fds", fds)
	// Garbage from the flood is collected: the live heap is back near
	// where it was (the runtime may keep the pages a while).
	waitMetricAtMost(t, n, "go_memstats_heap_inuse_bytes", heap+64<<20)
}
