package utxovm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/sdk/ids"
)

// note is a one-field unsigned transaction of a test codec.
type note struct{ Text string }

func (*note) TypeID() uint32        { return 7 }
func (n *note) Pack(p *avax.Packer) { p.Str(n.Text) }

var codec = signedtx.NewCodec("note", func(u *avax.Unpacker) *note {
	if typ := u.TypeID(); u.Err() == nil && typ != 7 {
		u.Failf("unknown type ID %d", typ)
	}
	return &note{Text: u.Str()}
})

// TestBlockFormat: a block's header is its fields in the chain's order,
// and what New builds Parse reads back; an unused ID must be empty.
func TestBlockFormat(t *testing.T) {
	f := utxovm.NewBlockFormat(9, "a note block", codec.UnpackInBlock, utxovm.Time, utxovm.Parent, utxovm.Height, utxovm.EmptyID)
	tx := signedtx.New(&note{Text: "hi"}, nil)
	b := f.New(ids.ID{1}, 5, 1_700_000_000, []*signedtx.Tx[*note]{tx})
	raw := b.Bytes()
	// The codec version and the type ID, then the time first.
	p := avax.NewPacker(nil)
	p.Long(1_700_000_000)
	if !strings.HasPrefix(string(raw[6:]), string(p.Bytes())) {
		t.Fatalf("the header does not start with the time: %x", raw)
	}
	got, err := f.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID() != b.ID() || got.Parent != (ids.ID{1}) || got.Height != 5 || got.Time != 1_700_000_000 || len(got.Txs) != 1 || got.Txs[0].ID() != tx.ID() {
		t.Fatalf("parsed %+v", got)
	}
	bad := append([]byte{}, raw...)
	bad[6+8+32+8] = 1 // the unused ID
	if _, err := f.Parse(bad); err == nil || !strings.Contains(err.Error(), "want the empty ID") {
		t.Fatalf("a block with an unused ID set: %v", err)
	}
}

// TestMempool: a pending transaction claims its spends and imports until
// it leaves, and Finish ends its wait.
func TestMempool(t *testing.T) {
	mp := utxovm.NewMempool[*note, int]()
	a, b := signedtx.New(&note{Text: "a"}, nil), signedtx.New(&note{Text: "b"}, nil)
	pa := &utxovm.Pending[*note, int]{Tx: a, Spends: []ids.ID{{1}}, Imports: []ids.ID{{2}}}
	pb := &utxovm.Pending[*note, int]{Tx: b, Spends: []ids.ID{{3}}}
	utxovm.AddPending(mp, pa)
	utxovm.AddPending(mp, pb)
	if by, ok := mp.SpentBy(ids.ID{1}); !ok || by != a.ID() {
		t.Fatal("spend not claimed")
	}
	if by, ok := mp.ImportedBy(ids.ID{2}); !ok || by != a.ID() {
		t.Fatal("import not claimed")
	}
	if batch := mp.Batch(1); len(batch) != 1 || batch[0] != pa {
		t.Fatal("the oldest first")
	}
	failed := errors.New("no")
	mp.Finish([]*utxovm.Pending[*note, int]{pa}, failed)
	if _, ok := mp.SpentBy(ids.ID{1}); ok || mp.Len() != 1 {
		t.Fatal("a finished transaction still claims its spends")
	}
	if err := utxovm.Wait(pa); !errors.Is(err, failed) {
		t.Fatalf("wait ended with %v", err)
	}
}

// TestMempoolFinishAll: finishing every waiting transaction at once (as
// Shutdown does) ends each wait and empties the mempool.
func TestMempoolFinishAll(t *testing.T) {
	mp := utxovm.NewMempool[*note, int]()
	var all []*utxovm.Pending[*note, int]
	for _, s := range []string{"a", "b", "c"} {
		p := &utxovm.Pending[*note, int]{Tx: signedtx.New(&note{Text: s}, nil)}
		utxovm.AddPending(mp, p)
		all = append(all, p)
	}
	mp.Finish(mp.Batch(mp.Len()), errors.New("stopping"))
	for _, p := range all {
		if utxovm.Wait(p) == nil {
			t.Fatal("a wait ended without the error")
		}
	}
	if mp.Len() != 0 {
		t.Fatalf("%d left", mp.Len())
	}
}
