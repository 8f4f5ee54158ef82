package pvm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// putFromPeer has the peer chain export a UTXO of amount nAVAX of asset to
// owner on the P-Chain, and returns it.
func (c *chain) putFromPeer(txID ids.ID, asset ids.ID, amount uint64, owner avax.ShortID) avax.UTXO {
	c.t.Helper()
	u := avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: 2}, AssetID: asset,
		Out: avax.TransferOutput{Amt: amount, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{owner}}}}
	id := u.InputID()
	if err := c.h.PutShared(peer.ID, c.h.ChainID(), host.SharedElement{Key: id[:], Value: u.Bytes(), Traits: [][]byte{owner[:]}}); err != nil {
		c.t.Fatal(err)
	}
	return u
}

// TestExport: an export spends the key's AVAX and puts the exported UTXO
// in shared memory for the destination, numbered after the outputs and
// found by its owner; getTx shows it in avalanchego's shape.
func TestExport(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	w := c.wallet
	me := w.Address()
	tx, err := w.BuildExport(ctx, peer.ID, 7_000_000, me)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Client.IssueTx(ctx, tx.Bytes()); err != nil {
		t.Fatal(err)
	}
	if got := c.balance(me); got != genesisAmount-7_000_000-fee {
		t.Fatalf("balance after the export %d", got)
	}
	shared := c.h.Shared(c.h.ChainID(), peer.ID)
	if len(shared) != 1 {
		t.Fatalf("shared memory for the peer holds %d values", len(shared))
	}
	u, err := avax.ParseUTXO(shared[0].Value)
	if err != nil || u.TxID != tx.ID() || u.Out.Amt != 7_000_000 || u.OutputIndex != uint32(len(tx.Unsigned.Base().Outs)) {
		t.Fatalf("exported UTXO %+v, %v", u, err)
	}
	if id := u.InputID(); string(shared[0].Key) != string(id[:]) || len(shared[0].Traits) != 1 || string(shared[0].Traits[0]) != string(me[:]) {
		t.Fatalf("exported UTXO key or traits: %x %x", shared[0].Key, shared[0].Traits)
	}
	var reply struct {
		Tx struct {
			Unsigned struct {
				DestinationChain ids.ID            `json:"destinationChain"`
				ExportedOutputs  []json.RawMessage `json:"exportedOutputs"`
			} `json:"unsignedTx"`
		} `json:"tx"`
	}
	if err := c.call("platform.getTx", map[string]string{"txID": tx.ID().String(), "encoding": "json"}, &reply); err != nil ||
		reply.Tx.Unsigned.DestinationChain != peer.ID || len(reply.Tx.Unsigned.ExportedOutputs) != 1 {
		t.Fatalf("getTx of the export: %+v, %v", reply, err)
	}
	// Exporting to no chain of the node, or to the P-Chain, is refused.
	for dest, want := range map[ids.ID]string{ids.Derive([]byte("nowhere")): "not a chain of this node", c.h.ChainID(): "is this chain"} {
		tx, err := w.BuildExport(ctx, dest, 1_000, me)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Client.IssueTx(ctx, tx.Bytes()); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("export to %s: %v, want %q", dest, err, want)
		}
	}
}

