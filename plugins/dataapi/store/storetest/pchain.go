package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// pChain is the P-Chain of the P-Chain scenario.
var pChain = ids.ID{'P'}

// pScenario is a P-Chain's records: pBlocks blocks, one or two subnets
// created in every third block from block 1, a blockchain of the last
// subnet in every fourth block, and the first subnet converted in block
// pConvert.
type pScenario struct {
	blocks      []store.PBlock
	subnets     []store.Subnet // as last written
	blockchains []store.Blockchain
	batches     []store.Batch
}

const (
	pBlocks  = 30
	pConvert = 20
)

// newPScenario builds the scenario, written perWrite blocks a batch.
func newPScenario(perWrite int) *pScenario {
	sc := &pScenario{}
	id := func(kind byte, n, i uint64) ids.ID { return ids.ID{kind, byte(n), byte(i)} }
	var txs uint64
	for n := uint64(0); n < pBlocks; n++ {
		if n%uint64(perWrite) == 0 {
			sc.batches = append(sc.batches, store.Batch{Chain: pChain})
		}
		b := &sc.batches[len(sc.batches)-1]
		blk := store.PBlock{Height: n, ID: id('b', n, 0), Timestamp: 1000 + 10*n, Size: 100 + n, Type: "BanffStandardBlock"}
		if n > 0 {
			blk.ParentID = sc.blocks[n-1].ID
		}
		created := func(i uint64) store.Created {
			return store.Created{Block: n, Timestamp: blk.Timestamp, TxIndex: i, TxID: id('t', n, i)}
		}
		var count uint64
		if n%3 == 1 {
			count = 1 + n/4%2
		}
		for i := range count {
			sn := store.Subnet{ID: id('s', n, i), Created: created(i),
				Owner: store.Owner{Addresses: []string{fmt.Sprint("P-local1owner", n, i)}, Threshold: 1, Locktime: n}}
			sc.subnets = append(sc.subnets, sn)
			b.Subnets = append(b.Subnets, sn)
		}
		if n%4 == 3 && len(sc.subnets) > 0 {
			c := store.Blockchain{ID: id('c', n, count), SubnetID: sc.subnets[len(sc.subnets)-1].ID, VMID: ids.ID{'v', 'm'},
				Name: fmt.Sprint("chain", n), Genesis: []byte(fmt.Sprint(`{"n":`, n, `}`)), Created: created(count)}
			count++
			sc.blockchains = append(sc.blockchains, c)
			b.Blockchains = append(b.Blockchains, c)
		}
		if n == pConvert {
			sn := &sc.subnets[0]
			sn.L1, sn.ConversionTx, sn.ManagerChain, sn.ManagerAddress = true, id('t', n, count), sc.blockchains[0].ID, []byte{0x12, 0x34}
			count++
			b.Subnets = append(b.Subnets, *sn)
		}
		for i := range count {
			blk.TxIDs = append(blk.TxIDs, id('t', n, i))
		}
		txs += count
		sc.blocks = append(sc.blocks, blk)
		b.PBlocks = append(b.PBlocks, blk)
		b.State = store.ChainState{Next: n + 1, CumulativeTxs: txs}
	}
	return sc
}

// TestPChain writes the P-Chain scenario a few blocks a write and checks
// every read against it, after a reopen too: the blocks by height and ID,
// the block list paged to its end each way within height bounds, the
// subnets (the converted one as converted) and blockchains by ID and in
// creation order, a subnet's blockchains; unknown IDs are ErrNotFound, a
// cursor of another list ErrBadCursor, and a batch with P-Chain records
// and undo is refused.
func TestPChain(t *testing.T, be Backend) {
	ctx := context.Background()
	sc := newPScenario(7)
	s := be.Open(t)
	undo := sc.batches[0]
	undo.Undo = true
	if err := s.Write(ctx, &undo); !errors.Is(err, store.ErrPChainUndo) {
		t.Fatalf("a P-Chain batch with undo: %v, want %v", err, store.ErrPChainUndo)
	}
	for i := range sc.batches {
		if err := s.Write(ctx, &sc.batches[i]); err != nil {
			t.Fatal(err)
		}
	}
	checkPChain(t, s, sc)
	s = be.Reopen(t, s)
	checkPChain(t, s, sc)
}

