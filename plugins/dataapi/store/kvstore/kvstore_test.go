package kvstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/offline"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/sdk/ids"
)

var chain = ids.ID{0xc}

// synthChain returns a fake chain with synthetic blocks and all its
// blocks.
func synthChain(blocks, txs, accounts int) (*fakeevm.Chain, []evmapi.Block) {
	c := fakeevm.New(43112)
	c.Synthesize(fakeevm.SynthOptions{Blocks: blocks, TxsPerBlock: txs, Accounts: accounts, Seed: 1})
	out := make([]evmapi.Block, c.Head()+1)
	for n := range out {
		out[n] = c.Block(uint64(n))
	}
	return c, out
}

// open opens a store of engine in dir.
func open(t testing.TB, engine, dir string) *kvstore.Store {
	t.Helper()
	s, err := kvstore.Open(dir, kvstore.Options{Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// allPages reads a whole list in pages of size.
func allPages[T any](t *testing.T, list func(store.Page) ([]T, []byte, error), p store.Page) []T {
	t.Helper()
	var out []T
	for {
		items, next, err := list(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) > p.Limit || (next != nil && len(items) != p.Limit) {
			t.Fatalf("a page of %d items with limit %d and next %x", len(items), p.Limit, next)
		}
		out = append(out, items...)
		if next == nil {
			return out
		}
		p.Cursor = next
	}
}

// TestEngines: both engines index the same blocks into the same answers,
// and the balances at every block are the chain's.
func TestEngines(t *testing.T) {
	c, blocks := synthChain(30, 20, 12)
	ctx := context.Background()
	dumps := map[string]string{}
	for _, engine := range []string{kvstore.EnginePebble, kvstore.EngineLevelDB} {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, engine, dir)
			if err := offline.Index(ctx, s, chain, 43112, blocks, 7); err != nil {
				t.Fatal(err)
			}
			st, err := s.State(ctx, chain)
			if err != nil || st != (store.ChainState{EVMChainID: 43112, Next: c.Head() + 1, CumulativeTxs: 12 + 30*20}) {
				t.Fatalf("state %+v, %v", st, err)
			}
			// Balances at every block, by one seek per token.
			for _, h := range c.Holders() {
				for n := uint64(0); n <= c.Head(); n++ {
					want := c.BalanceOf(h.Token, h.Holder, h.ID, n)
					got := new(big.Int)
					q := store.BalanceQuery{Limit: 500, Block: n, Tokens: []common.Address{h.Token}}
					if h.ID == nil {
						rows, _, err := s.ERC20Balances(ctx, chain, h.Holder, q)
						if err != nil {
							t.Fatal(err)
						}
						if len(rows) == 1 {
							got = rows[0].Balance
						}
					} else {
						rows, _, err := s.ERC1155Balances(ctx, chain, h.Holder, q)
						if err != nil {
							t.Fatal(err)
						}
						for _, r := range rows {
							if r.NFT.TokenID.Cmp(h.ID) == 0 {
								got = r.Balance
							}
						}
					}
					if got.Cmp(want) != 0 {
						t.Fatalf("%s of %s (id %v) at %d: %s, want %s", h.Token.Hex()[:8], h.Holder.Hex()[:8], h.ID, n, got, want)
					}
				}
			}
			acct := fakeevm.Account(3)
			list := func(p store.Page) ([]store.Tx, []byte, error) { return s.AddressTxs(ctx, chain, acct, p) }
			asc := allPages(t, list, store.Page{Limit: 1000})
			desc := allPages(t, list, store.Page{Limit: 3, Desc: true})
			slices.Reverse(desc)
			if len(asc) < 20 || !slices.EqualFunc(asc, desc, func(a, b store.Tx) bool { return a.Hash == b.Hash }) {
				t.Errorf("asc and desc differ: %d, %d items", len(asc), len(desc))
			}
			window := allPages(t, list, store.Page{Limit: 2, FromBlock: 10, ToBlock: 20, Desc: true})
			for _, tx := range window {
				if tx.BlockNumber < 10 || tx.BlockNumber >= 20 || len(tx.Input) != 0 {
					t.Errorf("window item at block %d, input %x", tx.BlockNumber, tx.Input)
				}
			}
			if _, _, err := s.AddressTxs(ctx, chain, acct, store.Page{Limit: 1, Cursor: []byte{1, 2, 3}}); !errors.Is(err, store.ErrBadCursor) {
				t.Errorf("a cursor of the wrong size: %v", err)
			}
			if _, _, err := s.ERC20Balances(ctx, chain, acct, store.BalanceQuery{Limit: 1, Latest: true, Cursor: []byte{1}}); !errors.Is(err, store.ErrBadCursor) {
				t.Errorf("a balance cursor of the wrong size: %v", err)
			}
			latest, _, _ := s.ERC20Balances(ctx, chain, acct, store.BalanceQuery{Limit: 10, Latest: true})
			atHead, _, _ := s.ERC20Balances(ctx, chain, acct, store.BalanceQuery{Limit: 10, Block: c.Head()})
			if len(latest) != 3 || !slices.EqualFunc(latest, atHead, func(a, b store.ERC20Balance) bool { return a.Balance.Cmp(b.Balance) == 0 && a.Token == b.Token }) {
				t.Errorf("latest %v, at head %v", latest, atHead)
			}
			dump := map[string]any{"asc": asc, "latest": latest}
			dump["721"] = allPages(t, func(p store.Page) ([]store.ERC721Item, []byte, error) { return s.ERC721Transfers(ctx, chain, acct, p) }, store.Page{Limit: 2})
			dump["1155"] = allPages(t, func(p store.Page) ([]store.ERC1155Item, []byte, error) {
				return s.ERC1155Transfers(ctx, chain, acct, p)
			}, store.Page{Limit: 2})
			dump["internal"] = allPages(t, func(p store.Page) ([]store.InternalItem, []byte, error) { return s.InternalTxs(ctx, chain, acct, p) }, store.Page{Limit: 2})
			dump["collect"], _, _ = s.Collectibles(ctx, chain, acct, store.BalanceQuery{Limit: 500})
			b, _ := json.Marshal(dump)
			dumps[engine] = string(b)

			// Everything is there after a reopen.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = open(t, engine, dir)
			defer s.Close()
			chains, err := s.Chains(ctx)
			if err != nil || chains[chain] != st {
				t.Errorf("chains after a reopen: %v, %v", chains, err)
			}
			if got, err := s.AddressChains(ctx, acct); err != nil || !slices.Equal(got, []ids.ID{chain}) {
				t.Errorf("address chains: %v, %v", got, err)
			}
			blk, err := s.BlockByHash(ctx, chain, blocks[5].Hash)
			if err != nil || blk.Number != 5 {
				t.Errorf("block by hash: %+v, %v", blk, err)
			}
			if _, err := s.Tx(ctx, chain, common.Hash{1}); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("an unknown transaction: %v", err)
			}
			if st, err := s.State(ctx, ids.ID{0xff}); err != nil || st != (store.ChainState{}) {
				t.Errorf("an unknown chain's state: %+v, %v", st, err)
			}
		})
	}
	if dumps[kvstore.EnginePebble] != dumps[kvstore.EngineLevelDB] {
		t.Error("the engines answer differently")
	}
}
