package blocks_test

import (
	"bytes"
	"testing"

	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/sdk/ids"
)

// FuzzParseBlock and FuzzParseVertex: any bytes are parsed without
// panicking; what parses re-encodes to the same bytes.
func FuzzParseBlock(f *testing.F) {
	f.Add(blocks.NewBlock(ids.ID{1}, 3, 1_700_000_000, nil).Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		blk, err := blocks.ParseBlock(b)
		if err != nil {
			return
		}
		if !bytes.Equal(blk.Bytes(), b) {
			t.Fatalf("ParseBlock(%x) re-encodes as %x", b, blk.Bytes())
		}
	})
}

func FuzzParseVertex(f *testing.F) {
	f.Add(blocks.NewVertex(ids.ID{9}, 2, []ids.ID{{1}, {2}}, [][]byte{{0, 0, 1}}).Bytes())
	f.Add(blocks.NewStopVertex(ids.ID{9}, 3, []ids.ID{{3}}).Bytes())
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := blocks.ParseVertex(b)
		if err != nil {
			return
		}
		if !bytes.Equal(v.Bytes(), b) {
			t.Fatalf("ParseVertex(%x) re-encodes as %x", b, v.Bytes())
		}
	})
}
