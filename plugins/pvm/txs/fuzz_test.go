package txs_test

import (
	"bytes"
	"testing"

	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
)

// FuzzParse: any bytes are parsed without panicking or allocating beyond
// their size's worth; what parses re-encodes to the same bytes and parses
// again to the same ID, and the structural checks take it without
// panicking, against a context that lets them go past the network and
// chain.
func FuzzParse(f *testing.F) {
	v := vectors.LoadP(f)
	for _, name := range txNames {
		f.Add(v.Bytes(f, name))
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0x0c})
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := txs.Parse(b)
		if err != nil {
			return
		}
		if !bytes.Equal(tx.Bytes(), b) {
			t.Fatalf("Parse(%x) re-encodes as %x", b, tx.Bytes())
		}
		again, err := txs.Parse(tx.Bytes())
		if err != nil || again.ID() != tx.ID() {
			t.Fatalf("Parse(%x) again: %v, ID %v, want %s", b, err, again, tx.ID())
		}
		base := tx.Unsigned.Base()
		_ = txs.Verify(tx, txs.Context{NetworkID: base.NetworkID, ChainID: base.BlockchainID, AVAXAssetID: avaxID})
	})
}
