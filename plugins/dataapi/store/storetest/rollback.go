package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Backend opens stores of one backend.
type Backend struct {
	// Open opens a new, empty store, closed when the test ends.
	Open func(t *testing.T) store.Store
	// Reopen closes s and opens the same store again.
	Reopen func(t *testing.T, s store.Store) store.Store
	// Replica, when set, opens another reader of s's data (an API-only
	// instance), which must follow s through a rollback.
	Replica func(t *testing.T, s store.Store) store.Reader
	// Dump, when set, returns everything s holds, byte for byte: where a
	// test only asks whether anything changed, it compares dumps instead
	// of every read (Reads), which asks the same for a fraction of the
	// time.
	Dump func(t *testing.T, s store.Store) string
}

// unchanged returns a check that s still holds what it holds now: its
// dump when the backend has one, else every read.
func (be Backend) unchanged(t *testing.T, s store.Store, sc *Scenario) func(what string) {
	t.Helper()
	if be.Dump != nil {
		before := be.Dump(t, s)
		return func(what string) {
			t.Helper()
			if after := be.Dump(t, s); after != before {
				t.Fatalf("%s: the store changed (%d bytes of dump, %d before)", what, len(after), len(before))
			}
		}
	}
	before := Reads(t, s, sc)
	return func(what string) {
		t.Helper()
		Same(t, what, before, Reads(t, s, sc))
	}
}

// indexed returns a new store of be with blocks indexed perWrite a write,
// with undo records (of the last keep blocks when keep is above 0) or
// without.
func indexed(t *testing.T, be Backend, blocks []evmapi.Block, perWrite int, undo bool, keep uint64) store.Store {
	t.Helper()
	s := be.Open(t)
	if err := Index(context.Background(), s, blocks, perWrite, undo, keep); err != nil {
		t.Fatal(err)
	}
	return s
}

// concat returns the blocks of a then of b.
func concat(a, b []evmapi.Block) []evmapi.Block {
	return append(append([]evmapi.Block(nil), a...), b...)
}

