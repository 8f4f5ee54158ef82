package compat

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x"
	xbuilder "github.com/ava-labs/avalanchego/wallet/chain/x/builder"
	xsigner "github.com/ava-labs/avalanchego/wallet/chain/x/signer"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// config runs two X-Chains: X, as on the local network, and X2, the
// other side of X's atomic transactions.
const config = `
chains:
  - alias: X
    vm: avm
    genesis: &genesis
      assets:
        - {alias: AVAX, name: Avalanche, symbol: AVAX, denomination: 9,
           initialState: {fixedCap: [{amount: "300000000000000000", address: X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u}]}}
    legacy-index-kinds: [vtx]
  - alias: X2
    vm: avm
    genesis: *genesis
`

const ewoqHex = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// ewoqKey is the well-known local key, funded by the default genesis.
func ewoqKey(t *testing.T) *secp256k1.PrivateKey {
	t.Helper()
	kb, err := hex.DecodeString(ewoqHex)
	if err != nil {
		t.Fatal(err)
	}
	k, err := secp256k1.ToPrivateKey(kb)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newKey is a fresh key, owning nothing yet.
func newKey(t *testing.T) *secp256k1.PrivateKey {
	t.Helper()
	k, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ownerOf is the one-of-one owner of k's address.
func ownerOf(k *secp256k1.PrivateKey) secp256k1fx.OutputOwners {
	return secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{k.Address()}}
}

// xWallet is avalanchego's X-Chain wallet of keys on chain alias, built as
// primary.MakeWallet builds it: the context from the node's info and avm
// APIs, the UTXOs (of the chain and those exported to it by the chains in
// sources) from avm.getUTXOs.
func xWallet(t *testing.T, uri, alias string, keys []*secp256k1.PrivateKey, sources ...string) (x.Wallet, *avm.Client, *xbuilder.Context) {
	t.Helper()
	ctx := context.Background()
	xctx, err := x.NewContextFromURI(ctx, uri)
	if err != nil {
		t.Fatalf("context from %s: %v", uri, err)
	}
	client := avm.NewClient(uri, alias)
	if alias != xbuilder.Alias {
		// NewContextFromURI reads the chain called X.
		infoID, err := chainID(ctx, uri, alias)
		if err != nil {
			t.Fatal(err)
		}
		xctx.BlockchainID = infoID
	}
	var srcIDs []ids.ID
	for _, src := range sources {
		srcID, err := chainID(ctx, uri, src)
		if err != nil {
			t.Fatal(err)
		}
		srcIDs = append(srcIDs, srcID)
	}
	return newXWallet(t, client, xctx, keys, srcIDs...), client, xctx
}

// newXWallet is avalanchego's X-Chain wallet of keys on the chain of xctx,
// served by client, with its UTXOs and those the chains of sources
// exported to it.
func newXWallet(t *testing.T, client *avm.Client, xctx *xbuilder.Context, keys []*secp256k1.PrivateKey, sources ...ids.ID) x.Wallet {
	t.Helper()
	kc := secp256k1fx.NewKeychain(keys...)
	utxos := common.NewUTXOs()
	for _, src := range append([]ids.ID{xctx.BlockchainID}, sources...) {
		if err := primary.AddAllUTXOs(context.Background(), utxos, client, xbuilder.Parser.Codec(), src, xctx.BlockchainID, kc.Addresses().List()); err != nil {
			t.Fatalf("UTXOs of %s from %s: %v", xctx.BlockchainID, src, err)
		}
	}
	backend := x.NewBackend(xctx, common.NewChainUTXOs(xctx.BlockchainID, utxos))
	return x.NewWallet(xbuilder.New(kc.Addresses(), xctx, backend), xsigner.New(kc, backend), client, backend)
}

func chainID(ctx context.Context, uri, alias string) (ids.ID, error) {
	var id ids.ID
	err := call(ctx, uri+"/ext/info", "info.getBlockchainID", map[string]string{"alias": alias}, &struct {
		BlockchainID *ids.ID `json:"blockchainID"`
	}{&id})
	return id, err
}

// sameTx checks that the node's bytes of a transaction decode with
// avalanchego's codec to the transaction avalanchego built.
func sameTx(t *testing.T, client *avm.Client, want *txs.Tx) {
	t.Helper()
	got, err := client.GetTx(context.Background(), want.ID())
	if err != nil {
		t.Fatalf("getTx %s: %v", want.ID(), err)
	}
	parsed, err := xbuilder.Parser.ParseTx(got)
	if err != nil {
		t.Fatalf("avalanchego cannot parse chainhost's getTx %s: %v", want.ID(), err)
	}
	if parsed.ID() != want.ID() || !bytes.Equal(parsed.Bytes(), want.Bytes()) {
		t.Fatalf("getTx %s decodes to %s, not to the transaction issued", want.ID(), parsed.ID())
	}
	//lint:ignore SA1019 getTxStatus is part of the X API chainhost serves; it is checked on purpose
	if s, err := client.GetTxStatus(context.Background(), want.ID()); err != nil || s.String() != "Accepted" {
		t.Fatalf("status of %s: %s, %v", want.ID(), s, err)
	}
}

// TestAvalanchegoWallet: avalanchego v1.14's X wallet builds and signs a
// transfer and an export on chainhost's X-Chain, then an import of that
// export on X2; chainhost accepts each as is, and its getTx, getUTXOs,
// getBalance and block bytes decode with avalanchego's codec.
func TestAvalanchegoWallet(t *testing.T) {
	n := startNode(t, config)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ewoq := ewoqKey(t)
	recipient := newKey(t)
	wallet, client, xctx := xWallet(t, n.URL, "X", []*secp256k1.PrivateKey{ewoq})

	// A transfer.
	send, err := wallet.IssueBaseTx([]*avax.TransferableOutput{{
		Asset: avax.Asset{ID: xctx.AVAXAssetID},
		Out:   &secp256k1fx.TransferOutput{Amt: 3_000_000_000, OutputOwners: ownerOf(recipient)},
	}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("issue avalanchego's BaseTx: %v", err)
	}
	sameTx(t, client, send)
	//lint:ignore SA1019 getBalance is part of the X API chainhost serves; it is checked on purpose
	bal, err := client.GetBalance(ctx, recipient.Address(), "AVAX", false)
	if err != nil || uint64(bal.Balance) != 3_000_000_000 || len(bal.UTXOIDs) != 1 {
		t.Fatalf("recipient's balance: %+v, %v", bal, err)
	}
	//lint:ignore SA1019 getAllBalances is part of the X API chainhost serves; it is checked on purpose
	all, err := client.GetAllBalances(ctx, ewoq.Address(), false)
	if err != nil || len(all) != 1 || uint64(all[0].Balance) != 300_000_000_000_000_000-3_000_000_000-xctx.BaseTxFee {
		t.Fatalf("ewoq's balances: %+v, %v", all, err)
	}

	// An export to X2.
	x2ID, err := chainID(ctx, n.URL, "X2")
	if err != nil {
		t.Fatal(err)
	}
	export, err := wallet.IssueExportTx(x2ID, []*avax.TransferableOutput{{
		Asset: avax.Asset{ID: xctx.AVAXAssetID},
		Out:   &secp256k1fx.TransferOutput{Amt: 5_000_000_000, OutputOwners: ownerOf(ewoq)},
	}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("issue avalanchego's ExportTx: %v", err)
	}
	sameTx(t, client, export)

	// X2 sees it with avalanchego's client, and avalanchego's wallet
	// imports it.
	x2Client := avm.NewClient(n.URL, "X2")
	atomic, _, _, err := x2Client.GetAtomicUTXOs(ctx, []ids.ShortID{ewoq.Address()}, "X", 1024, ids.ShortEmpty, ids.Empty)
	if err != nil || len(atomic) != 1 {
		t.Fatalf("X2's atomic UTXOs from X: %d, %v", len(atomic), err)
	}
	var utxo avax.UTXO
	if _, err := xbuilder.Parser.Codec().Unmarshal(atomic[0], &utxo); err != nil || utxo.TxID != export.ID() {
		t.Fatalf("avalanchego cannot parse the exported UTXO: %v", err)
	}
	xID, _ := chainID(ctx, n.URL, "X")
	x2Wallet, _, _ := xWallet(t, n.URL, "X2", []*secp256k1.PrivateKey{ewoq}, "X")
	imp, err := x2Wallet.IssueImportTx(xID, &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{ewoq.Address()}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("issue avalanchego's ImportTx: %v", err)
	}
	sameTx(t, x2Client, imp)
	if left, _, _, _ := x2Client.GetAtomicUTXOs(ctx, []ids.ShortID{ewoq.Address()}, "X", 1024, ids.ShortEmpty, ids.Empty); len(left) != 0 {
		t.Fatalf("the imported UTXO is still in shared memory")
	}

	// The blocks that hold them decode with avalanchego's block parser.
	height, err := client.GetHeight(ctx)
	if err != nil || height != 2 {
		t.Fatalf("X height %d, %v", height, err)
	}
	var held []ids.ID
	for h := uint64(1); h <= height; h++ {
		raw, err := client.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := xbuilder.Parser.ParseBlock(raw)
		if err != nil || blk.Height() != h {
			t.Fatalf("avalanchego cannot parse block %d: %v", h, err)
		}
		for _, tx := range blk.Txs() {
			held = append(held, tx.ID())
		}
	}
	if fmt.Sprint(held) != fmt.Sprint([]ids.ID{send.ID(), export.ID()}) {
		t.Fatalf("X's blocks hold %v", held)
	}

	// The X/tx index holds avalanchego's bytes: walk it as docs/api/index.md says.
	for i, want := range []*txs.Tx{send, export} {
		var c struct {
			ID    ids.ID `json:"id"`
			Bytes string `json:"bytes"`
		}
		if err := call(ctx, n.URL+"/ext/index/X/tx", "index.getContainerByIndex", map[string]any{"index": i, "encoding": "hex"}, &c); err != nil {
			t.Fatal(err)
		}
		raw, err := formatting.Decode(formatting.Hex, c.Bytes)
		if err != nil || c.ID != want.ID() || !bytes.Equal(raw, want.Bytes()) {
			t.Fatalf("X/tx %d: %s, %v", i, c.ID, err)
		}
	}

	// A new asset, with a supply and a mint output, then a transfer of it:
	// a wallet made anew reads the asset's UTXOs (the mint one too) with
	// avalanchego's codec, as a user's wallet would after the creation.
	create, err := wallet.IssueCreateAssetTx("Test Token", "TT", 2, map[uint32][]verify.State{0: {
		&secp256k1fx.MintOutput{OutputOwners: ownerOf(ewoq)},
		&secp256k1fx.TransferOutput{Amt: 1_000_000, OutputOwners: ownerOf(ewoq)},
	}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("issue avalanchego's CreateAssetTx: %v", err)
	}
	sameTx(t, client, create)
	desc, err := client.GetAssetDescription(ctx, create.ID().String())
	if err != nil || desc.AssetID != create.ID() || desc.Name != "Test Token" || desc.Symbol != "TT" || desc.Denomination != 2 {
		t.Fatalf("getAssetDescription of the new asset: %+v, %v", desc, err)
	}
	wallet, _, _ = xWallet(t, n.URL, "X", []*secp256k1.PrivateKey{ewoq})
	minters := 0
	for _, u := range utxosOf(t, client, ewoq.Address()) {
		if _, ok := u.Out.(*secp256k1fx.MintOutput); ok && u.AssetID() == create.ID() {
			minters++
		}
	}
	if minters != 1 {
		t.Fatalf("ewoq's mint outputs of the new asset: %d, want 1", minters)
	}
	sendAsset, err := wallet.IssueBaseTx([]*avax.TransferableOutput{{
		Asset: avax.Asset{ID: create.ID()},
		Out:   &secp256k1fx.TransferOutput{Amt: 250, OutputOwners: ownerOf(recipient)},
	}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("issue avalanchego's BaseTx of the new asset: %v", err)
	}
	sameTx(t, client, sendAsset)
	//lint:ignore SA1019 getBalance is part of the X API chainhost serves; it is checked on purpose
	got, err := client.GetBalance(ctx, recipient.Address(), create.ID().String(), false)
	if err != nil || uint64(got.Balance) != 250 {
		t.Fatalf("recipient's balance of the new asset: %+v, %v", got, err)
	}
	//lint:ignore SA1019 getAllBalances is part of the X API chainhost serves; it is checked on purpose
	all, err = client.GetAllBalances(ctx, ewoq.Address(), false)
	if err != nil || len(all) != 2 || all[1].AssetID != create.ID().String() || uint64(all[1].Balance) != 1_000_000-250 {
		t.Fatalf("ewoq's balances after the new asset: %+v, %v", all, err)
	}
}

// utxosOf returns every UTXO of addr on client's chain, parsed with
// avalanchego's codec.
func utxosOf(t *testing.T, client *avm.Client, addr ids.ShortID) []*avax.UTXO {
	t.Helper()
	raw, _, _, err := client.GetUTXOs(context.Background(), []ids.ShortID{addr}, 1024, ids.ShortEmpty, ids.Empty)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*avax.UTXO, len(raw))
	for i, b := range raw {
		out[i] = &avax.UTXO{}
		if _, err := xbuilder.Parser.Codec().Unmarshal(b, out[i]); err != nil {
			t.Fatalf("avalanchego cannot parse chainhost's UTXO %x: %v", b, err)
		}
	}
	return out
}
