package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/core/nodetest"
)

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// listenerConfig runs the C-Chain alone, with its own listener on addr.
func listenerConfig(addr string) string {
	return fmt.Sprintf(`
modules: []
chains:
  - alias: C
    vm: evm
    listen: %q
    genesis: %s
    config:
      api-max-batch-size: 3
      dev-api-enabled: true
      cache-mb: 32
`, addr, evmGenesis(evmChainID))
}

// TestChainListener: a chain's own listener serves its handlers at the
// root and under /ext/bc/<chain>/, with the same answers, limits and
// errors as the shared listener, WebSocket subscriptions included, and
// its requests show in /ext/metrics labelled with the chain.
func TestChainListener(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	n := nodetest.Start(t, nodetest.Options{
		Config: listenerConfig(addr),
		Args:   []string{"--http-max-body-size=65536", "--http-max-websocket-connections=2"},
	})
	waitOutput(t, n, "listen   http://"+addr+" ")
	own := "http://" + addr
	ctx := context.Background()

	// The same answers on both listeners, at both paths of the own one.
	call := `{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}`
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"result":"0x%x"}`, evmChainID)
	for _, url := range []string{own + "/rpc", own + "/ext/bc/C/rpc", n.URL + "/ext/bc/C/rpc"} {
		if status, body := postJSON(t, url, call); status != 200 || body != want {
			t.Errorf("eth_chainId at %s = %d %s, want 200 %s", url, status, body, want)
		}
	}
	ec, err := ethclient.Dial(own + "/rpc")
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if id, err := ec.ChainID(ctx); err != nil || id.Uint64() != evmChainID {
		t.Fatalf("ethclient ChainID on the chain listener = %v, %v", id, err)
	}

	// Limits and errors answer alike on both listeners.
	big := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["` + strings.Repeat("a", 70000) + `"]}`
	batch := `[` + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},`, 3) + `{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`
	for _, tc := range []struct {
		name, path, body string
		chunked          bool // sent without its length
		status           int
		contains         string
	}{
		{"body over http-max-body-size", "/ext/bc/C/rpc", big, false, 413, "request body too large"},
		{"chunked body over http-max-body-size", "/ext/bc/C/rpc", big, true, 413, "request body too large"},
		{"chunked body under http-max-body-size", "/ext/bc/C/rpc", call, true, 200, want},
		{"batch over api-max-batch-size", "/ext/bc/C/rpc", batch, false, 200, "batch too large: 4 requests, the limit is 3"},
		{"unknown handler", "/ext/bc/C/nope", call, false, 404, `"code":-32000`},
		{"dot segment", "/ext/bc/C/../rpc", call, false, 400, `has a \"..\" segment`},
	} {
		post := postJSON
		if tc.chunked {
			post = postChunked
		}
		ownStatus, ownBody := post(t, own+tc.path, tc.body)
		sharedStatus, sharedBody := post(t, n.URL+tc.path, tc.body)
		if ownStatus != tc.status || !strings.Contains(ownBody, tc.contains) {
			t.Errorf("%s on the chain listener = %d %s, want %d with %q", tc.name, ownStatus, ownBody, tc.status, tc.contains)
		}
		if sharedStatus != ownStatus || !strings.Contains(sharedBody, tc.contains) {
			t.Errorf("%s: shared listener %d %s, chain listener %d %s", tc.name, sharedStatus, sharedBody, ownStatus, ownBody)
		}
	}
	if status, body := postJSON(t, own+"/ext/bc/X/rpc", call); status != 404 || !strings.Contains(body, `unknown chain \"X\"`) {
		t.Errorf("another chain on the chain listener = %d %s, want 404", status, body)
	}

	// WebSocket: a subscription sees the block a transfer makes.
	ws, err := ethclient.Dial("ws://" + addr + "/ws")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	heads := make(chan *types.Header, 4)
	sub, err := ws.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatalf("eth_subscribe newHeads on the chain listener: %v", err)
	}
	defer sub.Unsubscribe()
	tx := evmTransfer(evmKey(t), evmChainID, 0, common.HexToAddress("0x000000000000000000000000000000000000dEaD"), 1)
	if err := ec.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	select {
	case h := <-heads:
		if h.Number.Uint64() != 1 {
			t.Errorf("first head seen is block %d, want 1", h.Number.Uint64())
		}
	case err := <-sub.Err():
		t.Fatalf("subscription ended: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no new head within 30s of the transfer")
	}

	// The WebSocket cap: two open (ws above and this one), a third refused.
	second, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ext/bc/C/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	_, resp, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("third WebSocket with a cap of 2: %v, %v, want 503", err, resp)
	}

	// Requests on the chain listener are counted by the plugin, which the
	// host exports labelled with the chain.
	if v, _ := metricSeries(t, n, `chainhost_http_requests_total{code="200",plugin="C",route="bc/C/rpc"}`); v < 3 {
		t.Errorf("chain listener requests counted %g, want at least 3", v)
	}
}

