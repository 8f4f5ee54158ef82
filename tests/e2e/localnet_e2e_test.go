package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/core/storage"
)

// avalanchego v1.14.2's local network (avalanchego --network-id=local), as
// tools, wallets and tutorials carry them: the chain IDs, the AVAX asset
// ID, the VM IDs and their aliases (info.getVMs), and the funded keys of
// its genesis (genesis/genesis_local.json).
const (
	avagoPChainID  = "11111111111111111111111111111111LpoYY"
	avagoXChainID  = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
	avagoCChainID  = "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"
	avagoAVAXID    = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
	avagoAVMID     = "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq"
	avagoEVMID     = "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6"
	avagoPlatformV = "rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT"
	// The funded keys: ewoq's addresses, a second X/P address and the
	// C-Chain's 0x8db9..., with their amounts in nAVAX (wei on C).
	avagoEwoq      = "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	avagoSecond    = "local1ur873jhz9qnaqv5qthk5sn3e8nj3e0kmggalnu"
	avagoEwoqX     = 300_000_000_000_000_000
	avagoSecondX   = 10_000_000_000_000_000
	avagoEwoqP     = 30_000_000_000_000_000
	avagoSecondP   = 10_000_000_000_000_000
	avagoCAddress  = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
	avagoCBalance  = "0x295be96e64066972000000"
	avagoValidator = "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"
	avagoBLSKey    = "0x900c9b119b5c82d781d4b49be78c3fc7ae65f2b435b7ed9e3a8b9a03e475edff86d8a64827fec8db23a6f236afbf127d"
	avagoStake     = "2000000000000000"
)

