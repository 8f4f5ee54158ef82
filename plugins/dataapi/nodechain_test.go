package dataapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// subnetEVMID is the VM ID of avalanchego's subnet-evm.
const subnetEVMID = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"

// vmChain is a chain of the node as the host describes one of an
// avalanchego VM plugin (docs/data-api.md, "Chains of avalanchego VM
// plugins"): public rpc and ws handlers, no internal ones.
func vmChain(t *testing.T, running bool) host.ChainInfo {
	vmID, err := ids.FromString(subnetEVMID)
	if err != nil {
		t.Fatal(err)
	}
	return host.ChainInfo{
		ID: ids.ID{0x5e, 0x5e}, VMID: vmID, VMName: subnetEVMID, Aliases: []string{"my-l1"},
		IndexKinds: []string{"block"}, Handlers: []string{"rpc", "ws"}, Running: running,
	}
}

// forwardRPC answers the chain calls to the rpc handler of each chain of
// rpc from the real JSON-RPC URL it maps to, while the chain runs; any
// other call is not found, as the host answers for a handler the chain
// does not have.
func forwardRPC(t *testing.T, rpc map[ids.ID]string) func(context.Context, host.ChainInfo, string, []byte) (int, []byte, error) {
	up := map[ids.ID]*evmremote.Client{}
	for id, url := range rpc {
		c, err := evmremote.Dial(context.Background(), evmremote.Options{URL: url, InFlight: 8})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		up[id] = c
	}
	return func(ctx context.Context, c host.ChainInfo, handlerPath string, body []byte) (int, []byte, error) {
		switch {
		case up[c.ID] == nil || handlerPath != "rpc":
			return 0, nil, fmt.Errorf("call %s/%s: %w", c.ID, handlerPath, host.ErrNotFound)
		case !c.Running:
			return 0, nil, fmt.Errorf("call %s/%s: the chain is not running", c.ID, handlerPath)
		}
		return up[c.ID].Call(ctx, c.ID.String(), handlerPath, body)
	}
}

// transfers sends n transfers from the local network's key on the node's
// C-Chain and waits for each one's block; it returns the chain's head.
func transfers(t *testing.T, c *ethclient.Client, n int) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key, err := crypto.HexToECDSA(avaxvectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		nonce, err := c.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		to := common.Address{0xb0, 0xb0}
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.LegacyTx{
			Nonce: nonce, To: &to, Value: big.NewInt(1), Gas: 21000, GasPrice: big.NewInt(100e9),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		plugintest.Eventually(t, 30*time.Second, func() error {
			_, err := c.TransactionReceipt(ctx, tx.Hash())
			return err
		})
	}
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// getBody GETs url and returns its body, failing on another status than 200.
func getBody(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s = %d %s", url, resp.StatusCode, b)
	}
	return b, nil
}

// waitIndexed waits until the health details of a data module (details
// reads them) show chain indexed up to height.
func waitIndexed(t *testing.T, chain string, height uint64, details func() (map[string]any, error)) map[string]any {
	t.Helper()
	var got map[string]any
	plugintest.Eventually(t, 60*time.Second, func() error {
		d, err := details()
		if err != nil {
			return err
		}
		got, _ = d["chains"].(map[string]any)[chain].(map[string]any)
		if got["height"] != float64(height) {
			return fmt.Errorf("chain %s not indexed up to %d: %v", chain, height, d)
		}
		return nil
	})
	return got
}

