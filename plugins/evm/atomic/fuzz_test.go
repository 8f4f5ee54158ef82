package atomic_test

import (
	"bytes"
	"testing"

	"github.com/chainhost/chainhost/plugins/evm/atomic"
)

// FuzzParse: any bytes are parsed without panicking or allocating beyond
// their size's worth; what parses re-encodes to the same bytes, and the
// checks of Verify take it without panicking, against a context that lets
// them go past the network and chain.
func FuzzParse(f *testing.F) {
	v := loadVectors(f)
	f.Add(unhex(f, v.ImportTx))
	f.Add(unhex(f, v.ExportTx))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := atomic.Parse(b)
		if err != nil {
			return
		}
		if !bytes.Equal(tx.Bytes(), b) {
			t.Fatalf("Parse(%x) re-encodes as %x", b, tx.Bytes())
		}
		ctx := atomic.Context{AVAXAssetID: avaxID}
		switch u := tx.Unsigned.(type) {
		case *atomic.ImportTx:
			ctx.NetworkID, ctx.ChainID = u.NetworkID, u.BlockchainID
		case *atomic.ExportTx:
			ctx.NetworkID, ctx.ChainID = u.NetworkID, u.BlockchainID
		}
		_ = atomic.Verify(tx, ctx, 1000)
	})
}

// FuzzParseBatch: the same for a block's batch of atomic transactions;
// what parses encodes back to the same bytes.
func FuzzParseBatch(f *testing.F) {
	f.Add(unhex(f, loadVectors(f).Batch))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		list, err := atomic.ParseBatch(b)
		if err != nil {
			return
		}
		if got := atomic.EncodeBatch(list); !bytes.Equal(got, b) {
			t.Fatalf("ParseBatch(%x) encodes back as %x", b, got)
		}
	})
}
