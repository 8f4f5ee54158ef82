package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// statuses are the filters of store.Reader.ChainTxs.
var statuses = []store.TxStatus{store.AnyStatus, store.Succeeded, store.Failed}

// addressListReads adds to Reads the native and ERC-20 lists of a, paged
// as lists says.
func addressListReads(t *testing.T, s store.Reader, a common.Address, lists []store.Page, add func(string, ...any)) {
	t.Helper()
	ctx := context.Background()
	for _, p := range lists {
		key := fmt.Sprintf("%s %d %v %d-%d", a.Hex(), p.Limit, p.Desc, p.FromBlock, p.ToBlock)
		add("native "+key, pages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.NativeTxs(ctx, chain, a, p) }, p)...)
		add("erc20 transfers "+key, pages(t, func(p store.Page) ([]store.ERC20Item, []byte, error) { return s.ERC20Transfers(ctx, chain, a, p) }, p)...)
	}
}

// chainListReads adds to Reads the chain's transaction list of each
// status, paged as lists says, and the transactions of each block below
// top.
func chainListReads(t *testing.T, s store.Reader, top uint64, lists []store.Page, add func(string, ...any)) {
	t.Helper()
	ctx := context.Background()
	for _, st := range statuses {
		for _, p := range lists {
			key := fmt.Sprintf("%d %d %v %d-%d", st, p.Limit, p.Desc, p.FromBlock, p.ToBlock)
			add("chain txs "+key, pages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.ChainTxs(ctx, chain, st, p) }, p)...)
		}
	}
	for n := range top {
		p := store.Page{Limit: 3, FromBlock: n, ToBlock: n + 1}
		add(fmt.Sprint("block txs ", n), pages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.ChainTxs(ctx, chain, store.AnyStatus, p) }, p)...)
	}
}

// TestChainLists checks the chain's transaction lists and the addresses'
// native and ERC-20 lists of a store of be against the complete
// transactions it holds: every list, paged in both orders, holds what the
// transactions say, in block and position order; a cursor of another list
// is refused.
func TestChainLists(t *testing.T, be Backend) {
	sc := NewScenario()
	ctx := context.Background()
	s := indexed(t, be, sc.A, 4, true, 0)
	// What each list should hold, oldest first, from the complete
	// transactions.
	var (
		all     []store.Tx
		native  = map[common.Address][]store.Tx{}
		erc20   = map[common.Address][]store.ERC20Item{}
		failed  int
		parties []common.Address
	)
	for _, blk := range sc.A {
		for _, raw := range blk.Transactions {
			tx, err := s.Tx(ctx, chain, raw.Hash)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, tx.Bare())
			if !tx.Success {
				failed++
			}
			for _, a := range tx.NativeParties() {
				native[a] = append(native[a], tx.Bare())
				parties = append(parties, a)
			}
			for _, x := range tx.ERC20Items() {
				for _, a := range []common.Address{x.Transfer.From, x.Transfer.To} {
					if l := erc20[a]; len(l) == 0 || l[len(l)-1] != x {
						erc20[a] = append(l, x)
					}
				}
			}
		}
	}
	if failed == 0 || failed == len(all) || len(erc20) == 0 {
		t.Fatalf("the scenario has %d transactions, %d failed, and ERC-20 transfers of %d addresses: it misses a case", len(all), failed, len(erc20))
	}
	for _, desc := range []bool{false, true} {
		p := store.Page{Limit: 7, Desc: desc}
		for _, st := range statuses {
			want := slices.DeleteFunc(slices.Clone(all), func(tx store.Tx) bool {
				return st == store.Succeeded && !tx.Success || st == store.Failed && tx.Success
			})
			got := pages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.ChainTxs(ctx, chain, st, p) }, p)[0].([]store.Tx)
			sameList(t, fmt.Sprintf("chain txs, status %d, desc %v", st, desc), ordered(want, desc), got)
		}
		for _, a := range parties {
			got := pages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.NativeTxs(ctx, chain, a, p) }, p)[0].([]store.Tx)
			sameList(t, fmt.Sprintf("native txs of %s, desc %v", a, desc), ordered(native[a], desc), got)
		}
		for a, want := range erc20 {
			got := pages(t, func(p store.Page) ([]store.ERC20Item, []byte, error) { return s.ERC20Transfers(ctx, chain, a, p) }, p)[0].([]store.ERC20Item)
			sameList(t, fmt.Sprintf("ERC-20 transfers of %s, desc %v", a, desc), ordered(want, desc), got)
		}
	}
	for _, blk := range sc.A {
		n := blk.Number
		got := pages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.ChainTxs(ctx, chain, store.AnyStatus, p) },
			store.Page{Limit: 2, FromBlock: uint64(n), ToBlock: uint64(n) + 1})[0].([]store.Tx)
		if len(got) != len(blk.Transactions) {
			t.Fatalf("block %d: %d transactions listed, want %d", n, len(got), len(blk.Transactions))
		}
		for i, tx := range got {
			if tx.Hash != blk.Transactions[i].Hash || tx.Index != uint64(i) {
				t.Fatalf("block %d: transaction %d is %s (index %d), want %s", n, i, tx.Hash, tx.Index, blk.Transactions[i].Hash)
			}
		}
	}
	// A cursor of an ERC-20 list (longer) is refused by the others.
	_, next, err := s.ERC20Transfers(ctx, chain, parties[0], store.Page{Limit: 1})
	if err != nil || next == nil {
		t.Fatalf("an ERC-20 page: next %x, %v", next, err)
	}
	if _, _, err := s.ChainTxs(ctx, chain, store.AnyStatus, store.Page{Limit: 1, Cursor: next}); err != store.ErrBadCursor {
		t.Errorf("chain txs with an ERC-20 cursor: %v, want %v", err, store.ErrBadCursor)
	}
	if _, _, err := s.NativeTxs(ctx, chain, parties[0], store.Page{Limit: 1, Cursor: next}); err != store.ErrBadCursor {
		t.Errorf("native txs with an ERC-20 cursor: %v, want %v", err, store.ErrBadCursor)
	}
}

