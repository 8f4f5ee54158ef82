package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/offline"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore/pgtest"
	"github.com/chainhost/chainhost/sdk/ids"
)

var chain = ids.ID{0xc}

// cluster is the package's PostgreSQL cluster; each test takes databases
// of its own.
var cluster *pgtest.Cluster

func TestMain(m *testing.M) {
	var err error
	if cluster, err = pgtest.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	for _, s := range pageStores.byEngine {
		_ = s.Close()
	}
	if pageStores.dir != "" {
		_ = os.RemoveAll(pageStores.dir)
	}
	if err := cluster.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// openPG opens a writer on a new database.
func openPG(t testing.TB) (*pgstore.Store, string) {
	t.Helper()
	u := cluster.URL(cluster.NewDatabase(t))
	s, err := pgstore.Open(context.Background(), pgstore.Options{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, u
}

// Addresses of the scenario.
var (
	alice   = common.HexToAddress("0xA11CE00000000000000000000000000000000001")
	bob     = common.HexToAddress("0xB0B0000000000000000000000000000000000002")
	carol   = common.HexToAddress("0xCA20100000000000000000000000000000000003")
	nft     = common.HexToAddress("0x7F70000000000000000000000000000000000721")
	multi   = common.HexToAddress("0x1155000000000000000000000000000000001155")
	factory = common.HexToAddress("0xFAC7000000000000000000000000000000000F0F")
	child   = common.HexToAddress("0xC41D000000000000000000000000000000000001")
	child2  = common.HexToAddress("0xC41D000000000000000000000000000000000002")
	zero    common.Address
)

// scenarioChain returns a chain with deployments (a transaction's and a
// factory's), NFTs minted, moved and burnt, ERC-1155 balances going to
// zero and a reverted frame, then synthetic blocks of every kind of
// transfer among accounts; and all its blocks.
func scenarioChain(synthBlocks int) (*fakeevm.Chain, []evmapi.Block) {
	c := fakeevm.New(43112)
	c.Fund(alice, big.NewInt(1e18))
	c.AddToken(nft, &fakeevm.Token{Kind: fakeevm.ERC721, Name: "Things", Symbol: "THG", URI: func(id *big.Int) string { return "ipfs://x/" + id.String() }})
	c.AddToken(multi, &fakeevm.Token{Kind: fakeevm.ERC1155, URI: func(*big.Int) string { return "https://x.invalid/{id}" }})
	b := c.NewBlock()
	b.Creation(alice, factory, nil)
	b.Tx(alice, &factory, big.NewInt(5), []byte{1, 2, 3, 4}).
		Frame(1, evmapi.CreateType, factory, child, nil, false, nil).
		Frame(1, evmapi.Create2Type, factory, child2, nil, false, nil).
		Frame(1, evmapi.CallType, factory, bob, big.NewInt(2), true, nil).
		Frame(1, evmapi.CallType, factory, carol, big.NewInt(3), false, nil)
	b.Commit()
	b = c.NewBlock()
	b.Tx(alice, &nft, nil, []byte{0x40, 0xc1, 0x0f, 0x19}).ERC721(nft, zero, alice, big.NewInt(1)).ERC721(nft, zero, alice, big.NewInt(2))
	b.Tx(alice, &multi, nil, nil).Batch(multi, alice, zero, alice, []*big.Int{big.NewInt(7), big.NewInt(8)}, []*big.Int{big.NewInt(5), big.NewInt(5)})
	b.Commit()
	b = c.NewBlock()
	b.Tx(alice, &nft, nil, nil).ERC721(nft, alice, bob, big.NewInt(1)).ERC721(nft, bob, carol, big.NewInt(1))
	b.Tx(alice, &nft, nil, nil).ERC721(nft, alice, zero, big.NewInt(2))
	b.Tx(alice, &multi, nil, nil).Single(multi, alice, alice, bob, big.NewInt(7), big.NewInt(5)).Single(multi, bob, bob, zero, big.NewInt(7), big.NewInt(2))
	b.Commit()
	c.Synthesize(fakeevm.SynthOptions{Blocks: synthBlocks, TxsPerBlock: 20, Accounts: 12, Seed: 1})
	out := make([]evmapi.Block, c.Head()+1)
	for n := range out {
		out[n] = c.Block(uint64(n))
	}
	return c, out
}

// allPages reads a whole list in pages, checking each page's size and
// keeping each page's cursor.
func allPages[T any](t *testing.T, list func(store.Page) ([]T, []byte, error), p store.Page) ([]T, [][]byte) {
	t.Helper()
	var out []T
	var cursors [][]byte
	for {
		items, next, err := list(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) > p.Limit || (next != nil && len(items) != p.Limit) {
			t.Fatalf("a page of %d items with limit %d and next %x", len(items), p.Limit, next)
		}
		out = append(out, items...)
		cursors = append(cursors, next)
		if next == nil {
			return out, cursors
		}
		p.Cursor = next
	}
}

// allBalances reads every page of a balance list.
func allBalances[T any](t *testing.T, list func(store.BalanceQuery) ([]T, []byte, error), q store.BalanceQuery) ([]T, [][]byte) {
	t.Helper()
	return allPages(t, func(p store.Page) ([]T, []byte, error) {
		q.Cursor = p.Cursor
		return list(q)
	}, store.Page{Limit: q.Limit})
}

// reads makes every read of the store API over the chain's addresses,
// tokens and blocks, and returns each answer as JSON by a name of the
// read: page by page, with the cursors.
func reads(t *testing.T, s store.Reader, c *fakeevm.Chain, blocks []evmapi.Block) map[string]string {
	ctx := context.Background()
	out := map[string]string{}
	add := func(name string, v ...any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	addrs := []common.Address{alice, bob, carol, factory, child, nft, multi, common.HexToAddress("0x1234")}
	for i := range 12 {
		addrs = append(addrs, fakeevm.Account(i))
	}
	head := c.Head()
	pages := []store.Page{
		{Limit: 1}, {Limit: 3, Desc: true}, {Limit: 1000}, {Limit: 1000, Desc: true},
		{Limit: 2, FromBlock: 2, ToBlock: 9}, {Limit: 4, FromBlock: 5, Desc: true}, {Limit: 5, ToBlock: 6, Desc: true},
		{Limit: 10, FromBlock: head + 5},
	}
	for _, a := range addrs {
		for _, p := range pages {
			key := fmt.Sprintf("%s %d %v %d-%d", a.Hex()[:8], p.Limit, p.Desc, p.FromBlock, p.ToBlock)
			v, cur := allPages(t, func(p store.Page) ([]store.Tx, []byte, error) { return s.AddressTxs(ctx, chain, a, p) }, p)
			add("txs "+key, v, cur)
			v721, cur := allPages(t, func(p store.Page) ([]store.ERC721Item, []byte, error) { return s.ERC721Transfers(ctx, chain, a, p) }, p)
			add("721 "+key, v721, cur)
			v1155, cur := allPages(t, func(p store.Page) ([]store.ERC1155Item, []byte, error) { return s.ERC1155Transfers(ctx, chain, a, p) }, p)
			add("1155 "+key, v1155, cur)
			vi, cur := allPages(t, func(p store.Page) ([]store.InternalItem, []byte, error) { return s.InternalTxs(ctx, chain, a, p) }, p)
			add("internal "+key, vi, cur)
			vd, cur := allPages(t, func(p store.Page) ([]store.Contract, []byte, error) { return s.Deployments(ctx, chain, a, p) }, p)
			add("deploy "+key, vd, cur)
		}
		for _, n := range []uint64{0, 1, 2, 3, 4, head / 2, head} {
			for _, limit := range []int{1, 2, 500} {
				q := store.BalanceQuery{Limit: limit, Block: n}
				key := fmt.Sprintf("%s %d at %d", a.Hex()[:8], limit, n)
				v20, cur := allBalances(t, func(q store.BalanceQuery) ([]store.ERC20Balance, []byte, error) {
					return s.ERC20Balances(ctx, chain, a, q)
				}, q)
				add("erc20 "+key, v20, cur)
				v1155, cur := allBalances(t, func(q store.BalanceQuery) ([]store.ERC1155Balance, []byte, error) {
					return s.ERC1155Balances(ctx, chain, a, q)
				}, q)
				add("erc1155 "+key, v1155, cur)
			}
		}
		for _, limit := range []int{1, 2, 500} {
			q := store.BalanceQuery{Limit: limit, Latest: true}
			key := fmt.Sprintf("%s %d latest", a.Hex()[:8], limit)
			v20, cur := allBalances(t, func(q store.BalanceQuery) ([]store.ERC20Balance, []byte, error) {
				return s.ERC20Balances(ctx, chain, a, q)
			}, q)
			add("erc20 "+key, v20, cur)
			v1155, cur := allBalances(t, func(q store.BalanceQuery) ([]store.ERC1155Balance, []byte, error) {
				return s.ERC1155Balances(ctx, chain, a, q)
			}, q)
			add("erc1155 "+key, v1155, cur)
			vc, cur := allBalances(t, func(q store.BalanceQuery) ([]store.Collectible, []byte, error) {
				return s.Collectibles(ctx, chain, a, q)
			}, q)
			add("collectibles "+key, vc, cur)
		}
		filter := []common.Address{fakeevm.SynthERC20[2], fakeevm.SynthERC20[0], multi, fakeevm.SynthERC20[0]}
		v20, cur := allBalances(t, func(q store.BalanceQuery) ([]store.ERC20Balance, []byte, error) {
			return s.ERC20Balances(ctx, chain, a, q)
		},
			store.BalanceQuery{Limit: 1, Block: head / 3, Tokens: filter})
		add("erc20 filtered "+a.Hex(), v20, cur)
		vc, cur := allBalances(t, func(q store.BalanceQuery) ([]store.Collectible, []byte, error) {
			return s.Collectibles(ctx, chain, a, q)
		},
			store.BalanceQuery{Limit: 1, Tokens: filter})
		add("collectibles filtered "+a.Hex(), vc, cur)
		ch, err := s.AddressChains(ctx, a)
		add("chains of "+a.Hex(), ch, err)
		for _, tok := range append([]common.Address{nft, multi}, fakeevm.SynthERC20...) {
			bal, err := s.Balance(ctx, chain, a, tok, nil)
			add("balance "+a.Hex()+tok.Hex(), bal, err)
			bal, err = s.Balance(ctx, chain, a, tok, big.NewInt(7))
			add("balance 7 "+a.Hex()+tok.Hex(), bal, err)
		}
	}
	for n := range blocks {
		b, err := s.Block(ctx, chain, uint64(n))
		add(fmt.Sprint("block ", n), b, err)
		b, err = s.BlockByHash(ctx, chain, blocks[n].Hash)
		add(fmt.Sprint("block by hash ", n), b, err)
		for _, tx := range blocks[n].Transactions {
			v, err := s.Tx(ctx, chain, tx.Hash)
			add("tx "+tx.Hash.Hex(), v, err)
		}
	}
	for _, tok := range append([]common.Address{nft, multi, alice}, fakeevm.SynthERC20...) {
		v, err := s.Token(ctx, chain, tok)
		add("token "+tok.Hex(), v, err)
		for id := range int64(10) {
			v, err := s.NFT(ctx, chain, tok, big.NewInt(id))
			add(fmt.Sprint("nft ", tok.Hex(), id), v, err)
		}
	}
	st, err := s.State(ctx, chain)
	add("state", st, err)
	chains, err := s.Chains(ctx)
	add("chains", chains, err)
	_, err = s.Block(ctx, ids.ID{0xee}, 1)
	add("unknown chain block", errors.Is(err, store.ErrNotFound))
	v, cur, err := s.AddressTxs(ctx, ids.ID{0xee}, alice, store.Page{Limit: 5})
	add("unknown chain list", v, cur, err)
	return out
}

// TestSameAsEmbedded: the PostgreSQL store indexes the same blocks into
// the same answers as the embedded one, read by read and page by page,
// cursors included (page tokens keep their format), and its balances at
// every block are the chain's.
func TestSameAsEmbedded(t *testing.T) {
	c, blocks := scenarioChain(25)
	ctx := context.Background()
	kv, err := kvstore.Open(t.TempDir(), kvstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	pg, _ := openPG(t)
	for _, s := range []store.Store{kv, pg} {
		if err := offline.Index(ctx, s, chain, 43112, blocks, 4); err != nil {
			t.Fatal(err)
		}
	}
	want, got := reads(t, kv, c, blocks), reads(t, pg, c, blocks)
	if len(want) != len(got) {
		t.Fatalf("%d reads, want %d", len(got), len(want))
	}
	diffs := 0
	for _, k := range sortedKeys(want) {
		if got[k] != want[k] {
			if diffs++; diffs <= 5 {
				t.Errorf("%s:\n got %s\nwant %s", k, clip(got[k]), clip(want[k]))
			}
		}
	}
	if diffs > 0 {
		t.Fatalf("%d of %d reads differ", diffs, len(want))
	}
	// The scenario reaches every list and kind of balance.
	for _, k := range []string{"721 " + alice.Hex()[:8] + " 1000 false 0-0", "deploy " + alice.Hex()[:8] + " 1000 false 0-0",
		"internal " + carol.Hex()[:8] + " 1000 false 0-0", "collectibles " + carol.Hex()[:8] + " 500 latest", "erc1155 " + bob.Hex()[:8] + " 500 latest"} {
		if strings.HasPrefix(want[k], "[null") || strings.HasPrefix(want[k], "[[]") {
			t.Errorf("%s is empty: %s", k, clip(want[k]))
		}
	}
	for _, h := range c.Holders() {
		for n := uint64(0); n <= c.Head(); n += 3 {
			q := store.BalanceQuery{Limit: 500, Block: n, Tokens: []common.Address{h.Token}}
			got := new(big.Int)
			if h.ID == nil {
				rows, _, err := pg.ERC20Balances(ctx, chain, h.Holder, q)
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) == 1 {
					got = rows[0].Balance
				}
			} else {
				rows, _, err := pg.ERC1155Balances(ctx, chain, h.Holder, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					if r.NFT.TokenID.Cmp(h.ID) == 0 {
						got = r.Balance
					}
				}
			}
			if want := c.BalanceOf(h.Token, h.Holder, h.ID, n); got.Cmp(want) != 0 {
				t.Fatalf("%s of %s (id %v) at %d: %s, want %s", h.Token.Hex()[:8], h.Holder.Hex()[:8], h.ID, n, got, want)
			}
		}
	}
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// clip shortens a text for a message.
func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}
