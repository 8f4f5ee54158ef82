package compat

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	cclient "github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/client"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/customtypes"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/c"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
	ethcommon "github.com/ava-labs/libevm/common"
)

// cConfig runs the local network's X-Chain and C-Chain.
const cConfig = `
chains:
  - alias: X
    vm: avm
    genesis:
      assets:
        - {alias: AVAX, name: Avalanche, symbol: AVAX, denomination: 9,
           initialState: {fixedCap: [{amount: "300000000000000000", address: X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u}]}}
    legacy-index-kinds: [vtx]
  - alias: C
    vm: evm
    genesis:
      config: {chainId: 43112, homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0,
               byzantiumBlock: 0, constantinopleBlock: 0, petersburgBlock: 0, istanbulBlock: 0,
               muirGlacierBlock: 0, berlinBlock: 0, londonBlock: 0, shanghaiTime: 0, cancunTime: 0,
               terminalTotalDifficulty: 0}
      gasLimit: "0x1c9c380"
      difficulty: "0x0"
      alloc: {"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": {balance: "0x295be96e64066972000000"}}
    config: {cache-mb: 32}
`

// cWallet is avalanchego's C-Chain wallet of keys, built as
// primary.MakeWallet builds it: the context from the info API and the
// X-Chain, the atomic UTXOs exported to C by the chains in sources (the
// coreth client's avax.getUTXOs), the accounts from eth_getBalance and
// eth_getTransactionCount.
func cWallet(t *testing.T, uri string, keys []*secp256k1.PrivateKey, sources ...string) (c.Wallet, cclient.Client, *c.Context) {
	t.Helper()
	ctx := context.Background()
	cctx, err := c.NewContextFromURI(ctx, uri)
	if err != nil {
		t.Fatalf("C context from %s: %v", uri, err)
	}
	var srcIDs []ids.ID
	for _, src := range sources {
		srcID, err := chainID(ctx, uri, src)
		if err != nil {
			t.Fatal(err)
		}
		srcIDs = append(srcIDs, srcID)
	}
	w, client := newCWallet(t, uri, cctx, keys, srcIDs...)
	return w, client, cctx
}

// newCWallet is avalanchego's C-Chain wallet of keys on the chain of cctx,
// served at uri, with the atomic UTXOs the chains of sources exported to it.
func newCWallet(t *testing.T, uri string, cctx *c.Context, keys []*secp256k1.PrivateKey, sources ...ids.ID) (c.Wallet, cclient.Client) {
	t.Helper()
	ctx := context.Background()
	kc := secp256k1fx.NewKeychain(keys...)
	client := cclient.NewCChainClient(uri)
	utxos := common.NewUTXOs()
	for _, src := range sources {
		if err := primary.AddAllUTXOs(ctx, utxos, client, atomic.Codec, src, cctx.BlockchainID, kc.Addresses().List()); err != nil {
			t.Fatalf("C's atomic UTXOs from %s: %v", src, err)
		}
	}
	eth, err := primary.FetchEthState(ctx, uri, kc.EthAddresses())
	if err != nil {
		t.Fatalf("C accounts: %v", err)
	}
	backend := c.NewBackend(common.NewChainUTXOs(cctx.BlockchainID, utxos), eth.Accounts)
	return c.NewWallet(c.NewBuilder(kc.Addresses(), kc.EthAddresses(), cctx, backend), c.NewSigner(kc, kc, backend), client, eth.Client, backend), client
}

// weiBalance reads an account's EVM balance over JSON-RPC.
func weiBalance(t *testing.T, uri string, addr ethcommon.Address) *big.Int {
	t.Helper()
	var hexBal string
	if err := call(context.Background(), uri+"/ext/bc/C/rpc", "eth_getBalance", []any{addr.Hex(), "latest"}, &hexBal); err != nil {
		t.Fatal(err)
	}
	b, ok := new(big.Int).SetString(hexBal[2:], 16)
	if !ok {
		t.Fatalf("balance %q", hexBal)
	}
	return b
}

