package blocks_test

import (
	"bytes"
	"testing"

	"github.com/chainhost/chainhost/avax"
	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestBlockVector: avalanchego's standard block parses, and building the
// same block gives its bytes and ID.
func TestBlockVector(t *testing.T) {
	v := vectors.LoadX(t)
	raw := v.Bytes(t, "block")
	b, err := blocks.ParseBlock(raw)
	if err != nil {
		t.Fatal(err)
	}
	if b.ID().String() != v.String(t, "blockID") || b.Height != 7 || b.Time != 1700000000 || len(b.Txs) != 2 {
		t.Fatalf("block %s height %d time %d txs %d", b.ID(), b.Height, b.Time, len(b.Txs))
	}
	if b.Txs[0].ID().String() != v.String(t, "baseTxID") || b.Txs[1].ID().String() != v.String(t, "exportTxID") {
		t.Fatalf("block txs %s %s", b.Txs[0].ID(), b.Txs[1].ID())
	}
	again := blocks.NewBlock(ids.ID{4, 5}, 7, 1700000000, b.Txs)
	if !bytes.Equal(again.Bytes(), raw) {
		t.Fatal("a new block of the same fields has other bytes")
	}
	if _, err := blocks.ParseBlock(append(append([]byte{}, raw...), 0)); err == nil {
		t.Fatal("a block with a trailing byte parsed")
	}
}

// TestVertexVector: avalanchego's vertex and stop vertex parse, and
// building them gives their bytes and IDs.
func TestVertexVector(t *testing.T) {
	v := vectors.LoadX(t)
	raw := v.Bytes(t, "vertex")
	vtx, err := blocks.ParseVertex(raw)
	if err != nil {
		t.Fatal(err)
	}
	if vtx.ID().String() != v.String(t, "vertexID") || vtx.Height != 3 || len(vtx.Parents) != 2 || len(vtx.Txs) != 2 || vtx.Stop {
		t.Fatalf("vertex %s height %d parents %d txs %d", vtx.ID(), vtx.Height, len(vtx.Parents), len(vtx.Txs))
	}
	base, exp := v.Bytes(t, "baseTx"), v.Bytes(t, "exportTx")
	built := blocks.NewVertex(ids.ID{1, 2, 3}, 3, []ids.ID{{8}, {6}}, [][]byte{base, exp})
	if !bytes.Equal(built.Bytes(), raw) {
		t.Fatalf("built vertex differs:\n got %x\nwant %x", built.Bytes(), raw)
	}
	stop := blocks.NewStopVertex(ids.ID{1, 2, 3}, 4, []ids.ID{vtx.ID()})
	if !bytes.Equal(stop.Bytes(), v.Bytes(t, "stopVertex")) || stop.ID().String() != v.String(t, "stopVertexID") {
		t.Fatalf("stop vertex %s differs", stop.ID())
	}
	parsed, err := blocks.ParseVertex(stop.Bytes())
	if err != nil || !parsed.Stop || parsed.Height != 4 {
		t.Fatalf("parse stop vertex: %+v %v", parsed, err)
	}
	for _, tx := range vtx.Txs {
		if _, err := txs.Parse(tx); err != nil {
			t.Fatalf("vertex tx: %v", err)
		}
	}
	// Transactions out of hash order are refused.
	p := avax.NewPacker(nil)
	p.Short(blocks.VertexVersion)
	p.ID(ids.ID{1, 2, 3})
	p.Long(3)
	p.Int(0)
	p.Int(0)
	p.Int(2)
	p.VarBytes(vtx.Txs[1])
	p.VarBytes(vtx.Txs[0])
	if _, err := blocks.ParseVertex(p.Bytes()); err == nil {
		t.Fatal("a vertex with transactions out of hash order parsed")
	}
	if _, err := blocks.ParseVertex(blocks.NewVertex(ids.ID{}, 0, nil, nil).Bytes()); err == nil {
		t.Fatal("a vertex without transactions parsed")
	}
}
