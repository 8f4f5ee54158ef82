package txs_test

import (
	"bytes"
	"testing"

	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
)

// FuzzParse: any bytes are parsed without panicking or allocating beyond
// their size's worth; what parses re-encodes to the same bytes (the codec
// has one encoding per transaction, as avalanchego's).
func FuzzParse(f *testing.F) {
	v := vectors.LoadX(f)
	for _, name := range []string{"genesisTx", "baseTx", "exportTx", "importTx"} {
		f.Add(v.Bytes(f, name))
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := txs.Parse(b)
		if err != nil {
			return
		}
		if !bytes.Equal(tx.Bytes(), b) {
			t.Fatalf("Parse(%x) re-encodes as %x", b, tx.Bytes())
		}
	})
}
