package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// publicNodeConfig is configs/examples/public-node.yaml as a user gets it.
const publicNodeConfig = "../../configs/examples/public-node.yaml"

// unsafeMethods are the methods a public node must not serve, by the chain
// path that serves them on the local network: the dev methods, every
// personal_ method, every debug_ method (those go-ethereum's exported debug
// APIs declare, found by reflection, and those of its internal one), and
// testing_.
func unsafeMethods() map[string][]string {
	evm := []string{
		"evm_mine", "evm_setAutomine", "evm_setIntervalMining", "evm_increaseTime", "evm_setNextBlockTimestamp",
		"personal_listAccounts", "personal_newAccount", "personal_importRawKey", "personal_unlockAccount",
		"personal_lockAccount", "personal_sendTransaction", "personal_sign", "personal_ecRecover",
		// go-ethereum's internal/ethapi.DebugAPI, which no test can import.
		"debug_getRawHeader", "debug_getRawBlock", "debug_getRawReceipts", "debug_getRawTransaction",
		"debug_printBlock", "debug_chaindbProperty", "debug_chaindbCompact", "debug_setHead",
		"debug_dbGet", "debug_dbAncient", "debug_dbAncients",
		"testing_buildBlockV1",
	}
	subscription := reflect.TypeFor[*rpc.Subscription]()
	for _, api := range []reflect.Type{reflect.TypeFor[*eth.DebugAPI](), reflect.TypeFor[*tracers.API]()} {
		for m := range api.Methods() {
			if m.Type.NumOut() > 0 && m.Type.Out(0) == subscription {
				continue // reached through debug_subscribe, over WebSocket
			}
			name := []rune(m.Name)
			name[0] = unicode.ToLower(name[0])
			evm = append(evm, "debug_"+string(name))
		}
	}
	return map[string][]string{
		"/ext/bc/C/rpc": evm,
		"/ext/bc/P":     {"pvm.increaseTime", "pvm.setTime"},
	}
}