// ordered returns l (oldest first) in the order asked.
func ordered[T any](l []T, desc bool) []T {
	out := slices.Clone(l)
	if desc {
		slices.Reverse(out)
	}
	return out
}

// sameList fails the test when got is not want.
func sameList[T any](t *testing.T, what string, want, got []T) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
	}
	for i := range want {
		if w, g := fmt.Sprintf("%+v", want[i]), fmt.Sprintf("%+v", got[i]); w != g {
			t.Fatalf("%s: item %d is\n%s\nwant\n%s", what, i, g, w)
		}
	}
}

// TestBackfillChainLists checks that a store of be written by an earlier release,
// which had no chain lists, gets them when it is opened: strip makes s
// such a store (its chain list rows and their undo records removed).
// Reopened, it answers every read as a store written by this release, and
// a rollback also removes what the backfill wrote.
func TestBackfillChainLists(t *testing.T, be Backend, strip func(t *testing.T, s store.Store)) {
	sc := NewScenario()
	want := Reads(t, indexed(t, be, sc.A, 5, false, 0), sc)
	wantKept := Reads(t, indexed(t, be, sc.A[:Fork], 5, false, 0), sc)
	s := indexed(t, be, sc.A, 4, true, 0)
	strip(t, s)
	stripped := Reads(t, s, sc)
	for _, kind := range []string{"chain txs ", "block txs ", "native ", "erc20 transfers "} {
		if !differs(want, stripped, kind) {
			t.Fatalf("strip left the %q reads as they were", kind)
		}
	}
	s = be.Reopen(t, s)
	Same(t, "backfilled", want, Reads(t, s, sc))
	if _, err := s.Rollback(context.Background(), chain, Fork); err != nil {
		t.Fatal(err)
	}
	Same(t, "backfilled, rolled back", wantKept, Reads(t, s, sc))
}

// differs reports whether a read whose name starts with kind differs.
func differs(a, b map[string]string, kind string) bool {
	for k, v := range a {
		if strings.HasPrefix(k, kind) && b[k] != v {
			return true
		}
	}
	return false
}
