package metricsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// evmNode is a real chainhost node whose C-Chain the tests read as an
// external chain.
type evmNode struct {
	t     *testing.T
	n     *nodetest.Node
	rpc   string
	c     *ethclient.Client
	nonce uint64
}

// startEVMNode starts a node from the embedded default config.
func startEVMNode(t *testing.T) *evmNode {
	n := nodetest.Start(t, nodetest.Options{})
	url := n.URL + "/ext/bc/C/rpc"
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &evmNode{t: t, n: n, rpc: url, c: c}
}

// send makes a transfer and waits for its block.
func (e *evmNode) send() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key, err := crypto.HexToECDSA(avaxvectors.EwoqKey)
	if err != nil {
		e.t.Fatal(err)
	}
	id, err := e.c.ChainID(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	to := common.Address{0xb0, 0xb0}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.LegacyTx{
		Nonce: e.nonce, To: &to, Value: big.NewInt(1), Gas: 21000, GasPrice: big.NewInt(100e9),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.c.SendTransaction(ctx, tx); err != nil {
		e.t.Fatal(err)
	}
	e.nonce++
	plugintest.Eventually(e.t, 30*time.Second, func() error {
		_, err := e.c.TransactionReceipt(ctx, tx.Hash())
		return err
	})
}

// call calls a dev method of the C-Chain.
func (e *evmNode) call(method string, args ...any) {
	e.t.Helper()
	var out any
	if err := e.c.Client().CallContext(context.Background(), &out, method, args...); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// head is the C-Chain's last block.
func (e *evmNode) head() uint64 {
	e.t.Helper()
	n, err := e.c.BlockNumber(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// ownAvgTPS is the node's own metrics module's /v1/avg_tps/43112, once it
// has counted every block of its C-Chain.
func (e *evmNode) ownAvgTPS() api.AvgTPSResponse {
	e.t.Helper()
	head := e.head()
	var got api.AvgTPSResponse
	plugintest.Eventually(e.t, 30*time.Second, func() error {
		var health struct {
			Checks map[string]struct {
				Details struct {
					Chains map[string]struct{ Counted uint64 } `json:"chains"`
				} `json:"details"`
			} `json:"checks"`
		}
		if err := getJSON(e.n.URL+"/ext/health", &health); err != nil {
			return err
		}
		if c := health.Checks["module/metrics"].Details.Chains["C"].Counted; c < head {
			return fmt.Errorf("the node's metrics module counted %d of %d blocks", c, head)
		}
		return getJSON(e.n.URL+"/v1/avg_tps/43112", &got)
	})
	return got
}

// getJSON GETs url and decodes its JSON answer.
func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s = %d %s", url, resp.StatusCode, body)
	}
	return json.Unmarshal(body, v)
}

// externalDetails is an external chain's health details.
func (e *env) externalDetails(name string) map[string]any {
	e.t.Helper()
	d, err := e.h.HealthDetails(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	c, _ := d["chains"].(map[string]any)[name].(map[string]any)
	return c
}

// waitFailing waits until an external chain's health says it fails with
// an error holding want.
func (e *env) waitFailing(name, want string) {
	e.t.Helper()
	plugintest.Eventually(e.t, 30*time.Second, func() error {
		d := e.externalDetails(name)
		if d["status"] != "failing" || !strings.Contains(fmt.Sprint(d["error"]), want) {
			return fmt.Errorf("chain %s: %v, want failing with %q", name, d, want)
		}
		return nil
	})
}

// TestExternalChain: the module counts another node's C-Chain, read
// through its JSON-RPC under another name and blockchain ID, up to 2
// blocks below its head, and answers /v1/avg_tps for it by name and
// blockchain ID exactly as that node's own metrics module answers for its
// C-Chain (the same blocks, over three UTC days); the harness's own C-Chain
// keeps EVM chain ID 43112. After a restart it counts the new blocks only.
// A node that answers another eth_chainId, an unreachable URL and a store
// that counted another EVM chain under the same name are refused, each
// shown failing in health while the module stays healthy and counts its
// other chains.
func TestExternalChain(t *testing.T) {
	node := startEVMNode(t)
	for range 3 {
		node.send()
	}
	node.call("evm_increaseTime", 2*secondsPerDay)
	for range 2 {
		node.send()
	}
	node.call("evm_mine") // the 2 confirmations
	node.call("evm_mine")
	dir := t.TempDir()
	clk := &clock{now: time.Now()}
	config := fmt.Sprintf(`{"rate-limit": {"anonymous": {"per-second": 0}}, "external-chains": [
		{"name": "remote-c", "chain-id": 43112, "rpc-url": %q, "confirmations": 2},
		{"name": "wrong", "chain-id": 1, "rpc-url": %q},
		{"name": "down", "chain-id": 7, "rpc-url": "http://127.0.0.1:1/rpc"}]}`, node.rpc, node.rpc)
	remoteID := evmremote.DerivedID("remote-c").String()
	check := func(e *env) {
		t.Helper()
		head := node.head()
		e.waitCounted("remote-c", head-2)
		want := node.ownAvgTPS()
		if len(want.Results) != 3 {
			t.Fatalf("the node's own avg_tps: %+v, want 3 days", want)
		}
		for _, chain := range []string{"remote-c", remoteID} {
			if got := e.avgTPS(chain, ""); !slices.Equal(got.Results, want.Results) {
				t.Errorf("%s: %+v\nwant the node's own %+v", chain, got.Results, want.Results)
			}
		}
		if got := e.avgTPS("43112", ""); len(got.Results) != 1 || got.Results[0].Timestamp != day0 {
			t.Errorf("43112 answers %+v, want the harness's own C-Chain", got.Results)
		}
		d := e.externalDetails("remote-c")
		ext, _ := d["external"].(map[string]any)
		if d["status"] != "following" || d["lag"] != 0.0 || d["chainId"] != remoteID || ext["trail"] != 2.0 || ext["rpcUrl"] != node.rpc {
			t.Errorf("remote-c's health: %v", d)
		}
	}
	t.Run("first run", func(t *testing.T) {
		e := start(t, dir, config, clk)
		e.appendBlocks(chainC.ID, 1, [2]int64{day0, 3})
		check(e)
		e.waitFailing("wrong", "refused: not the configured chain: the node answers eth_chainId 43112, the config's chain-id is 1")
		e.waitFailing("down", "connection refused")
		e.waitCounted("C", 1)
		if err := e.h.Health(context.Background()); err != nil {
			t.Errorf("the module is unhealthy: %v", err)
		}
		for _, chain := range []string{"wrong", "1", "down", "7"} {
			if got := e.avgTPS(chain, ""); len(got.Results) != 0 || got.Status != 200 {
				t.Errorf("%s: %+v, want no point", chain, got)
			}
		}
	})
	node.send()
	node.call("evm_mine")
	node.call("evm_mine")
	t.Run("restart", func(t *testing.T) {
		e := start(t, dir, config, clk)
		e.appendBlocks(chainC.ID, 1, [2]int64{day0, 3})
		check(e)
	})
	t.Run("another chain under the same name", func(t *testing.T) {
		dir := t.TempDir()
		s, err := store.Open(dir + "/store")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Add(evmremote.DerivedID("remote-c"), store.Progress{EVMChainID: 99}, []store.Block{{Time: day0, Txs: 1}}, clk.Now()); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		e := start(t, dir, config, clk)
		e.waitFailing("remote-c", "its blocks were counted as EVM chain ID 99, the config's chain-id is now 43112")
	})
}

// TestExternalChainFinalized: with `finalized`, the counts follow the
// node's finalized block (on chainhost's EVM, every 32nd).
func TestExternalChainFinalized(t *testing.T) {
	node := startEVMNode(t)
	for range 33 {
		node.call("evm_mine")
	}
	var fin struct {
		Number string `json:"number"`
	}
	if err := node.c.Client().CallContext(context.Background(), &fin, "eth_getBlockByNumber", rpc.FinalizedBlockNumber.String(), false); err != nil || fin.Number != "0x20" {
		t.Fatalf("finalized block %q (%v), want 0x20", fin.Number, err)
	}
	e := start(t, t.TempDir(), fmt.Sprintf(`{"rate-limit": {"anonymous": {"per-second": 0}}, "external-chains": [
		{"name": "remote-c", "chain-id": 43112, "rpc-url": %q, "finalized": true}]}`, node.rpc), &clock{now: time.Now()})
	e.waitCounted("remote-c", 32)
	if d := e.externalDetails("remote-c"); d["external"].(map[string]any)["trail"] != "finalized" || d["accepted"] != 32.0 {
		t.Errorf("health: %v", d)
	}
}

// TestExternalChainResumes: an external chain whose node does not answer
// at start is failing; once its URL answers, the module counts it by
// itself, without a restart.
func TestExternalChainResumes(t *testing.T) {
	node := startEVMNode(t)
	node.send()
	node.call("evm_mine")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing answers there until the proxy below
	e := start(t, t.TempDir(), fmt.Sprintf(`{"rate-limit": {"anonymous": {"per-second": 0}}, "external-chains": [
		{"name": "remote-c", "chain-id": 43112, "rpc-url": "http://%s/ext/bc/C/rpc", "confirmations": 1}]}`, addr), &clock{now: time.Now()})
	e.waitFailing("remote-c", "connection refused")
	target, err := url.Parse(node.n.URL)
	if err != nil {
		t.Fatal(err)
	}
	if l, err = net.Listen("tcp", addr); err != nil {
		t.Fatal(err)
	}
	proxy := &http.Server{Handler: httputil.NewSingleHostReverseProxy(target)}
	go func() { _ = proxy.Serve(l) }()
	t.Cleanup(func() { _ = proxy.Close() })
	e.waitCounted("remote-c", node.head()-1)
	if d := e.externalDetails("remote-c"); d["status"] != "following" || d["error"] != nil {
		t.Errorf("health after it answers again: %v", d)
	}
}