// rpcAnswer is a JSON-RPC answer on the wire.
type rpcAnswer struct {
	JSONRPC string           `json:"jsonrpc"`
	Result  *json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// callRaw POSTs a call of method without params and returns its answer
// and the body, failing the test unless it is HTTP 200 with a JSON-RPC 2.0
// body.
func callRaw(t *testing.T, url, method string) (rpcAnswer, string) {
	t.Helper()
	status, body := postJSON(t, url, rpcRequest(method, "[]"))
	var a rpcAnswer
	if err := json.Unmarshal([]byte(body), &a); status != http.StatusOK || err != nil || a.JSONRPC != "2.0" {
		t.Fatalf("%s at %s: %d %s, want 200 and a JSON-RPC answer", method, url, status, body)
	}
	return a, body
}

// portOf returns the port of a URL the node printed.
func portOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// TestPublicNode: the node started from configs/examples/public-node.yaml
// as written (on loopback, as a test must stay) refuses every dev,
// personal_, debug_ and testing_ method in JSON-RPC's format, answers
// WebSocket on the C-Chain only, runs no example chain and no admin API,
// keeps batches to 40 items and rate-limits the data API.
func TestPublicNode(t *testing.T) {
	t.Parallel()
	cfg, err := os.ReadFile(publicNodeConfig)
	if err != nil {
		t.Fatal(err)
	}
	n := nodetest.Start(t, nodetest.Options{Config: string(cfg), Args: []string{"--http-host=127.0.0.1"}})
	n.WaitHealthy(t)

	for path, methods := range unsafeMethods() {
		for _, method := range methods {
			a, body := callRaw(t, n.URL+path, method)
			if a.Error == nil || a.Error.Code != -32601 || a.Result != nil || !strings.Contains(a.Error.Message, method) {
				t.Errorf("%s at %s answered %s, want error -32601 naming the method", method, path, body)
			}
		}
	}

	ctx := t.Context()
	wsBase := "ws://127.0.0.1:" + portOf(t, n.URL)
	ec, err := ethclient.DialContext(ctx, wsBase+"/ext/bc/C/ws")
	if err != nil {
		t.Fatalf("WebSocket on C: %v", err)
	}
	defer ec.Close()
	if id, err := ec.ChainID(ctx); err != nil || id.Uint64() != 43112 {
		t.Errorf("eth_chainId over C's WebSocket = %v, %v; want 43112", id, err)
	}
	var sub any
	if err := ec.Client().CallContext(ctx, &sub, "debug_subscribe", "traceChain", "0x0", "0x1"); rpcErrorCode(err) != -32601 {
		t.Errorf("debug_subscribe over C's WebSocket = %v, want error -32601", err)
	}
	for _, chain := range []string{"X", "P", "example"} {
		c, resp, err := websocket.DefaultDialer.DialContext(ctx, wsBase+"/ext/bc/"+chain+"/ws", nil)
		if err == nil {
			c.Close()
			t.Errorf("WebSocket on %s answered", chain)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("WebSocket on %s: %v (%v), want a 404", chain, err, resp)
		}
	}
	if status, body := postJSON(t, n.URL+"/ext/bc/example/rpc", rpcRequest("kv.get", `{"key":"a"}`)); status != http.StatusNotFound {
		t.Errorf("the example chain answered %d %s, want 404", status, body)
	}
	if status, body := postJSON(t, n.URL+"/ext/admin", rpcRequest("admin.getLoggerLevel", "{}")); status != http.StatusNotFound {
		t.Errorf("/ext/admin answered %d %s, want 404", status, body)
	}

	batch := "[" + strings.Repeat(rpcRequest("eth_chainId", "[]")+",", 40) + rpcRequest("eth_chainId", "[]") + "]"
	for _, path := range []string{"/ext/bc/C/rpc", "/ext/info"} {
		if status, body := postJSON(t, n.URL+path, batch); status != http.StatusOK || !strings.Contains(body, "-32600") || !strings.Contains(body, "40") {
			t.Errorf("a batch of 41 at %s: %d %s, want -32600 naming the limit of 40", path, status, body)
		}
	}
	resp, err := http.Get(n.URL + "/v1/chains")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("RateLimit-Limit") != "20" {
		t.Errorf("GET /v1/chains: %d with RateLimit-Limit %q, want 200 under the anonymous limit (burst 20)", resp.StatusCode, resp.Header.Get("RateLimit-Limit"))
	}
}

// startRefused starts a node that must refuse to serve, and watches while
// it runs that nothing ever answers at probe (the main listener's
// address, or a chain's own listener's). It returns the node's output once
// it exited, non-zero.
func startRefused(t *testing.T, opts nodetest.Options, probe func() error) string {
	t.Helper()
	opts.NoWait = true
	n := nodetest.Start(t, opts)
	plugintest.EventuallyEvery(t, 2*time.Minute, 10*time.Millisecond, func() error {
		if err := probe(); err != nil {
			t.Fatal(err)
		}
		if _, err := n.Wait(0); err != nil {
			return err
		}
		return nil
	})
	code, err := n.Wait(time.Minute) // it has exited: this returns at once
	if err != nil || code == 0 {
		t.Fatalf("the node exited 0:\n%s", n.Output())
	}
	out := n.Output()
	if strings.Contains(out, "HTTP API listening") || strings.Contains(out, "chainhost is up") {
		t.Errorf("the node listened before it exited:\n%s", out)
	}
	return out
}

// wantLine fails the test unless out has a line holding every part.
func wantLine(t *testing.T, out string, parts ...string) {
	t.Helper()
	for line := range strings.SplitSeq(out, "\n") {
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
			return
		}
	}
	t.Errorf("no line of the output holds all of %q:\n%s", parts, out)
}