// TestLocalNetworkIDs: the embedded default config answers avalanchego's
// local-network identifiers wherever a client reads them, and the aliases
// X, P and C still name the chains.
func TestLocalNetworkIDs(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{})
	n.WaitHealthy(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	for alias, want := range map[string]string{"X": avagoXChainID, "P": avagoPChainID, "C": avagoCChainID} {
		var r struct {
			BlockchainID string `json:"blockchainID"`
		}
		if err := n.Call(ctx, "/ext/info", "info.getBlockchainID", map[string]string{"alias": alias}, &r); err != nil || r.BlockchainID != want {
			t.Errorf("info.getBlockchainID %s = %q, %v; want %s", alias, r.BlockchainID, err, want)
		}
	}

	var vms struct {
		VMs map[string][]string `json:"vms"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getVMs", nil, &vms); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][]string{avagoAVMID: {"avm"}, avagoEVMID: {"evm"}, avagoPlatformV: {"platform"}} {
		if got := vms.VMs[id]; !reflect.DeepEqual(got, want) {
			t.Errorf("info.getVMs[%s] = %q, want %q (all: %v)", id, got, want, vms.VMs)
		}
	}

	var asset struct {
		AssetID      string `json:"assetID"`
		Symbol       string `json:"symbol"`
		Denomination string `json:"denomination"`
	}
	for _, chain := range []string{"X", avagoXChainID} {
		if err := n.Call(ctx, "/ext/bc/"+chain, "avm.getAssetDescription", map[string]string{"assetID": "AVAX"}, &asset); err != nil ||
			asset.AssetID != avagoAVAXID || asset.Symbol != "AVAX" || asset.Denomination != "9" {
			t.Errorf("avm.getAssetDescription AVAX on /ext/bc/%s = %+v, %v; want asset %s", chain, asset, err, avagoAVAXID)
		}
	}

	var chains struct {
		Blockchains []struct {
			ID       string `json:"id"`
			SubnetID string `json:"subnetID"`
			VMID     string `json:"vmID"`
		} `json:"blockchains"`
	}
	if err := n.Call(ctx, "/ext/bc/P", "platform.getBlockchains", nil, &chains); err != nil {
		t.Fatal(err)
	}
	vmOf := map[string]string{}
	for _, c := range chains.Blockchains {
		if c.SubnetID != avagoPChainID {
			t.Errorf("platform.getBlockchains: chain %s of subnet %s, want the primary network %s", c.ID, c.SubnetID, avagoPChainID)
		}
		vmOf[c.ID] = c.VMID
	}
	if vmOf[avagoXChainID] != avagoAVMID || vmOf[avagoCChainID] != avagoEVMID {
		t.Errorf("platform.getBlockchains = %+v; want X %s with VM %s and C %s with VM %s",
			chains.Blockchains, avagoXChainID, avagoAVMID, avagoCChainID, avagoEVMID)
	}

	xBalance := func(chain, addr string) uint64 {
		var r struct {
			Balance string `json:"balance"`
		}
		if err := n.Call(ctx, "/ext/bc/"+chain, "avm.getBalance", map[string]string{"address": "X-" + addr, "assetID": avagoAVAXID}, &r); err != nil {
			t.Fatalf("avm.getBalance %s: %v", addr, err)
		}
		var v uint64
		fmt.Sscan(r.Balance, &v)
		return v
	}
	pBalance := func(chain, addr string) uint64 {
		var r struct {
			Balance string `json:"balance"`
		}
		if err := n.Call(ctx, "/ext/bc/"+chain, "platform.getBalance", map[string][]string{"addresses": {"P-" + addr}}, &r); err != nil {
			t.Fatalf("platform.getBalance %s: %v", addr, err)
		}
		var v uint64
		fmt.Sscan(r.Balance, &v)
		return v
	}
	for _, tc := range []struct {
		what      string
		got, want uint64
	}{
		{"X " + avagoEwoq, xBalance("X", avagoEwoq), avagoEwoqX},
		{"X " + avagoSecond, xBalance(avagoXChainID, avagoSecond), avagoSecondX},
		{"P " + avagoEwoq, pBalance("P", avagoEwoq), avagoEwoqP},
		{"P " + avagoSecond, pBalance(avagoPChainID, avagoSecond), avagoSecondP},
	} {
		if tc.got != tc.want {
			t.Errorf("balance on %s = %d, want %d", tc.what, tc.got, tc.want)
		}
	}
	var wei string
	if err := n.Call(ctx, "/ext/bc/"+avagoCChainID+"/rpc", "eth_getBalance", []string{avagoCAddress, "latest"}, &wei); err != nil || wei != avagoCBalance {
		t.Errorf("eth_getBalance %s = %s, %v; want %s", avagoCAddress, wei, err, avagoCBalance)
	}

	var vals struct {
		Validators []struct {
			NodeID        string `json:"nodeID"`
			Weight        string `json:"weight"`
			DelegationFee string `json:"delegationFee"`
			Signer        struct {
				PublicKey string `json:"publicKey"`
			} `json:"signer"`
		} `json:"validators"`
	}
	if err := n.Call(ctx, "/ext/P", "platform.getCurrentValidators", map[string][]string{"nodeIDs": {avagoValidator}}, &vals); err != nil ||
		len(vals.Validators) != 1 || vals.Validators[0].DelegationFee != "100.0000" || vals.Validators[0].Weight != avagoStake ||
		vals.Validators[0].Signer.PublicKey != avagoBLSKey {
		t.Errorf("platform.getCurrentValidators %s = %+v, %v; want a stake of %s, a delegation fee of 100%%, BLS key %s",
			avagoValidator, vals, err, avagoStake, avagoBLSKey)
	}
}

// The chain IDs the X-, P- and C-Chains of the embedded default config
// had before they took avalanchego's.
const (
	earlierXChainID = "2nE7fYgLUjcWeh64LTFUpQcFy7eyABHBehQRYYXPWehLcEC3Cz"
	earlierPChainID = "cV4GtnwvavietLgPiaPqD8Wn1oqofNp6fG1GeYoRX71AN8bQh"
	earlierCChainID = "fP54KJG6bDLYvVyqnZpbSzZ7cu2mig5dUxChDoNcL8aMDLtPs"
)

// TestDataDirOfEarlierIDs: a data dir that holds chains under IDs the
// config no longer gives them is refused at start, saying what changed
// and what to do, rather than run the chains afresh beside the old state.
func TestDataDirOfEarlierIDs(t *testing.T) {
	t.Parallel()
	// A data dir of an earlier chainhost: the default chains' state under
	// their earlier IDs (where the host keeps a chain's state), no record
	// of the chains' IDs.
	dir := t.TempDir()
	db, err := storage.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{earlierXChainID, earlierPChainID, earlierCChainID} {
		if err := db.Namespace("chains").Namespace(id).Put([]byte("state"), []byte("of the earlier chain")); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	n := nodetest.Start(t, nodetest.Options{DataDir: dir, NoWait: true})
	if code, err := n.Wait(time.Minute); err != nil || code == 0 {
		t.Fatalf("the node on an earlier data dir: exit %d, %v; want a refusal\n%s", code, err, n.Output())
	}
	for _, want := range []string{
		"the data dir " + dir + " holds chains " + earlierXChainID + ", " + earlierPChainID + ", " + earlierCChainID + " that no chain of the config has",
		"X " + avagoXChainID, "P " + avagoPChainID, "C " + avagoCChainID,
		"To keep a chain's state, give the chain its earlier ID (id in its config); else start with a new --data-dir, or remove " + dir,
	} {
		if !strings.Contains(n.Output(), want) {
			t.Errorf("output lacks %q:\n%s", want, n.Output())
		}
	}

	// A chain run under one ID, then configured with another: refused at
	// the next start, the data dir kept as it was.
	dir = t.TempDir()
	n = nodetest.Start(t, nodetest.Options{DataDir: dir, Config: "chains: [{alias: kv, vm: example}]\nmodules: []\n"})
	n.WaitHealthy(t)
	var r struct {
		BlockchainID string `json:"blockchainID"`
	}
	if err := n.Call(context.Background(), "/ext/info", "info.getBlockchainID", map[string]string{"alias": "kv"}, &r); err != nil {
		t.Fatal(err)
	}
	n.Stop(t)
	n = nodetest.Start(t, nodetest.Options{DataDir: dir, NoWait: true,
		Config: "chains: [{alias: kv, vm: example, id: " + avagoXChainID + "}]\nmodules: []\n"})
	if code, err := n.Wait(time.Minute); err != nil || code == 0 {
		t.Fatalf("the node with a chain's ID changed: exit %d, %v; want a refusal\n%s", code, err, n.Output())
	}
	want := "chain kv: its ID is now " + avagoXChainID + " (the id of its config), but the data dir " + dir +
		" holds the chain as " + r.BlockchainID + ": start with a new --data-dir, or remove " + dir
	if !strings.Contains(n.Output(), want) {
		t.Errorf("output lacks %q:\n%s", want, n.Output())
	}
	// Given its ID back, the chain runs on its data.
	n = nodetest.Start(t, nodetest.Options{DataDir: dir, Config: "chains: [{alias: kv, vm: example, id: " + r.BlockchainID + "}]\nmodules: []\n"})
	n.WaitHealthy(t)
}