// TestImport: a UTXO the peer exported to the P-Chain shows in getUTXOs
// with sourceChain; an import spends it (the fee from the imported AVAX)
// and takes it out of shared memory; a second import of it is refused, as
// are an import from a chain that is not the node's, of a UTXO the source
// never exported, and one that does not pay the fee.
func TestImport(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	w := c.wallet
	me := w.Address()
	u := c.putFromPeer(ids.ID{0x77}, w.Config.AVAXAssetID, 9_000_000, me)
	atomic, err := w.Client.AllUTXOs(ctx, []string{w.FormatAddress(me)}, "X")
	if err != nil || len(atomic) != 1 || atomic[0].InputID() != u.InputID() {
		t.Fatalf("UTXOs from X: %v, %v", atomic, err)
	}
	if _, err := w.Client.AllUTXOs(ctx, []string{w.FormatAddress(me)}, "Q"); err == nil || !strings.Contains(err.Error(), "sourceChain") {
		t.Fatalf("UTXOs from an unknown chain: %v", err)
	}
	imp, err := w.BuildImport(ctx, peer.ID.String(), me)
	if err != nil {
		t.Fatal(err)
	}
	// Refusals first: each changes one thing of the valid import.
	edit := func(f func(*txs.ImportTx)) *txs.Tx {
		cp := *imp.Unsigned.(*txs.ImportTx)
		cp.ImportedIns = append([]avax.TransferableInput{}, cp.ImportedIns...)
		cp.Outs = append([]avax.TransferableOutput{}, cp.Outs...)
		f(&cp)
		return w.Sign(&cp)
	}
	for _, r := range []struct {
		name, want string
		tx         *txs.Tx
	}{
		{"unknown source", "not a chain of this node", edit(func(t *txs.ImportTx) { t.SourceChain = ids.Derive([]byte("nowhere")) })},
		{"source is P", "is this chain", edit(func(t *txs.ImportTx) { t.SourceChain = c.h.ChainID() })},
		{"not in shared memory", "not in shared memory", edit(func(t *txs.ImportTx) { t.ImportedIns[0].UTXOID.OutputIndex = 3 })},
		{"no fee", "insufficient funds", edit(func(t *txs.ImportTx) { t.Outs[0].Out.Amt = 9_000_000 })},
		{"no imported inputs", "no imported inputs", edit(func(t *txs.ImportTx) { t.ImportedIns = nil })},
		{"not AVAX", "not AVAX", edit(func(t *txs.ImportTx) { t.ImportedIns[0].AssetID = ids.ID{9} })},
	} {
		if _, err := w.Client.IssueTx(ctx, r.tx.Bytes()); err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: %v, want %q", r.name, err, r.want)
		}
	}
	// A credential signed by another key is refused.
	forged := txs.Sign(imp.Unsigned, [][]*avax.PrivateKey{{nodeKey(t)}})
	if _, err := w.Client.IssueTx(ctx, forged.Bytes()); err == nil || !strings.Contains(err.Error(), "imported input 0") {
		t.Fatalf("an import signed by another key: %v", err)
	}
	if _, err := w.Client.IssueTx(ctx, imp.Bytes()); err != nil {
		t.Fatal(err)
	}
	// avalanche.js 3 polls the status with includeReason.
	var st struct{ Status string }
	if err := c.call("platform.getTxStatus", map[string]any{"txID": imp.ID().String(), "includeReason": true}, &st); err != nil || st.Status != "Committed" {
		t.Fatalf("getTxStatus with includeReason: %+v, %v", st, err)
	}
	if got := c.balance(me); got != genesisAmount+9_000_000-fee {
		t.Fatalf("balance after the import %d", got)
	}
	if left := c.h.Shared(peer.ID, c.h.ChainID()); len(left) != 0 {
		t.Fatalf("the imported UTXO is still in shared memory: %v", left)
	}
	again := edit(func(t *txs.ImportTx) { t.Memo = []byte("again") })
	if _, err := w.Client.IssueTx(ctx, again.Bytes()); err == nil || !strings.Contains(err.Error(), "imported already") {
		t.Fatalf("a second import of the UTXO: %v", err)
	}
	var reply struct {
		Tx struct {
			Unsigned struct {
				SourceChain    ids.ID            `json:"sourceChain"`
				ImportedInputs []json.RawMessage `json:"importedInputs"`
			} `json:"unsignedTx"`
		} `json:"tx"`
	}
	if err := c.call("platform.getTx", map[string]string{"txID": imp.ID().String(), "encoding": "json"}, &reply); err != nil ||
		reply.Tx.Unsigned.SourceChain != peer.ID || len(reply.Tx.Unsigned.ImportedInputs) != 1 {
		t.Fatalf("getTx of the import: %+v, %v", reply, err)
	}
}