// TestRollback runs the rollback tests on be: a chain indexed in batches
// (several, and one holding every block), rolled back at the fork and
// indexed on along the other branch answers every read as a store that
// indexed only the blocks kept and the new branch, also after a reopen;
// a rollback reaching blocks without undo records (written without, or
// pruned) or cancelled midway changes nothing.
func TestRollback(t *testing.T, be Backend) {
	sc := NewScenario()
	ctx := context.Background()
	kept := sc.A[:Fork]
	// What a store that never saw the abandoned blocks answers.
	wantKept := Reads(t, indexed(t, be, kept, 5, false, 0), sc)
	wantB := Reads(t, indexed(t, be, concat(kept, sc.B), 5, false, 0), sc)

	for _, perWrite := range []int{4, len(sc.A)} {
		t.Run(fmt.Sprintf("reorg, %d blocks a write", perWrite), func(t *testing.T) {
			s := indexed(t, be, sc.A, perWrite, true, 0)
			changed(t, wantKept, Reads(t, s, sc))
			var replica store.Reader
			if be.Replica != nil {
				replica = be.Replica(t, s)
				changed(t, wantKept, Reads(t, replica, sc))
			}
			st, err := s.Rollback(ctx, chain, Fork)
			if err != nil {
				t.Fatal(err)
			}
			if want := (store.ChainState{EVMChainID: evmChainID, Next: Fork, CumulativeTxs: blockOf(t, s, Fork-1).CumulativeTxs}); st != want {
				t.Errorf("state after the rollback %+v, want %+v", st, want)
			}
			Same(t, "rolled back", wantKept, Reads(t, s, sc))
			if replica != nil {
				Same(t, "rolled back, read by the replica", wantKept, Reads(t, replica, sc))
			}
			if err := Index(ctx, s, sc.B, perWrite, true, 0); err != nil {
				t.Fatal(err)
			}
			Same(t, "on branch B", wantB, Reads(t, s, sc))
			s = be.Reopen(t, s)
			Same(t, "reopened", wantB, Reads(t, s, sc))
			// Back again to the fork, then to block 0, then nothing left
			// to roll back.
			if _, err := s.Rollback(ctx, chain, Fork); err != nil {
				t.Fatal(err)
			}
			Same(t, "B rolled back", wantKept, Reads(t, s, sc))
			if st, err := s.Rollback(ctx, chain, 0); err != nil || st != (store.ChainState{EVMChainID: evmChainID}) {
				t.Fatalf("rolled back to block 0: %+v, %v", st, err)
			}
			if st, err := s.Rollback(ctx, chain, 5); err != nil || st != (store.ChainState{EVMChainID: evmChainID}) {
				t.Fatalf("rolled back past the end: %+v, %v", st, err)
			}
			if st, err := s.Rollback(ctx, ids.ID{0xee}, 5); err != nil || st != (store.ChainState{}) {
				t.Fatalf("an unknown chain rolled back: %+v, %v", st, err)
			}
		})
	}

	t.Run("no undo", func(t *testing.T) {
		// Undo records of the last 5 blocks only, then none at all.
		for _, s := range []store.Store{indexed(t, be, sc.A, 4, true, 5), indexed(t, be, sc.A, 4, false, 0)} {
			unchanged := be.unchanged(t, s, sc)
			_, err := s.Rollback(ctx, chain, Fork)
			if !errors.Is(err, store.ErrNoUndo) || !strings.Contains(err.Error(), fmt.Sprint("block ", Fork)) {
				t.Fatalf("a rollback without undo records: %v", err)
			}
			unchanged("refused")
		}
		s := indexed(t, be, sc.A, 4, true, 5)
		if _, err := s.Rollback(ctx, chain, 26); err != nil {
			t.Fatalf("a rollback within the undo records kept: %v", err)
		}
		Same(t, "rolled back to 26", Reads(t, indexed(t, be, sc.A[:26], 5, false, 0), sc), Reads(t, s, sc))
	})

	t.Run("cancelled", func(t *testing.T) {
		s := indexed(t, be, sc.A, 4, true, 0)
		unchanged := be.unchanged(t, s, sc)
		var dumped string
		if be.Dump != nil {
			dumped = be.Dump(t, s)
		}
		// Cancelled at the n-th look at the context, for ever later n,
		// until the rollback goes through.
		for n := int64(1); ; n *= 2 {
			if n > 1<<20 {
				t.Fatal("the rollback never went through")
			}
			ctx, cancel := context.WithCancel(context.Background())
			_, err := s.Rollback(&cancelAfter{Context: ctx, cancel: cancel, left: n}, chain, Fork)
			cancel()
			if err == nil {
				break
			}
			unchanged(fmt.Sprintf("cancelled at %d (%v)", n, err))
		}
		Same(t, "rolled back", wantKept, Reads(t, s, sc))
		// The dump, which stood in for the reads after each cancelled
		// attempt, sees the rollback that went through.
		if be.Dump != nil && be.Dump(t, s) == dumped {
			t.Fatal("the store's dump is the same before and after the rollback")
		}
	})
}

// changed fails the test unless the abandoned blocks changed reads of
// every kind: what the store answers with them (full) differs from what
// it answers without (kept).
func changed(t *testing.T, kept, full map[string]string) {
	t.Helper()
	kinds := []string{"txs ", "721 ", "1155 ", "internal ", "deploy ", "erc20 ", "erc1155 ", "collectibles ", "chains of " + lateA.Hex(),
		"balance ", "token " + lateA20.Hex(), "nft 721 ", "nft 1155 ", "block ", "block by hash ", "tx ", "state", "chains",
		"native ", "erc20 transfers ", "chain txs ", "block txs "}
	for _, kind := range kinds {
		found := false
		for k, v := range full {
			if strings.HasPrefix(k, kind) && kept[k] != v {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("the abandoned blocks change no read %q: the scenario misses a case", kind)
		}
	}
}

// blockOf reads block n.
func blockOf(t *testing.T, s store.Reader, n uint64) store.Block {
	t.Helper()
	b, err := s.Block(context.Background(), chain, n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cancelAfter is a context cancelled when it is looked at (Done, Err) the
// left-th time.
type cancelAfter struct {
	context.Context
	cancel context.CancelFunc
	left   int64
	looks  atomic.Int64
}

func (c *cancelAfter) look() {
	if c.looks.Add(1) == c.left {
		c.cancel()
	}
}

func (c *cancelAfter) Done() <-chan struct{} {
	c.look()
	return c.Context.Done()
}

func (c *cancelAfter) Err() error {
	c.look()
	return c.Context.Err()
}
