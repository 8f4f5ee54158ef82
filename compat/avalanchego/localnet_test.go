package compat

import (
	"context"
	"math/big"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/c"
	xbuilder "github.com/ava-labs/avalanchego/wallet/chain/x/builder"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// localNetwork is avalanchego's local network (network 12345) as its own
// packages define it: the chain IDs are those of the CreateChainTxs of its
// genesis, the AVAX asset that of its X-Chain genesis.
type localNetwork struct {
	X, P, C, AVAX ids.ID
	// XFee is the X-Chain's fee for every transaction but CreateAssetTx.
	XFee, CreateAssetFee uint64
}

// avalanchegoLocal derives localNetwork from avalanchego's genesis package.
func avalanchegoLocal(t *testing.T) localNetwork {
	t.Helper()
	bytes, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatalf("avalanchego's local genesis: %v", err)
	}
	chain := func(vm ids.ID) ids.ID {
		tx, err := genesis.VMGenesis(bytes, vm)
		if err != nil {
			t.Fatalf("avalanchego's local genesis, chain of VM %s: %v", vm, err)
		}
		return tx.ID()
	}
	fees := genesis.GetTxFeeConfig(constants.LocalID)
	return localNetwork{X: chain(constants.AVMID), P: constants.PlatformChainID, C: chain(constants.EVMID), AVAX: avaxID,
		XFee: fees.TxFee, CreateAssetFee: fees.CreateAssetTxFee}
}

// startDefault runs the host on its embedded default config, on a free
// port, and waits until every chain and module is up.
func startDefault(t *testing.T) *node {
	t.Helper()
	hostBin, plugins := binaries(t)
	n := runNode(t, exec.Command(hostBin, "--data-dir="+filepath.Join(t.TempDir(), "data"), "--plugin-dir="+plugins, "--http-port=0"))
	waitHealthy(t, n)
	return n
}