// TestCChainAtomic: avalanchego v1.14's wallets move AVAX from X to
// chainhost's C-Chain and back: its X wallet exports to C, its C wallet
// (wallet/chain/c, with coreth's client) imports it and exports to X, its
// X wallet imports that. chainhost accepts each transaction as avalanchego
// built and signed it (the dynamic fee it computes from eth_baseFee), the
// EVM balance moves by exactly the amounts, and the node's bytes decode
// with coreth's codec to the same transactions.
func TestCChainAtomic(t *testing.T) {
	n := startNode(t, cConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ewoq := ewoqKey(t)
	recv := newKey(t)
	xID, err := chainID(ctx, n.URL, "X")
	if err != nil {
		t.Fatal(err)
	}
	cID, err := chainID(ctx, n.URL, "C")
	if err != nil {
		t.Fatal(err)
	}

	// X → C: avalanchego's X wallet exports, its C wallet imports to a new
	// EVM account.
	xw, _, xctx := xWallet(t, n.URL, "X", []*secp256k1.PrivateKey{ewoq})
	if _, err := xw.IssueExportTx(cID, []*avax.TransferableOutput{{
		Asset: avax.Asset{ID: xctx.AVAXAssetID},
		Out:   &secp256k1fx.TransferOutput{Amt: 4_000_000_000, OutputOwners: ownerOf(recv)},
	}}, common.WithContext(ctx)); err != nil {
		t.Fatalf("X export to C: %v", err)
	}
	cw, client, cctx := cWallet(t, n.URL, []*secp256k1.PrivateKey{recv}, "X")
	if cctx.AVAXAssetID != xctx.AVAXAssetID || cctx.BlockchainID != cID {
		t.Fatalf("C context %+v", cctx)
	}
	to := recv.PublicKey().EthAddress()
	imp, err := cw.IssueImportTx(xID, to, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("avalanchego's C import: %v", err)
	}
	impOut := imp.UnsignedAtomicTx.(*atomic.UnsignedImportTx).Outs[0].Amount
	if got, want := weiBalance(t, n.URL, to), new(big.Int).Mul(new(big.Int).SetUint64(impOut), big.NewInt(1e9)); got.Cmp(want) != 0 {
		t.Fatalf("balance after the import %s wei, want exactly %s", got, want)
	}
	if burned, err := imp.Burned(cctx.AVAXAssetID); err != nil || burned+impOut != 4_000_000_000 || burned == 0 {
		t.Fatalf("the import burns %d (%v)", burned, err)
	}
	sameAtomicTx(t, client, imp)

	// C → X: avalanchego's C wallet exports from that account, its X wallet
	// imports.
	exp, err := cw.IssueExportTx(xID, []*secp256k1fx.TransferOutput{{Amt: 1_500_000_000, OutputOwners: ownerOf(ewoq)}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("avalanchego's C export: %v", err)
	}
	in := exp.UnsignedAtomicTx.(*atomic.UnsignedExportTx).Ins[0]
	if in.Address != to || in.Nonce != 0 {
		t.Fatalf("export input %+v", in)
	}
	left := new(big.Int).Mul(new(big.Int).SetUint64(impOut-in.Amount), big.NewInt(1e9))
	if got := weiBalance(t, n.URL, to); got.Cmp(left) != 0 {
		t.Fatalf("balance after the export %s wei, want exactly %s", got, left)
	}
	var nonce string
	if err := call(ctx, n.URL+"/ext/bc/C/rpc", "eth_getTransactionCount", []any{to.Hex(), "latest"}, &nonce); err != nil || nonce != "0x1" {
		t.Fatalf("nonce after the export %s (%v), want 0x1", nonce, err)
	}
	sameAtomicTx(t, client, exp)
	xClient := avm.NewClient(n.URL, "X")
	waiting, _, _, err := xClient.GetAtomicUTXOs(ctx, []ids.ShortID{ewoq.Address()}, "C", 1024, ids.ShortEmpty, ids.Empty)
	if err != nil || len(waiting) != 1 {
		t.Fatalf("X's atomic UTXOs from C: %d (%v)", len(waiting), err)
	}
	xw2, _, _ := xWallet(t, n.URL, "X", []*secp256k1.PrivateKey{ewoq}, "C")
	xImp, err := xw2.IssueImportTx(cID, &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{ewoq.Address()}}, common.WithContext(ctx))
	if err != nil {
		t.Fatalf("X import from C: %v", err)
	}
	sameTx(t, xClient, xImp)
	if rest, _, _, _ := xClient.GetAtomicUTXOs(ctx, []ids.ShortID{ewoq.Address()}, "C", 1024, ids.ShortEmpty, ids.Empty); len(rest) != 0 {
		t.Fatal("the UTXO X imported is still in shared memory")
	}
	// C's getUTXOs from X is empty now, in the coreth client's reading.
	if rest, _, _, err := client.GetAtomicUTXOs(ctx, []ids.ShortID{recv.Address()}, "X", 1024, ids.ShortEmpty, ids.Empty); err != nil || len(rest) != 0 {
		t.Fatalf("C's atomic UTXOs from X after the import: %d (%v)", len(rest), err)
	}
}

// sameAtomicTx checks that the node has a transaction Accepted, and that
// its getAtomicTx bytes decode with coreth's codec to the transaction
// avalanchego built.
func sameAtomicTx(t *testing.T, client cclient.Client, want *atomic.Tx) {
	t.Helper()
	ctx := context.Background()
	if s, err := client.GetAtomicTxStatus(ctx, want.ID()); err != nil || s != atomic.Accepted {
		t.Fatalf("status of %s: %s (%v)", want.ID(), s, err)
	}
	raw, err := client.GetAtomicTx(ctx, want.ID())
	if err != nil {
		t.Fatalf("getAtomicTx %s: %v", want.ID(), err)
	}
	got, err := atomic.ExtractAtomicTx(raw, atomic.Codec)
	if err != nil || got.ID() != want.ID() || !bytes.Equal(got.SignedBytes(), want.SignedBytes()) {
		t.Fatalf("getAtomicTx %s decodes to %v (%v), not to the transaction issued", want.ID(), got, err)
	}
}

// TestAtomicVectors: every byte vector the C-Chain's atomic tests trust
// (plugins/evm/testdata/coreth-v1.14.2.json) is what coreth's own code
// makes of it: the transactions decode and encode back with their IDs, the
// signatures recover to the ewoq key, and the exported UTXO, the block
// batch and its hash, the gas, the fees, the input IDs and the address are
// coreth's.
func TestAtomicVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "plugins", "evm", "testdata", "coreth-v1.14.2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		EthAddr, CAddr, ImportTx, ImportTxID, ImportUnsigned, ExportTx, ExportTxID string
		ExportUTXO, ExportUTXOID, Batch, ExtDataHash                               string
		ImportGas, ExportGas, ImportFee25Gwei, ExportFee25Gwei                     uint64
		ExportInputIDs                                                             []string
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	kb, _ := hex.DecodeString(ewoqHex)
	ewoq, _ := secp256k1.ToPrivateKey(kb)
	txs := map[string]*atomic.Tx{}
	for _, c := range []struct{ name, raw, id string }{{"import", v.ImportTx, v.ImportTxID}, {"export", v.ExportTx, v.ExportTxID}} {
		tx, err := atomic.ExtractAtomicTx(unhex(c.raw), atomic.Codec)
		if err != nil {
			t.Fatalf("%s does not parse with coreth's codec: %v", c.name, err)
		}
		if again, err := atomic.Codec.Marshal(atomic.CodecVersion, tx); err != nil || !bytes.Equal(again, unhex(c.raw)) {
			t.Errorf("%s encodes back to other bytes (%v)", c.name, err)
		}
		if tx.ID().String() != c.id {
			t.Errorf("%s ID %s, vector %s", c.name, tx.ID(), c.id)
		}
		hash := hashing.ComputeHash256(tx.Bytes())
		for i, cred := range tx.Creds {
			for _, sig := range cred.(*secp256k1fx.Credential).Sigs {
				if pub, err := secp256k1.RecoverPublicKeyFromHash(hash, sig[:]); err != nil || pub.Address() != ewoq.Address() {
					t.Errorf("%s credential %d does not recover to the ewoq key (%v)", c.name, i, err)
				}
			}
		}
		txs[c.name] = tx
	}
	if hex.EncodeToString(txs["import"].Bytes()) != v.ImportUnsigned {
		t.Error("importUnsigned is not the import's unsigned bytes")
	}
	if g, _ := txs["import"].GasUsed(true); g != v.ImportGas {
		t.Errorf("import gas %d, vector %d", g, v.ImportGas)
	}
	if g, _ := txs["export"].GasUsed(true); g != v.ExportGas {
		t.Errorf("export gas %d, vector %d", g, v.ExportGas)
	}
	for _, c := range []struct{ gas, fee uint64 }{{v.ImportGas, v.ImportFee25Gwei}, {v.ExportGas, v.ExportFee25Gwei}} {
		if f, err := atomic.CalculateDynamicFee(c.gas, big.NewInt(25e9)); err != nil || f != c.fee {
			t.Errorf("fee of %d gas %d (%v), vector %d", c.gas, f, err, c.fee)
		}
	}
	_, reqs, err := txs["export"].AtomicOps()
	if err != nil || len(reqs.PutRequests) != 1 || hex.EncodeToString(reqs.PutRequests[0].Value) != v.ExportUTXO ||
		hex.EncodeToString(reqs.PutRequests[0].Key) != v.ExportUTXOID {
		t.Errorf("export's atomic put: %v", err)
	}
	var ins []string
	for id := range txs["export"].InputUTXOs() {
		ins = append(ins, hex.EncodeToString(id[:]))
	}
	if len(ins) != 1 || len(v.ExportInputIDs) != 1 || ins[0] != v.ExportInputIDs[0] {
		t.Errorf("export input IDs %v, vector %v", ins, v.ExportInputIDs)
	}
	batch, err := atomic.ExtractAtomicTxsBatch(unhex(v.Batch), atomic.Codec)
	if err != nil || len(batch) != 2 || batch[0].ID() != txs["import"].ID() || batch[1].ID() != txs["export"].ID() {
		t.Errorf("batch: %v", err)
	}
	if h := customtypes.CalcExtDataHash(unhex(v.Batch)); h.Hex() != v.ExtDataHash {
		t.Errorf("batch hash %s, vector %s", h.Hex(), v.ExtDataHash)
	}
	if a, err := address.Format("C", "local", ewoq.Address().Bytes()); err != nil || a != v.CAddr {
		t.Errorf("C address %s (%v), vector %s", a, err, v.CAddr)
	}
	if a := ethcommon.Address(ewoq.PublicKey().EthAddress()); a.Hex() != v.EthAddr {
		t.Errorf("EVM address %s, vector %s", a.Hex(), v.EthAddr)
	}
}
