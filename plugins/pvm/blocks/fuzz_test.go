package blocks_test

import (
	"bytes"
	"testing"

	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/sdk/ids"
)

// FuzzParse: any bytes are parsed without panicking or allocating beyond
// their size's worth; what parses re-encodes to the same bytes and ID.
func FuzzParse(f *testing.F) {
	f.Add(vectors.LoadP(f).Bytes(f, "block"))
	f.Add(blocks.New(1_700_000_000, ids.ID{1}, 3, nil).Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		blk, err := blocks.Parse(b)
		if err != nil {
			return
		}
		again := blocks.New(blk.Time, blk.Parent, blk.Height, blk.Txs)
		if !bytes.Equal(again.Bytes(), b) || again.ID() != blk.ID() {
			t.Fatalf("Parse(%x) re-encodes as %x", b, again.Bytes())
		}
	})
}