// TestLocalNetworkIdentifiers: on the embedded default config, the node
// answers avalanchego's local-network identifiers, as avalanchego's own
// packages derive them: info.getBlockchainID for X, P and C, and
// avm.getAssetDescription for AVAX (docs/avalanchego-clients.md).
func TestLocalNetworkIdentifiers(t *testing.T) {
	n := startDefault(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	local := avalanchegoLocal(t)
	infoClient := info.NewClient(n.URL)
	for alias, want := range map[string]ids.ID{"X": local.X, "P": local.P, "C": local.C} {
		if got, err := infoClient.GetBlockchainID(ctx, alias); err != nil || got != want {
			t.Errorf("info.getBlockchainID %s: %s (%v), avalanchego's %s", alias, got, err, want)
		}
	}
	if asset, err := avm.NewClient(n.URL, "X").GetAssetDescription(ctx, "AVAX"); err != nil || asset.AssetID != local.AVAX {
		t.Errorf("avm.getAssetDescription AVAX: %+v (%v), avalanchego's %s", asset, err, local.AVAX)
	}
	if id, err := infoClient.GetNetworkID(ctx); err != nil || id != constants.LocalID {
		t.Errorf("info.getNetworkID: %d (%v), avalanchego's %d", id, err, constants.LocalID)
	}
}

// TestLocalNetworkWallets: avalanchego's X, P and C wallets built with
// avalanchego's own local-network constants (avalanchegoLocal; nothing read
// from the node's info API) on a node on the embedded default config: an
// X-Chain transfer, an X→C export and a C import, an X→P export and a P
// import, a P→X export and an X import, each accepted or committed and
// moving the balances by exactly its amounts.
func TestLocalNetworkWallets(t *testing.T) {
	n := startDefault(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	local := avalanchegoLocal(t)
	ewoq := ewoqKey(t)
	friend := newKey(t)
	keys := []*secp256k1.PrivateKey{ewoq}
	out := func(amount uint64, to *secp256k1.PrivateKey) []*avax.TransferableOutput {
		return []*avax.TransferableOutput{{Asset: avax.Asset{ID: local.AVAX},
			Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: ownerOf(to)}}}
	}
	const oneAVAX = 1_000_000_000

	// X: 1 AVAX to a friend.
	xClient := avm.NewClient(n.URL, "X")
	xctx := &xbuilder.Context{NetworkID: constants.LocalID, BlockchainID: local.X, AVAXAssetID: local.AVAX,
		BaseTxFee: local.XFee, CreateAssetTxFee: local.CreateAssetFee}
	xw := newXWallet(t, xClient, xctx, keys)
	send, err := xw.IssueBaseTx(out(oneAVAX, friend), common.WithContext(ctx))
	if err != nil {
		t.Fatalf("X send: %v", err)
	}
	sameTx(t, xClient, send)
	//lint:ignore SA1019 getBalance is part of the X API chainhost serves; it is checked on purpose
	if bal, err := xClient.GetBalance(ctx, friend.Address(), local.AVAX.String(), false); err != nil || uint64(bal.Balance) != oneAVAX {
		t.Fatalf("X balance of the friend: %+v, %v; want %d", bal, err, oneAVAX)
	}

	// X → C: 2 AVAX exported, then imported to the key's EVM account.
	exportC, err := xw.IssueExportTx(local.C, out(2*oneAVAX, ewoq), common.WithContext(ctx))
	if err != nil {
		t.Fatalf("X export to C: %v", err)
	}
	sameTx(t, xClient, exportC)
	cctx := &c.Context{NetworkID: constants.LocalID, BlockchainID: local.C, AVAXAssetID: local.AVAX}
	cw, cClient := newCWallet(t, n.URL, cctx, keys, local.X)
	to := ewoq.PublicKey().EthAddress()
	before := weiBalance(t, n.URL, to)
	importC, err := cw.IssueImportTx(local.X, to, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("C import from X: %v", err)
	}
	sameAtomicTx(t, cClient, importC)
	credited := new(big.Int).Mul(new(big.Int).SetUint64(importC.UnsignedAtomicTx.(*atomic.UnsignedImportTx).Outs[0].Amount), big.NewInt(1e9))
	if got := new(big.Int).Sub(weiBalance(t, n.URL, to), before); got.Cmp(credited) != 0 {
		t.Fatalf("the C import credited %s wei, want exactly %s", got, credited)
	}

	// X → P: 3 AVAX exported, then imported to the key on P.
	exportP, err := xw.IssueExportTx(local.P, out(3*oneAVAX, ewoq), common.WithContext(ctx))
	if err != nil {
		t.Fatalf("X export to P: %v", err)
	}
	sameTx(t, xClient, exportP)
	pClient := platformvm.NewClient(n.URL)
	//lint:ignore SA1019 getBalance is part of the P API chainhost serves; it is checked on purpose
	pBefore, err := pClient.GetBalance(ctx, []ids.ShortID{ewoq.Address()})
	if err != nil {
		t.Fatalf("P balance: %v", err)
	}
	pw, _ := newPWallet(t, pClient, pContext(constants.LocalID, local.AVAX), keys, local.X)
	importP, err := pw.IssueImportTx(local.X, &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{ewoq.Address()}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("P import from X: %v", err)
	}
	if st, err := pClient.GetTxStatus(ctx, importP.ID()); err != nil || st.Status != status.Committed {
		t.Fatalf("P status of the import %s: %+v, %v", importP.ID(), st, err)
	}
	var gained uint64
	for _, o := range importP.Unsigned.(*ptxs.ImportTx).Outs {
		gained += o.Out.Amount()
	}
	//lint:ignore SA1019 getBalance is part of the P API chainhost serves; it is checked on purpose
	if pAfter, err := pClient.GetBalance(ctx, []ids.ShortID{ewoq.Address()}); err != nil || uint64(pAfter.Balance) != uint64(pBefore.Balance)+gained {
		t.Fatalf("P balance after the import: %+v, %v; want %d", pAfter, err, uint64(pBefore.Balance)+gained)
	}

	// P → X: 1 AVAX exported, then imported to the key on X by a wallet
	// that reads what P exported.
	exportX, err := pw.IssueExportTx(local.X, out(oneAVAX, ewoq), common.WithContext(ctx))
	if err != nil {
		t.Fatalf("P export to X: %v", err)
	}
	if st, err := pClient.GetTxStatus(ctx, exportX.ID()); err != nil || st.Status != status.Committed {
		t.Fatalf("P status of the export %s: %+v, %v", exportX.ID(), st, err)
	}
	//lint:ignore SA1019 getBalance is part of the X API chainhost serves; it is checked on purpose
	xBefore, err := xClient.GetBalance(ctx, ewoq.Address(), local.AVAX.String(), false)
	if err != nil {
		t.Fatalf("X balance: %v", err)
	}
	importX, err := newXWallet(t, xClient, xctx, keys, local.P).IssueImportTx(local.P, &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{ewoq.Address()}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("X import from P: %v", err)
	}
	sameTx(t, xClient, importX)
	//lint:ignore SA1019 getBalance is part of the X API chainhost serves; it is checked on purpose
	if xAfter, err := xClient.GetBalance(ctx, ewoq.Address(), local.AVAX.String(), false); err != nil || uint64(xAfter.Balance) != uint64(xBefore.Balance)+oneAVAX-local.XFee {
		t.Fatalf("X balance after the import from P: %+v, %v; want %d", xAfter, err, uint64(xBefore.Balance)+oneAVAX-local.XFee)
	}
}
