package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// pages reads a whole list, page after page, checking each page's size;
// it returns the items and the cursors.
func pages[T any](t *testing.T, list func(store.Page) ([]T, []byte, error), p store.Page) []any {
	t.Helper()
	var items []T
	var cursors [][]byte
	for {
		got, next, err := list(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > p.Limit || (next != nil && len(got) != p.Limit) {
			t.Fatalf("a page of %d items with limit %d and next %x", len(got), p.Limit, next)
		}
		items, cursors = append(items, got...), append(cursors, next)
		if next == nil {
			return []any{items, cursors}
		}
		p.Cursor = next
	}
}

// balancePages reads every page of a balance list.
func balancePages[T any](t *testing.T, list func(store.BalanceQuery) ([]T, []byte, error), q store.BalanceQuery) []any {
	t.Helper()
	return pages(t, func(p store.Page) ([]T, []byte, error) {
		q.Cursor = p.Cursor
		return list(q)
	}, store.Page{Limit: q.Limit})
}

// Reads makes every read of store.Reader over the scenario's addresses,
// tokens, NFTs, blocks and transactions (both branches'), and returns each
// answer as JSON by a name of the read: every list paged to its end in
// both directions, balances at every block and the latest.
func Reads(t *testing.T, s store.Reader, sc *Scenario) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	add := func(name string, v ...any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	var addrs []common.Address
	for i := range accounts {
		addrs = append(addrs, fakeevm.Account(i))
	}
	tokens := append(slices.Clone(erc20s), lateA20, lateB20, erc721, erc1155)
	addrs = append(addrs, lateA, lateB, router, factory, common.Address{}, common.HexToAddress("0x1234"))
	addrs = append(append(addrs, tokens...), sc.Created...)
	const top = 40 // past both branches
	lists := []store.Page{{Limit: 2}, {Limit: 3, Desc: true}, {Limit: 1000}, {Limit: 2, FromBlock: Fork - 3, ToBlock: Fork + 4, Desc: true}}
	for _, a := range addrs {
		name := a.Hex()
		for _, p := range lists {
			key := fmt.Sprintf("%s %d %v %d-%d", name, p.Limit, p.Desc, p.FromBlock, p.ToBlock)
			add("txs "+key, pages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.AddressTxs(ctx, chain, a, p) }, p)...)
			add("721 "+key, pages(t, func(p store.Page) ([]store.ERC721Item, []byte, error) { return s.ERC721Transfers(ctx, chain, a, p) }, p)...)
			add("1155 "+key, pages(t, func(p store.Page) ([]store.ERC1155Item, []byte, error) { return s.ERC1155Transfers(ctx, chain, a, p) }, p)...)
			add("internal "+key, pages(t, func(p store.Page) ([]store.InternalItem, []byte, error) { return s.InternalTxs(ctx, chain, a, p) }, p)...)
			add("deploy "+key, pages(t, func(p store.Page) ([]store.Contract, []byte, error) { return s.Deployments(ctx, chain, a, p) }, p)...)
		}
		queries := []store.BalanceQuery{{Limit: 2, Latest: true}, {Limit: 2, Latest: true, Tokens: []common.Address{lateA20, erc20s[1], lateB20}}}
		for n := range uint64(top) {
			queries = append(queries, store.BalanceQuery{Limit: 2, Block: n})
		}
		for _, q := range queries {
			key := fmt.Sprintf("%s at %d %v %v", name, q.Block, q.Latest, q.Tokens)
			add("erc20 "+key, balancePages(t, func(q store.BalanceQuery) ([]store.ERC20Balance, []byte, error) {
				return s.ERC20Balances(ctx, chain, a, q)
			}, q)...)
			add("erc1155 "+key, balancePages(t, func(q store.BalanceQuery) ([]store.ERC1155Balance, []byte, error) {
				return s.ERC1155Balances(ctx, chain, a, q)
			}, q)...)
		}
		for _, q := range queries[:1] {
			add("collectibles "+name, balancePages(t, func(q store.BalanceQuery) ([]store.Collectible, []byte, error) {
				return s.Collectibles(ctx, chain, a, q)
			}, q)...)
		}
		addressListReads(t, s, a, lists, add)
		chains, err := s.AddressChains(ctx, a)
		add("chains of "+name, chains, err)
		for _, tok := range tokens {
			bal, err := s.Balance(ctx, chain, a, tok, nil)
			add("balance "+name+tok.Hex(), bal, err)
		}
		for id := range int64(7) {
			bal, err := s.Balance(ctx, chain, a, erc1155, big.NewInt(id))
			add(fmt.Sprint("balance ", name, " 1155 ", id), bal, err)
		}
	}
	contractReads(t, s, addrs, append(slices.Clone(tokens), sc.Created...), add)
	for _, tok := range append(tokens, sc.Created...) {
		v, err := s.Token(ctx, chain, tok)
		add("token "+tok.Hex(), v, err)
	}
	for id := range sc.NFTs + 2 {
		v, err := s.NFT(ctx, chain, erc721, big.NewInt(id))
		add(fmt.Sprint("nft 721 ", id), v, err)
	}
	for id := range int64(7) {
		v, err := s.NFT(ctx, chain, erc1155, big.NewInt(id))
		add(fmt.Sprint("nft 1155 ", id), v, err)
	}
	for n := range uint64(top) {
		b, err := s.Block(ctx, chain, n)
		add(fmt.Sprint("block ", n), b, err)
	}
	for _, blk := range append(slices.Clone(sc.A), sc.B...) {
		b, err := s.BlockByHash(ctx, chain, blk.Hash)
		add("block by hash "+blk.Hash.Hex(), b, err)
		for _, tx := range blk.Transactions {
			v, err := s.Tx(ctx, chain, tx.Hash)
			add("tx "+tx.Hash.Hex(), v, err)
		}
	}
	chainListReads(t, s, top, lists, add)
	st, err := s.State(ctx, chain)
	add("state", st, err)
	chains, err := s.Chains(ctx)
	add("chains", chains, err)
	return out
}

// Same fails the test when got differs from want, read by read.
func Same(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d reads, want %d", what, len(got), len(want))
	}
	diffs := 0
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			if diffs++; diffs <= 5 {
				t.Errorf("%s: %s:\n got %s\nwant %s", what, k, clip(got[k]), clip(want[k]))
			}
		}
	}
	if diffs > 0 {
		t.Fatalf("%s: %d of %d reads differ", what, diffs, len(want))
	}
}

// clip shortens a text for a message.
func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}
