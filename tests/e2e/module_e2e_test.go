package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/exampleapi"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// moduleConfig runs the default chains and three instances of the example
// module: one on the main listener, one on a listener of its own under
// other prefixes, and one disabled.
const moduleConfig = `
modules:
  - name: exampleapi
  - name: own
    plugin: exampleapi
    listen: 127.0.0.1:0
    prefixes: [/v2/example, /v2/other]
  - name: off
    plugin: exampleapi
    enabled: false
    prefixes: [/v3/off]
`

// ownListener reads the address of the module "own"'s listener from the
// banner.
func ownListener(t *testing.T, n *nodetest.Node) string {
	t.Helper()
	re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/v2/example`)
	var url string
	plugintest.Eventually(t, 10*time.Second, func() error {
		m := re.FindStringSubmatch(n.Output())
		if m == nil {
			return errors.New("the banner lists no listener of module own")
		}
		url = m[1]
		return nil
	})
	return url
}

// TestModules: REST modules on the main listener and on one of their own,
// routed by precise prefix with paths unchanged; a disabled module is not
// started; a killed one answers 503 at once and comes back; its logger,
// metrics and health details reach the host; it calls the EVM's internal
// handler, which answers 404 from outside.
func TestModules(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: moduleConfig, Args: []string{"--api-admin-enabled=true", "--plugin-restart-backoff=2s"}})
	ctx := context.Background()
	own := ownListener(t, n)
	if pids := n.PluginPIDs(exampleapi.Name); len(pids) != 2 {
		t.Fatalf("exampleapi processes: %v, want 2 (the disabled module must not start)", pids)
	}

	t.Run("routes", func(t *testing.T) {
		status, body := restGet(t, ctx, n.URL+"/v1/example/chains")
		var chains struct {
			Chains []exampleapi.Chain `json:"chains"`
		}
		err := json.Unmarshal(body, &chains)
		c, example := moduleChain(chains.Chains, "C"), moduleChain(chains.Chains, "example")
		if status != 200 || err != nil || len(chains.Chains) != defaultChains ||
			c == nil || c.VMName != "evm" || !c.Running || example == nil {
			t.Errorf("GET /v1/example/chains = %d %s", status, body)
		}
		status, body = restGet(t, ctx, own+"/v2/other/chains")
		if status != 200 || !strings.Contains(string(body), `"name":"example"`) {
			t.Errorf("GET own listener /v2/other/chains = %d %s", status, body)
		}
		// Path, escaped path and query reach the module as sent.
		const raw = "/v1/example/echo/0xAbC/transactions:listErc721/a%2Fb%20c?pageSize=5&x=%3A"
		status, body = restGet(t, ctx, n.URL+raw)
		var echo exampleapi.Echo
		if err := json.Unmarshal(body, &echo); status != 200 || err != nil ||
			echo.Path != "/v1/example/echo/0xAbC/transactions:listErc721/a/b c" ||
			echo.EscapedPath != "/v1/example/echo/0xAbC/transactions:listErc721/a%2Fb%20c" ||
			echo.Query != "pageSize=5&x=%3A" || echo.RequestURI != raw {
			t.Errorf("GET %s = %d %s", raw, status, body)
		}
		for _, c := range []struct{ what, url, want string }{
			{"outside every prefix", n.URL + "/v1", "no route for /v1"},
			{"a prefix continued without a /", n.URL + "/v1/examplex", "no route for /v1/examplex"},
			{"the disabled module", n.URL + "/v3/off/chains", "no route for /v3/off/chains"},
			{"a module on its own listener", n.URL + "/v2/example/chains", "no route"},
			{"the main module on the other listener", own + "/v1/example/chains", "no route"},
			{"/ext on a module listener", own + "/ext/health", "no route"},
			{"a path the module does not serve", n.URL + "/v1/example/nope", "no endpoint GET /v1/example/nope"},
			{"an unknown chain", n.URL + "/v1/example/chains/nochain/containers", `chain "nochain" not found`},
		} {
			status, body := restGet(t, ctx, c.url)
			wantRESTError(t, c.what, status, body, http.StatusNotFound, c.want)
		}
		// A bad parameter is a 400 naming it; /ext/ keeps JSON-RPC errors.
		status, body = restGet(t, ctx, n.URL+"/v1/example/chains/C/containers?pageSize=101")
		wantRESTError(t, "pageSize 101", status, body, http.StatusBadRequest, "pageSize")
		if status, body := restGet(t, ctx, n.URL+"/ext/nothing"); status != 404 || !strings.Contains(string(body), `"jsonrpc":"2.0"`) {
			t.Errorf("GET /ext/nothing = %d %s, want a JSON-RPC 404", status, body)
		}
	})

	t.Run("internal handler", func(t *testing.T) {
		c := evmDial(t, n, "C", "rpc")
		head, err := c.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		status, body := restGet(t, ctx, n.URL+"/v1/example/chains/C/blockNumber")
		var got struct {
			BlockNumber string `json:"blockNumber"`
		}
		if err := json.Unmarshal(body, &got); status != 200 || err != nil || got.BlockNumber != itoa(head) {
			t.Errorf("blockNumber through the indexer handler = %d %s, want %d", status, body, head)
		}
		_, out := postJSON(t, n.URL+"/ext/bc/C/indexer", rpcRequest("eth_blockNumber", `[]`))
		if !strings.Contains(out, `has no handler \"indexer\"`) {
			t.Errorf("POST /ext/bc/C/indexer = %s, want a 404 error", out)
		}
		resp, err := http.Post(n.URL+"/ext/bc/C/indexer", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST /ext/bc/C/indexer: HTTP %d, want 404", resp.StatusCode)
		}
	})

	t.Run("health and metrics", func(t *testing.T) {
		_, body := restGet(t, ctx, n.URL+"/ext/health")
		var rep struct {
			Checks map[string]struct {
				Healthy bool           `json:"healthy"`
				Details map[string]any `json:"details"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(body, &rep); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"module/exampleapi", "module/own"} {
			if c := rep.Checks[name]; !c.Healthy || c.Details["chains"] != float64(defaultChains) || c.Details["running"] != float64(defaultChains) {
				t.Errorf("/ext/health %s = %+v in %s", name, c, body)
			}
		}
		if _, ok := rep.Checks["module/off"]; ok {
			t.Errorf("/ext/health lists the disabled module: %s", body)
		}
		_, metrics := restGet(t, ctx, n.URL+"/ext/metrics")
		for _, want := range []string{
			`exampleapi_requests_total{code="200",plugin="exampleapi",route="/v1/example/chains"}`,
			`exampleapi_requests_total{code="200",plugin="own",route="/v2/other/chains"}`,
			`chainhost_http_requests_total{code="200",route="module/exampleapi"}`,
			`chainhost_http_requests_total{code="404",route="module/exampleapi"}`,
			`chainhost_plugin_up{plugin="own"} 1`,
		} {
			if !strings.Contains(string(metrics), want) {
				t.Errorf("/ext/metrics lacks %s", want)
			}
		}
		if strings.Contains(string(metrics), "/v1/example/nope") {
			t.Error("/ext/metrics labels a raw path")
		}
	})

	t.Run("logger level", func(t *testing.T) {
		logFile := filepath.Join(n.DataDir, "logs", "exampleapi.log")
		served := func() bool {
			return len(logLines(t, logFile, "request served")) > 0
		}
		restGet(t, ctx, n.URL+"/v1/example/chains")
		if served() {
			t.Fatal("a DEBUG line was logged at level INFO")
		}
		runAdmin(t, n, []adminCase{
			{method: "admin.getLoggerLevel", params: map[string]string{"loggerName": "exampleapi"}, result: `{"loggerLevels":{"exampleapi":{"logLevel":"INFO","displayLevel":"INFO"}}}`},
			{method: "admin.setLoggerLevel", params: map[string]string{"loggerName": "exampleapi", "logLevel": "DEBUG"}, result: `{}`},
		})
		restGet(t, ctx, n.URL+"/v1/example/chains")
		plugintest.Eventually(t, 10*time.Second, func() error {
			if !served() {
				return fmt.Errorf("no DEBUG line of the module in %s after setLoggerLevel DEBUG", logFile)
			}
			return nil
		})
		if len(logLines(t, filepath.Join(n.DataDir, "logs", "own.log"), "request served")) > 0 {
			t.Error("the other module logged at DEBUG too")
		}
	})

	t.Run("chain events", func(t *testing.T) {
		// The module watches the chains through the host: it sees the
		// example chain's plugin die, and come back.
		if err := syscall.Kill(nodetest.PluginPID(t, n, "example"), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for _, running := range []bool{false, true} {
			plugintest.Eventually(t, 20*time.Second, func() error {
				_, body := restGet(t, ctx, n.URL+"/v1/example/chains")
				var chains struct {
					Chains []exampleapi.Chain `json:"chains"`
				}
				if err := json.Unmarshal(body, &chains); err == nil && len(chains.Chains) == defaultChains {
					if c := moduleChain(chains.Chains, "example"); c != nil && c.Running == running {
						return nil
					}
				}
				return fmt.Errorf("the module does not see the example chain running=%v: %s", running, body)
			})
		}
	})

	t.Run("killed", func(t *testing.T) {
		old := n.PluginPIDs(exampleapi.Name)
		for _, pid := range old {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		// The restart backoff (2s) keeps them down: each listener answers
		// 503 in the REST body, within a second.
		urls := []string{n.URL + "/v1/example/chains", own + "/v2/example/chains"}
		for i, url := range urls {
			dctx, cancel := context.WithTimeout(ctx, time.Second)
			status, body := restGet(t, dctx, url)
			cancel()
			wantRESTError(t, "GET "+url+" after SIGKILL", status, body, http.StatusServiceUnavailable,
				[]string{"module exampleapi is restarting", "module own is restarting"}[i], "signal: killed")
		}
		plugintest.Eventually(t, 20*time.Second, func() error {
			for _, url := range urls {
				if status, _ := restGet(t, ctx, url); status != 200 {
					return fmt.Errorf("GET %s: module not back: %d", url, status)
				}
			}
			return nil
		})
		now := n.PluginPIDs(exampleapi.Name)
		if len(now) != 2 || slices.Contains(old, now[0]) || slices.Contains(old, now[1]) {
			t.Errorf("exampleapi processes after the restart: %v (killed %v)", now, old)
		}
		_, metrics := restGet(t, ctx, n.URL+"/ext/metrics")
		for _, want := range []string{`chainhost_plugin_restarts_total{plugin="exampleapi"} 1`, `chainhost_plugin_restarts_total{plugin="own"} 1`} {
			if !strings.Contains(string(metrics), want) {
				t.Errorf("/ext/metrics lacks %s", want)
			}
		}
	})

	t.Run("shutdown order", func(t *testing.T) {
		// The modules stop before the chains they read.
		n.Stop(t)
		exited := func(logger string) int {
			i := strings.Index(n.Output(), "["+"INFO]  "+logger+": plugin process exited")
			if i < 0 {
				t.Fatalf("no exit line of %s in the output", logger)
			}
			return i
		}
		for _, mod := range []string{"exampleapi", "own"} {
			for _, chain := range []string{"C", "example"} {
				if exited(mod) > exited(chain) {
					t.Errorf("module %s stopped after chain %s", mod, chain)
				}
			}
		}
	})
}

// TestModuleStartupErrors: a module config the node cannot serve stops
// start-up, and the message says why.
func TestModuleStartupErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, config string
		want         []string
	}{
		{"two modules claim one prefix", "modules:\n  - {name: a, plugin: exampleapi}\n  - {name: b, plugin: exampleapi}\n",
			[]string{"modules a and b both claim path prefix /v1/example"}},
		{"prefixes matching the same paths", "modules:\n  - {name: a, plugin: exampleapi, prefixes: ['/v1/example/{id}']}\n  - {name: b, plugin: exampleapi, prefixes: ['/v1/example/{chain}']}\n",
			[]string{"modules a and b both claim path prefix /v1/example/{chain}"}},
		{"a module named like a chain", "modules:\n  - {name: C, plugin: exampleapi}\n",
			[]string{`modules[0].name: "C" is already used by chains[1].alias`}},
		{"a module named like the node's logger", "modules:\n  - {name: main, plugin: exampleapi}\n",
			[]string{`modules[0].name: "main" is already used by the node's own logger`}},
		{"a prefix under /ext", "modules:\n  - {name: a, plugin: exampleapi, prefixes: [/ext/x]}\n",
			[]string{"modules[0].prefixes[0]", "/ext is the host's"}},
		{"a whole listener", "modules:\n  - {name: a, plugin: exampleapi, prefixes: [/]}\n",
			[]string{"modules[0].prefixes[0]", "at least one segment"}},
		{"an unknown key", "modules:\n  - {name: a, colour: red}\n", []string{`unknown key "modules[0].colour"`}},
		{"a bad listen address", "modules:\n  - {name: a, listen: nowhere}\n", []string{"modules[0].listen", `"nowhere" is not a host:port address`}},
		{"a listen port in use", "modules:\n  - {name: a, plugin: exampleapi, listen: '127.0.0.1:%d'}\n", []string{"module listener", "address already in use"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			config := c.config
			if strings.Contains(config, "%d") {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				config = fmt.Sprintf(config, ln.Addr().(*net.TCPAddr).Port)
			}
			n := nodetest.Start(t, nodetest.Options{Config: config, NoWait: true})
			code, err := n.Wait(60 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if code == 0 {
				t.Fatalf("the node started; output:\n%s", n.Output())
			}
			for _, w := range c.want {
				if !strings.Contains(n.Output(), w) {
					t.Errorf("output lacks %q:\n%s", w, n.Output())
				}
			}
			if pids := n.PluginPIDs(exampleapi.Name); len(pids) > 0 {
				t.Errorf("module processes left: %v", pids)
			}
		})
	}
}

// TestModuleHotLoad: a module whose plugin is missing at start-up answers
// 503 on the prefixes its config names, then serves once the plugin is
// copied into the plugin dir and admin.loadVMs is called, which lists it.
func TestModuleHotLoad(t *testing.T) {
	t.Parallel()
	_, built := nodetest.Binaries(t)
	pluginDir := examplePluginDir(t)
	n := nodetest.Start(t, nodetest.Options{
		PluginDir: pluginDir,
		Args:      []string{"--api-admin-enabled=true"},
		Config:    "chains: [{alias: example, vm: example}]\nmodules: [{name: late, plugin: exampleapi, prefixes: [/v1/example]}]\n",
	})
	ctx := context.Background()
	status, body := restGet(t, ctx, n.URL+"/v1/example/chains")
	wantRESTError(t, "before the plugin is installed", status, body, http.StatusServiceUnavailable, "module late is not running", `"exampleapi" is not installed`)

	installPlugin(t, filepath.Join(built, exampleapi.Name), pluginDir, exampleapi.Name)
	want := map[string][]string{exampleapi.Name: {exampleapi.Name}}
	if loaded := loadVMs(t, n); !equalVMs(loaded.NewVMs, want) || len(loaded.FailedVMs) != 0 {
		t.Errorf("admin.loadVMs = %+v, want the new module %v and no failure", loaded, want)
	}
	status, body = restGet(t, ctx, n.URL+"/v1/example/chains")
	if status != 200 || !strings.Contains(string(body), `"name":"example"`) {
		t.Errorf("after admin.loadVMs: GET /v1/example/chains = %d %s", status, body)
	}
}

// defaultChains is the number of chains of the embedded default config:
// example, C, X and P.
const defaultChains = 4

// moduleChain returns the chain called name of a module's list, or nil.
func moduleChain(chains []exampleapi.Chain, name string) *exampleapi.Chain {
	for i := range chains {
		if chains[i].Name == name {
			return &chains[i]
		}
	}
	return nil
}