// nodeDataDetails reads the health details of a node's own data module.
func nodeDataDetails(n *nodetest.Node) func() (map[string]any, error) {
	return func() (map[string]any, error) {
		resp, err := http.Get(n.URL + "/ext/health") // 503 while a check fails: the details are there all the same
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		var h struct {
			Checks map[string]struct {
				Details map[string]any `json:"details"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(b, &h); err != nil {
			return nil, err
		}
		return h.Checks["module/data"].Details, nil
	}
}

// listedInfo is a chain as /v1/chains lists it.
type listedInfo struct {
	ChainID, ChainName, PlatformChainID, VMID, RPCURL, WSURL, Status string
	InternalTransactionsIndexed                                      *bool
}

// listedChain returns the one chain the module at url lists.
func listedChain(t *testing.T, url string) listedInfo {
	t.Helper()
	b, err := getBody(url + "/v1/chains")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Chains []listedInfo }
	if err := json.Unmarshal(b, &list); err != nil || len(list.Chains) != 1 {
		t.Fatalf("/v1/chains = %s (%v), want one chain", b, err)
	}
	return list.Chains[0]
}

// TestNodeVMChain: a running chain of the node whose VM is not
// chainhost's EVM (subnet-evm's VM ID, no internal indexer handler) but
// whose rpc handler answers eth_chainId is indexed through its JSON-RPC,
// reached by the host's chain calls only (here forwarded to a real node's
// C-Chain). /v1/chains lists it by its alias with the EVM chain ID it
// answers, the node's URLs for it and its internal transactions indexed;
// every transaction of the sender is what the node's own data module
// answers for its C-Chain. A chain whose rpc answers no eth_chainId (the
// example VM's) is not indexed. Stopped, it is UNAVAILABLE; started again, it
// is indexed on. An external-chains entry of the same EVM chain ID wins.
func TestNodeVMChain(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{})
	rpcURL := n.URL + "/ext/bc/C/rpc"
	c, err := ethclient.Dial(rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	head := transfers(t, c, 3)
	chain := vmChain(t, true)
	// The example VM's chain serves rpc too, answering no eth_chainId.
	kv := host.ChainInfo{ID: ids.ID{0x6b, 0x76}, VMName: "example", Aliases: []string{"kv"}, IndexKinds: []string{"block"}, Handlers: []string{"rpc", "ws"}, Running: true}
	forward := forwardRPC(t, map[ids.ID]string{chain.ID: rpcURL, kv.ID: n.URL + "/ext/bc/example/rpc"})
	h := plugintest.StartModule(t, dataapi.New(dataapi.Options{}), plugintest.Options{
		Name: "data", Config: []byte(noLimits), NetworkID: 12345,
		Prefixes: []string{"/v1/chains", "/v1/address", "/v1/networks"}, Chains: []host.ChainInfo{chain, kv},
		Call: forward,
	})
	details := func() (map[string]any, error) { return h.HealthDetails(context.Background()) }
	d := waitIndexed(t, "my-l1", head, details)
	if d["evmChainId"] != 43112.0 || d["status"] != "ok" || d["internalTransactions"] != "debug" || d["external"] != nil {
		t.Errorf("health details: %v", d)
	}

	info := listedChain(t, h.ModuleURL())
	base := strings.TrimSuffix(h.ModuleURL(), "/")
	if info.ChainID != "43112" || info.ChainName != "my-l1" || info.PlatformChainID != chain.ID.String() || info.VMID != subnetEVMID ||
		info.RPCURL != base+"/ext/bc/my-l1/rpc" || info.WSURL != "ws"+strings.TrimPrefix(base, "http")+"/ext/bc/my-l1/ws" ||
		info.Status != "OK" || info.InternalTransactionsIndexed == nil || !*info.InternalTransactionsIndexed {
		t.Errorf("/v1/chains lists %+v", info)
	}

	waitIndexed(t, "C", head, nodeDataDetails(n))
	key, err := crypto.HexToECDSA(avaxvectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	path := "/v1/chains/43112/addresses/" + crypto.PubkeyToAddress(key.PublicKey).Hex() + "/transactions?pageSize=100"
	want, err := getBody(n.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := getBody(h.ModuleURL() + path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("GET %s = %s (%v)\nwant the node's own %s", path, got, err, want)
	}

	h.SetChain(vmChain(t, false))
	plugintest.Eventually(t, 30*time.Second, func() error {
		if info := listedChain(t, h.ModuleURL()); info.Status != "UNAVAILABLE" {
			return fmt.Errorf("stopped chain: %+v", info)
		}
		return nil
	})
	head = transfers(t, c, 1)
	h.SetChain(chain)
	waitIndexed(t, "my-l1", head, details)

	t.Run("an external-chains entry wins", func(t *testing.T) {
		h := plugintest.StartModule(t, dataapi.New(dataapi.Options{}), plugintest.Options{
			Name: "data", NetworkID: 12345, Chains: []host.ChainInfo{chain}, Call: forward,
			Prefixes: []string{"/v1/chains", "/v1/address", "/v1/networks"},
			Config:   fmt.Appendf(nil, `{"external-chains": [{"name": "by-url", "chain-id": 43112, "rpc-url": %q}]}`, rpcURL),
		})
		details := func() (map[string]any, error) { return h.HealthDetails(context.Background()) }
		waitIndexed(t, "by-url", head, details)
		d, err := details()
		if err != nil {
			t.Fatal(err)
		}
		if chains := d["chains"].(map[string]any); len(chains) != 1 {
			t.Errorf("chains indexed: %v, want by-url alone", chains)
		}
	})
}