// TestPublicRefusesUnsafeAPIs: on 0.0.0.0 with the embedded default
// config, whose C- and P-Chains serve dev and personal APIs, the node exits
// non-zero without ever answering on its port, naming each chain, its APIs
// and the override; with the override naming exactly those APIs it starts
// (listening on 0.0.0.0, reached on 127.0.0.1) and serves every method the
// public node refuses.
func TestPublicRefusesUnsafeAPIs(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	out := startRefused(t, nodetest.Options{Args: []string{"--http-host=0.0.0.0", "--http-port=" + port}}, func() error {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return fmt.Errorf("the node accepted a connection on %s", addr)
		}
		return nil
	})
	wantLine(t, out, "chainhost: chain C: the dev and personal APIs are unsafe in public", "0.0.0.0 (http-host)",
		"--http-allow-unsafe-apis=C.dev,C.personal")
	wantLine(t, out, "chain P: the dev API is unsafe in public", "0.0.0.0 (http-host)", "--http-allow-unsafe-apis=P.dev")

	n := nodetest.Start(t, nodetest.Options{Args: []string{"--http-host=0.0.0.0", "--http-allow-unsafe-apis=C.dev,C.personal,P.dev"}})
	n.URL = "http://127.0.0.1:" + portOf(t, n.URL)
	n.WaitHealthy(t)
	wantLine(t, n.Output(), "serving APIs unsafe in public beyond loopback", "chain=C")
	// Every method the public node refuses is served here (but testing_,
	// off on the local network too): none is missing from the methods of
	// the node's chains.
	for path, methods := range unsafeMethods() {
		for _, method := range methods {
			if strings.HasPrefix(method, "testing_") {
				continue
			}
			if a, _ := callRaw(t, n.URL+path, method); a.Error != nil && a.Error.Code == -32601 {
				t.Errorf("%s at %s: %s; want it served with the dev, personal and debug APIs on", method, path, a.Error.Message)
			}
		}
	}
}

// TestPublicRefusesChainListener: a chain's own listener beyond loopback is
// checked too: the node exits non-zero naming the listener's key, and no
// request to that listener is ever answered.
func TestPublicRefusesChainListener(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{Timeout: 500 * time.Millisecond}
	out := startRefused(t, nodetest.Options{Config: listenerConfig("0.0.0.0:" + port)}, func() error {
		resp, err := client.Post("http://"+addr+"/rpc", "application/json", strings.NewReader(rpcRequest("evm_mine", "[]")))
		if err == nil { // no answer: it waits in the backlog, or is refused once the node is gone
			resp.Body.Close()
			return fmt.Errorf("the chain's own listener answered evm_mine: %s", resp.Status)
		}
		return nil
	})
	wantLine(t, out, "chainhost: chain C: the dev API is unsafe in public", "0.0.0.0:"+port+" (chains[0].listen)",
		"--http-allow-unsafe-apis=C.dev")
	if strings.Contains(out, "(http-host)") {
		t.Errorf("the main listener on loopback was named:\n%s", out)
	}
}

// TestPublicRefusesHotLoadedChain: a chain started after start-up, by
// admin.loadVMs, is checked as well: it does not start, /ext/health says
// why in the same words, the node keeps serving, and the chain's own
// listener beyond loopback never answers.
func TestPublicRefusesHotLoadedChain(t *testing.T) {
	t.Parallel()
	_, built := nodetest.Binaries(t)
	pluginDir := t.TempDir()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	n := nodetest.Start(t, nodetest.Options{
		PluginDir: pluginDir,
		Args:      []string{"--api-admin-enabled=true"},
		Config:    listenerConfig("0.0.0.0:" + port),
	})
	installPlugin(t, filepath.Join(built, "evm"), pluginDir, "evm")
	loadVMs(t, n)

	want := "chain C: the dev API is unsafe in public and would be reachable beyond loopback on 0.0.0.0:" + port +
		" (chains[0].listen); turn it off in the chain's config, listen on loopback only, or allow it by name with --http-allow-unsafe-apis=C.dev"
	status, body := restGet(t, t.Context(), n.URL+"/ext/health")
	var report struct {
		Checks map[string]struct {
			Healthy bool   `json:"healthy"`
			Message string `json:"message"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(body, &report); err != nil || status != http.StatusServiceUnavailable {
		t.Fatalf("/ext/health = %d %s (%v), want 503", status, body, err)
	}
	if c := report.Checks["chain/C"]; c.Healthy || !strings.Contains(c.Message, want) {
		t.Errorf("chain/C in /ext/health = %+v, want unhealthy saying %q", c, want)
	}
	client := &http.Client{Timeout: 500 * time.Millisecond}
	if resp, err := client.Post("http://"+addr+"/rpc", "application/json", strings.NewReader(rpcRequest("evm_mine", "[]"))); err == nil {
		resp.Body.Close()
		t.Errorf("the chain's own listener answered evm_mine: %s", resp.Status)
	}
	if status, body := postJSON(t, n.URL+"/ext/info", rpcRequest("info.getNetworkID", "{}")); status != http.StatusOK {
		t.Errorf("the node stopped serving: /ext/info = %d %s", status, body)
	}
}
