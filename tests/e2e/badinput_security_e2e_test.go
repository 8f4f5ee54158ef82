package e2e

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
)

// listenAddrs returns the local addresses of the listening TCP sockets on
// port, from /proc/net/tcp and /proc/net/tcp6 ("0100007F" is 127.0.0.1).
func listenAddrs(t *testing.T, port int) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, p, _ := strings.Cut(f[1], ":")
			if v, err := strconv.ParseUint(p, 16, 16); err == nil && int(v) == port {
				out = append(out, addr)
			}
		}
	}
	return out
}

// TestLoopbackAndAdminDefaults: the node on its embedded defaults listens
// on the loopback address only, and has no admin API (docs/api/admin.md).
func TestLoopbackAndAdminDefaults(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	u, err := url.Parse(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	if u.Hostname() != "127.0.0.1" {
		t.Errorf("the node serves at %s, want 127.0.0.1", n.URL)
	}
	if got := listenAddrs(t, port); len(got) != 1 || got[0] != "0100007F" {
		t.Errorf("listening sockets on port %d: %v, want 127.0.0.1 (0100007F) alone", port, got)
	}
	// From any other address of this machine, nothing answers.
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ip, _, _ := net.ParseCIDR(a.String())
		if ip == nil || ip.IsLoopback() {
			continue
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.String(), u.Port()), 2*time.Second)
		if err == nil {
			c.Close()
			t.Errorf("the node answers at %s", net.JoinHostPort(ip.String(), u.Port()))
		}
	}
	status, body := postJSON(t, n.URL+"/ext/admin", rpcRequest("admin.getLoggerLevel", `{}`))
	if want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"no API at /ext/admin"},"id":null}`; status != http.StatusNotFound || body != want {
		t.Errorf("/ext/admin on the defaults = %d %s, want 404 %s", status, body, want)
	}
}

// TestPluginPins: a plugin whose binary matches its sha256 pin runs; one
// that differs is never started, and its chain's routes and health say
// why.
func TestPluginPins(t *testing.T) {
	t.Parallel()
	_, plugins := nodetest.Binaries(t)
	b, err := os.ReadFile(filepath.Join(plugins, "example"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	wrong := strings.Repeat("ab", 32)
	n := nodetest.Start(t, nodetest.Options{Config: fmt.Sprintf("plugin-sha256:\n  example: %q\n  xvm: %q\nmodules: []\n", hex.EncodeToString(sum[:]), wrong)})
	if _, err := put(context.Background(), n, "a", "1"); err != nil {
		t.Fatalf("the pinned example chain: %v", err)
	}
	xb, err := os.ReadFile(filepath.Join(plugins, "xvm"))
	if err != nil {
		t.Fatal(err)
	}
	xsum := sha256.Sum256(xb)
	why := fmt.Sprintf("start VM avm: start plugin X: plugin binary does not match its sha256 pin: %s has sha256 %x, pinned %s",
		filepath.Join(plugins, "xvm"), xsum, wrong)
	want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"chain X is not running: ` + why + `"},"id":null}`
	for _, path := range []string{"/ext/bc/X", "/ext/bc/X/avax"} {
		if status, body := postJSON(t, n.URL+path, rpcRequest("avm.getHeight", `{}`)); status != http.StatusServiceUnavailable || body != want {
			t.Errorf("%s = %d %s, want 503 %s", path, status, body, want)
		}
	}
	if pids := n.PluginPIDs("xvm"); len(pids) != 0 {
		t.Errorf("xvm processes %v: a binary that differs from its pin ran", pids)
	}
	status, body := restGet(t, context.Background(), n.URL+"/ext/health")
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), `"chain/X":{"healthy":false,"message":"`+why+`"}`) {
		t.Errorf("health = %d %s, want chain/X unhealthy saying %s", status, body, why)
	}
}

// TestAPIKeysNeverLogged: with every logger at VERBO, the keys clients
// send to the modules, valid or not, appear in no log file and nowhere in
// the node's output, while the requests they made are logged.
func TestAPIKeysNeverLogged(t *testing.T) {
	t.Parallel()
	secret := func() string {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		return "k" + hex.EncodeToString(b)
	}
	valid, invalid := secret(), secret()
	config := fmt.Sprintf(`
log-level: VERBO
log-display-level: VERBO
modules:
  - name: data
    plugin: dataapi
    config: {rate-limit: {keys: [{name: team-a, key: %q}]}}
  - name: metrics
    plugin: metricsapi
    config: {rate-limit: {keys: [{name: team-a, key: %q}]}}
`, valid, valid)
	n := nodetest.Start(t, nodetest.Options{Config: config})
	waitDataBlock(t, n, 0)
	for _, c := range []struct {
		path, header, key string
		status            int
	}{
		{"/v1/chains", "x-data-api-key", valid, 200},
		{"/v1/chains/43112/blocks/0", "x-glacier-api-key", valid, 200},
		{"/v1/avg_tps/43112", "x-data-api-key", valid, 200},
		{"/v1/chains", "x-data-api-key", invalid, 401},
		{"/v1/avg_tps/43112", "x-glacier-api-key", invalid, 401},
		{"/ext/bc/C/rpc", "x-data-api-key", valid, 200}, // go-ethereum answers a GET with nothing
	} {
		req, _ := http.NewRequest(http.MethodGet, n.URL+c.path, nil)
		req.Header.Set(c.header, c.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("GET %s with a key: %d, want %d", c.path, resp.StatusCode, c.status)
		}
	}
	n.Stop(t) // every log line written and flushed
	logs := n.Output()
	files, _ := filepath.Glob(filepath.Join(n.DataDir, "logs", "*.log"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		logs += string(b)
	}
	for _, key := range []string{valid, invalid} {
		if strings.Contains(logs, key) {
			t.Errorf("a key sent by a client is in the logs: %s", key)
		}
	}
	// The test means something only if the requests were logged.
	for _, want := range []string{"request admitted", "team-a", "invalid API key"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the logs lack %q", want)
		}
	}
}