// TestChainListenerSurvivesKill: requests to a chain listener while its
// plugin is SIGKILLed are never refused: those sent while no process
// serves the socket wait in its backlog and are answered by the next
// process.
func TestChainListenerSurvivesKill(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	n := nodetest.Start(t, nodetest.Options{Config: listenerConfig(addr), Args: []string{"--plugin-restart-backoff=1s"}})
	url := "http://" + addr + "/rpc"
	call := `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`
	// A new connection per request: each one meets the socket's backlog.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 60 * time.Second}
	do := func() error {
		resp, err := client.Post(url, "application/json", strings.NewReader(call))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"result":"0x`) {
			return fmt.Errorf("answer %d %s", resp.StatusCode, b)
		}
		return nil
	}
	if err := do(); err != nil {
		t.Fatal(err)
	}

	// A client keeps calling across the kill; none of its calls may be
	// refused. (One in flight in the killed process may be cut.)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var refused, ok int
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := do()
			switch {
			case errors.Is(err, syscall.ECONNREFUSED):
				refused++
			case err == nil:
				ok++
			}
		}
	})
	old := nodetest.PluginPID(t, n, "evm")
	time.Sleep(200 * time.Millisecond)
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for nodetest.Alive(old) {
		time.Sleep(10 * time.Millisecond)
	}
	// No process serves the socket now (the restart waits 1s): these
	// wait in the backlog and must all be answered by the next process.
	errs := make([]error, 8)
	var burst sync.WaitGroup
	for i := range errs {
		burst.Go(func() { errs[i] = do() })
	}
	burst.Wait()
	close(stop)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d sent while the plugin was down: %v", i, err)
		}
	}
	if refused > 0 {
		t.Errorf("%d requests were refused across the kill (%d answered)", refused, ok)
	}
	if pid := nodetest.PluginPID(t, n, "evm"); pid == old {
		t.Errorf("still plugin process %d after the kill", pid)
	}
	if got := pluginRestarts(t, n, "C"); got != 1 {
		t.Errorf("chainhost_plugin_restarts_total of C = %d, want 1", got)
	}
}

// TestChainListenerClash: a chain listener whose address is taken stops
// start-up with an error naming the key; so does one that names the
// address of another listener of the node.
func TestChainListenerClash(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	for _, tc := range []struct {
		name, config string
		code         int // 2: a config error, 1: a start-up failure
		want         []string
	}{
		{"address in use", fmt.Sprintf("modules: []\nchains: [{alias: example, vm: example, genesis: {}, listen: %q}]\n", addr), 1,
			[]string{"config: chains[0].listen: chain example: listen tcp " + addr, "address already in use"}},
		{"a module's address", fmt.Sprintf("modules: [{name: exampleapi, listen: %q}]\nchains: [{alias: example, vm: example, genesis: {}, listen: %q}]\n", addr, addr), 2,
			[]string{"config: chains[0].listen: " + addr + " is already the address of modules[0].listen"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := nodetest.Start(t, nodetest.Options{Config: tc.config, NoWait: true})
			code, err := n.Wait(60 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(n.Output(), w) {
					t.Errorf("output lacks %q:\n%s", w, n.Output())
				}
			}
		})
	}
}
