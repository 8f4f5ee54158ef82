package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The first hour of a newcomer (issue 27): what a user writes and reads
// first works as written.

// bigBalanceConfig runs one EVM chain whose genesis, in block YAML as a
// user writes it, funds an address with a plain YAML integer beyond 64
// bits.
const bigBalanceConfig = `
chains:
  - alias: C
    vm: evm
    genesis:
      config:
        chainId: 43112
        homesteadBlock: 0
        eip150Block: 0
        eip155Block: 0
        eip158Block: 0
        byzantiumBlock: 0
        constantinopleBlock: 0
        petersburgBlock: 0
        istanbulBlock: 0
        muirGlacierBlock: 0
        berlinBlock: 0
        londonBlock: 0
        shanghaiTime: 0
        cancunTime: 0
        terminalTotalDifficulty: 0
      gasLimit: "0x1c9c380"
      difficulty: "0x0"
      alloc:
        "000000000000000000000000000000000000bA1a":
          balance: 50000000000000000000000000
modules: []
`

// TestYAMLGenesisBigInteger: a genesis balance written as a plain YAML
// integer of 26 digits starts the chain, and the address holds exactly
// that many wei.
func TestYAMLGenesisBigInteger(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: bigBalanceConfig})
	n.WaitHealthy(t)
	c := evmDial(t, n, "C", "rpc")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := c.BalanceAt(ctx, common.HexToAddress("0x000000000000000000000000000000000000bA1a"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := new(big.Int).SetString("50000000000000000000000000", 10)
	if got.Cmp(want) != 0 {
		t.Errorf("balance = %s, want %s", got, want)
	}
}

// bannerWS matches a WebSocket line of the start banner: the handler
// name, then the URL.
var bannerWS = regexp.MustCompile(`(?m)^\s+ws\s+(\S+)$`)

// bannerURL matches every URL the banner prints.
var bannerURL = regexp.MustCompile(`[a-z]+://\S+`)

// banner returns the node's start banner, once printed whole: from
// "chainhost is up" to the blank line that ends its list.
func banner(t *testing.T, n *nodetest.Node) string {
	t.Helper()
	var out string
	plugintest.Eventually(t, 10*time.Second, func() error {
		_, after, ok := strings.Cut(n.Output(), "chainhost is up")
		if !ok {
			return fmt.Errorf("no banner yet")
		}
		_, list, _ := strings.Cut(after, "\n\n")
		body, _, ok := strings.Cut(list, "\n\n")
		if !ok {
			return fmt.Errorf("the banner is not whole yet")
		}
		out = body
		return nil
	})
	return out
}

// TestBannerWebSocketURLs: every WebSocket URL the start banner prints is
// one a WebSocket client dials as printed, ws:// on plain HTTP and wss://
// with TLS (where every other URL is https://): go-ethereum's client
// reads the C-Chain's chain ID over it, and a plain WebSocket client gets
// a JSON-RPC answer from every chain's.
func TestBannerWebSocketURLs(t *testing.T) {
	t.Parallel()
	cert, key, pool := nodetest.SelfSignedCert(t)
	for _, tc := range []struct {
		name   string
		args   []string
		scheme string
		pool   *x509.CertPool
	}{
		{name: "http", scheme: "ws"},
		{name: "tls", args: []string{"--http-tls-cert-file=" + cert, "--http-tls-key-file=" + key}, scheme: "wss", pool: pool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := nodetest.Start(t, nodetest.Options{Args: tc.args})
			text := banner(t, n) // printed once every chain listed in it runs
			var urls []string
			for _, m := range bannerWS.FindAllStringSubmatch(text, -1) {
				urls = append(urls, m[1])
			}
			if !strings.Contains(strings.Join(urls, " "), "/ext/bc/C/ws") {
				t.Fatalf("the banner prints no WebSocket URL of the C-Chain:\n%s", text)
			}
			if tc.pool != nil {
				for _, u := range bannerURL.FindAllString(text, -1) {
					if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "wss://") {
						t.Errorf("the banner of a TLS node prints %s", u)
					}
				}
			}
			dialer := &websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: tc.pool}, HandshakeTimeout: 10 * time.Second}
			for _, u := range urls {
				if parsed, err := url.Parse(u); err != nil || parsed.Scheme != tc.scheme {
					t.Errorf("the banner prints WebSocket URL %s, want scheme %s://", u, tc.scheme)
					continue
				}
				wsRoundTrip(t, dialer, u)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for _, u := range urls {
				if !strings.HasSuffix(u, "/ext/bc/C/ws") {
					continue
				}
				rc, err := rpc.DialOptions(ctx, u, rpc.WithWebsocketDialer(*dialer))
				if err != nil {
					t.Fatalf("go-ethereum dials %s: %v", u, err)
				}
				id, err := ethclient.NewClient(rc).ChainID(ctx)
				rc.Close()
				if err != nil || id.Uint64() != evmChainID {
					t.Errorf("eth_chainId over %s = %v, %v; want %d", u, id, err, evmChainID)
				}
			}
		})
	}
}

// wsRoundTrip dials a WebSocket URL and sends a JSON-RPC request: the
// answer carries its id, whatever the method's fate.
func wsRoundTrip(t *testing.T, dialer *websocket.Dialer, u string) {
	t.Helper()
	conn, resp, err := dialer.Dial(u, nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Errorf("dial %s: %v (HTTP %d)", u, err, status)
		return
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if err := conn.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "web3_clientVersion"}); err != nil {
		t.Errorf("write to %s: %v", u, err)
		return
	}
	var answer struct {
		ID json.RawMessage `json:"id"`
	}
	if err := conn.ReadJSON(&answer); err != nil || string(answer.ID) != "7" {
		t.Errorf("JSON-RPC over %s: id %s, %v; want the request's id 7", u, answer.ID, err)
	}
}

// TestAvgTPSLastRunFromStart: on a node just started from the default
// config, the very first request of the average throughput of the
// C-Chain (by EVM chain ID), the X-Chain and the P-Chain carries lastRun,
// a time of this run of the node.
func TestAvgTPSLastRunFromStart(t *testing.T) {
	t.Parallel()
	started := time.Now().Unix()
	n := nodetest.Start(t, nodetest.Options{})
	for _, chain := range []string{"43112", "X", "P"} {
		resp, err := http.Get(n.URL + "/v1/avg_tps/" + chain)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got map[string]json.RawMessage
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil {
			t.Errorf("%s: %d %s", chain, resp.StatusCode, body)
			continue
		}
		var lastRun int64
		if raw, ok := got["lastRun"]; !ok || json.Unmarshal(raw, &lastRun) != nil {
			t.Errorf("%s: no integer lastRun in the first answer: %s", chain, body)
			continue
		}
		if now := time.Now().Unix(); lastRun < started || lastRun > now {
			t.Errorf("%s: lastRun %d, want a time of this run, within [%d, %d]", chain, lastRun, started, now)
		}
	}
}