// checkPChain checks every read of s against sc.
func checkPChain(t *testing.T, s store.Reader, sc *pScenario) {
	t.Helper()
	ctx := context.Background()
	st, err := s.State(ctx, pChain)
	if err != nil || st.Next != pBlocks {
		t.Fatalf("state %+v, %v", st, err)
	}
	for _, want := range sc.blocks {
		got, err := s.PBlock(ctx, pChain, want.Height)
		samePoint(t, fmt.Sprint("block ", want.Height), want, got, err)
		got, err = s.PBlockByID(ctx, pChain, want.ID)
		samePoint(t, fmt.Sprint("block ", want.ID), want, got, err)
	}
	for _, p := range []store.Page{{Limit: 1}, {Limit: 4, Desc: true}, {Limit: 1000}, {Limit: 3, FromBlock: 5, ToBlock: 17, Desc: true}, {Limit: 2, FromBlock: 25}} {
		want := slices.Clone(sc.blocks)
		want = want[p.FromBlock:]
		if p.ToBlock > 0 {
			want = want[:p.ToBlock-p.FromBlock]
		}
		got := pages(t, func(p store.Page) ([]store.PBlock, []byte, error) { return s.PBlocks(ctx, pChain, p) }, p)[0].([]store.PBlock)
		sameList(t, fmt.Sprintf("blocks %+v", p), ordered(want, p.Desc), got)
	}
	for _, want := range sc.subnets {
		got, err := s.Subnet(ctx, pChain, want.ID)
		samePoint(t, fmt.Sprint("subnet ", want.ID), want, got, err)
		var chains []store.Blockchain
		for _, c := range sc.blockchains {
			if c.SubnetID == want.ID {
				chains = append(chains, c)
			}
		}
		for _, p := range []store.Page{{Limit: 1}, {Limit: 2, Desc: true}} {
			got := pages(t, func(p store.Page) ([]store.Blockchain, []byte, error) {
				return s.SubnetBlockchains(ctx, pChain, want.ID, p)
			}, p)[0].([]store.Blockchain)
			sameList(t, fmt.Sprintf("blockchains of subnet %s %+v", want.ID, p), ordered(chains, p.Desc), got)
		}
	}
	if !sc.subnets[0].L1 {
		t.Fatal("the scenario converts no subnet")
	}
	for _, want := range sc.blockchains {
		got, err := s.Blockchain(ctx, pChain, want.ID)
		samePoint(t, fmt.Sprint("blockchain ", want.ID), want, got, err)
	}
	for _, p := range []store.Page{{Limit: 1}, {Limit: 3, Desc: true}, {Limit: 1000}} {
		got := pages(t, func(p store.Page) ([]store.Subnet, []byte, error) { return s.Subnets(ctx, pChain, p) }, p)[0].([]store.Subnet)
		sameList(t, fmt.Sprintf("subnets %+v", p), ordered(sc.subnets, p.Desc), got)
		gotChains := pages(t, func(p store.Page) ([]store.Blockchain, []byte, error) { return s.Blockchains(ctx, pChain, p) }, p)[0].([]store.Blockchain)
		sameList(t, fmt.Sprintf("blockchains %+v", p), ordered(sc.blockchains, p.Desc), gotChains)
	}
	unknown := ids.ID{'?'}
	if _, err := s.PBlockByID(ctx, pChain, unknown); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown block: %v", err)
	}
	if _, err := s.PBlock(ctx, pChain, pBlocks); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the block past the last: %v", err)
	}
	if _, err := s.Subnet(ctx, pChain, unknown); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown subnet: %v", err)
	}
	if _, err := s.Blockchain(ctx, pChain, unknown); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown blockchain: %v", err)
	}
	_, blockCursor, err := s.PBlocks(ctx, pChain, store.Page{Limit: 1})
	if err != nil || blockCursor == nil {
		t.Fatalf("a block page: %x, %v", blockCursor, err)
	}
	if _, _, err := s.Subnets(ctx, pChain, store.Page{Limit: 1, Cursor: blockCursor}); !errors.Is(err, store.ErrBadCursor) {
		t.Errorf("a block cursor for the subnets: %v", err)
	}
	_, subnetCursor, _ := s.Subnets(ctx, pChain, store.Page{Limit: 1})
	if _, _, err := s.PBlocks(ctx, pChain, store.Page{Limit: 1, Cursor: subnetCursor}); !errors.Is(err, store.ErrBadCursor) {
		t.Errorf("a subnet cursor for the blocks: %v", err)
	}
}

// samePoint fails the test when a point read answered err or not want.
func samePoint[T any](t *testing.T, what string, want, got T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	sameList(t, what, []T{want}, []T{got})
}
