package kvstore

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Suffix lengths, after the address, of the keys of the position-ordered
// lists: the cursor of a page is the suffix of its last row.
const (
	txSuffix       = posLen
	erc721Suffix   = posLen + 4
	erc1155Suffix  = posLen + 8
	internalSuffix = posLen + 4
	deploySuffix   = posLen + 4
)

// AddressTxs lists addr's transactions.
func (s *Store) AddressTxs(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.Tx, []byte, error) {
	return listPage[store.Tx](s, tAddrTx, chain, addr, p, txSuffix)
}

// ERC721Transfers lists addr's ERC-721 transfers.
func (s *Store) ERC721Transfers(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.ERC721Item, []byte, error) {
	return listPage[store.ERC721Item](s, tAddr721, chain, addr, p, erc721Suffix)
}

// ERC1155Transfers lists addr's ERC-1155 transfers.
func (s *Store) ERC1155Transfers(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.ERC1155Item, []byte, error) {
	return listPage[store.ERC1155Item](s, tAddr1155, chain, addr, p, erc1155Suffix)
}

// InternalTxs lists addr's internal transactions.
func (s *Store) InternalTxs(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.InternalItem, []byte, error) {
	return listPage[store.InternalItem](s, tAddrInt, chain, addr, p, internalSuffix)
}

// Deployments lists the contracts deployer deployed.
func (s *Store) Deployments(_ context.Context, chain ids.ID, deployer common.Address, p store.Page) ([]store.Contract, []byte, error) {
	return listPage[store.Contract](s, tDeploy, chain, deployer, p, deploySuffix)
}

// listPage reads one page of the rows of table under (chain, addr), whose
// keys continue with the block number and suffixLen-8 more bytes.
func listPage[T any](s *Store, table byte, chain ids.ID, addr common.Address, p store.Page, suffixLen int) ([]T, []byte, error) {
	return scanList[T](s, chain, p, suffixLen, func(t tag) key { return newKey(table, t, addrLen+suffixLen).addr(addr) })
}

// scanList reads one page of the rows under the prefix that prefixOf
// makes of chain's tag, whose keys continue with the block number and
// suffixLen-8 more bytes: one range scan, bounded by the block range and
// the cursor, in either direction.
func scanList[T any](s *Store, chain ids.ID, p store.Page, suffixLen int, prefixOf func(t tag) key) ([]T, []byte, error) {
	if p.Cursor != nil && len(p.Cursor) != suffixLen {
		return nil, nil, store.ErrBadCursor
	}
	t, ok := s.tagOf(chain)
	if !ok {
		return nil, nil, nil
	}
	prefix := prefixOf(t)
	lower := slices.Clone(prefix).u64(p.FromBlock)
	upper := successor(prefix)
	if p.ToBlock > 0 {
		upper = slices.Clone(prefix).u64(p.ToBlock)
	}
	if p.Cursor != nil {
		at := append(slices.Clone(prefix), p.Cursor...)
		if p.Desc {
			if bytes.Compare(at, upper) < 0 {
				upper = at
			}
		} else if after := append(at, 0); bytes.Compare(after, lower) > 0 {
			lower = after
		}
	}
	if bytes.Compare(lower, upper) >= 0 {
		return nil, nil, nil
	}
	limit := max(p.Limit, 1)
	it := s.eng.iter(lower, upper)
	ok, step := it.First(), it.Next
	if p.Desc {
		ok, step = it.Last(), it.Prev
	}
	out := make([]T, 0, min(limit, 128))
	var last, next []byte
	for ; ok; ok = step() {
		if len(out) == limit {
			next = last
			break
		}
		var v T
		if err := decode(it.Value(), &v); err != nil {
			_ = it.Close()
			return nil, nil, err
		}
		out = append(out, v)
		last = append(last[:0], it.Key()[len(prefix):]...)
	}
	if err := it.Close(); err != nil {
		return nil, nil, fmt.Errorf("store: scan: %w", err)
	}
	return out, next, nil
}

// balanceTables names the three tables of one kind of balance.
type balanceTables struct {
	cur, held, hist byte
	suffix          int // key bytes after the holder: the token, and the token ID for ERC-1155
}

var (
	erc20Tables   = balanceTables{cur: tCur20, held: tHeld20, hist: tHist20, suffix: addrLen}
	erc1155Tables = balanceTables{cur: tCur1155, held: tHeld1155, hist: tHist1155, suffix: addrLen + idLen}
	collectTables = balanceTables{cur: tCollect, suffix: addrLen + idLen}
)

// ERC20Balances lists holder's ERC-20 balances at a block.
func (s *Store) ERC20Balances(_ context.Context, chain ids.ID, holder common.Address, q store.BalanceQuery) ([]store.ERC20Balance, []byte, error) {
	return balancePage(s, chain, holder, q, erc20Tables, func(v []byte, bal *big.Int) (store.ERC20Balance, error) {
		if bal == nil {
			var b store.ERC20Balance
			return b, decode(v, &b)
		}
		b := store.ERC20Balance{Balance: bal}
		return b, decode(v, &b.Token)
	})
}

// ERC1155Balances lists holder's ERC-1155 balances at a block.
func (s *Store) ERC1155Balances(_ context.Context, chain ids.ID, holder common.Address, q store.BalanceQuery) ([]store.ERC1155Balance, []byte, error) {
	return balancePage(s, chain, holder, q, erc1155Tables, func(v []byte, bal *big.Int) (store.ERC1155Balance, error) {
		var b store.ERC1155Balance
		if err := decode(v, &b); err != nil {
			return b, err
		}
		if bal != nil {
			b.Balance = bal
		}
		return b, nil
	})
}

// Collectibles lists what holder owns now.
func (s *Store) Collectibles(_ context.Context, chain ids.ID, holder common.Address, q store.BalanceQuery) ([]store.Collectible, []byte, error) {
	q.Latest = true
	return balancePage(s, chain, holder, q, collectTables, func(v []byte, _ *big.Int) (store.Collectible, error) {
		var c store.Collectible
		return c, decode(v, &c)
	})
}

// balancePage reads one page of holder's balances, ordered by key suffix
// (token, then token ID). The latest balances are one scan of the current
// table. Balances at a block scan the tokens the holder ever held and make
// one seek per token into its history, landing on the last change at or
// before the block; tokens at zero there are skipped. build makes an item
// from a current row (bal nil) or from a held row and its balance.
func balancePage[T any](s *Store, chain ids.ID, holder common.Address, q store.BalanceQuery, tb balanceTables,
	build func(v []byte, bal *big.Int) (T, error)) ([]T, []byte, error) {
	if q.Cursor != nil && len(q.Cursor) != tb.suffix {
		return nil, nil, store.ErrBadCursor
	}
	t, ok := s.tagOf(chain)
	if !ok {
		return nil, nil, nil
	}
	limit := max(q.Limit, 1)
	snap := s.eng.snapshot()
	defer snap.release()

	table := tb.cur
	if !q.Latest {
		table = tb.held
	}
	prefix := newKey(table, t, addrLen+tb.suffix).addr(holder)
	var hist iter
	var histPrefix key
	if !q.Latest {
		histPrefix = newKey(tb.hist, t, addrLen+tb.suffix+8).addr(holder)
		hist = snap.iter(histPrefix, successor(histPrefix))
		defer hist.Close()
	}
	out := make([]T, 0, min(limit, 128))
	var last, next []byte
	for _, r := range balanceRanges(prefix, q.Tokens, q.Cursor) {
		it := snap.iter(r[0], r[1])
		for ok := it.First(); ok; ok = it.Next() {
			suffix := it.Key()[len(prefix):]
			var bal *big.Int
			if hist != nil {
				seek := append(append(slices.Clone(histPrefix), suffix...), 0, 0, 0, 0, 0, 0, 0, 0)
				putInverted(seek[len(seek)-8:], q.Block)
				if !hist.SeekGE(seek) || !bytes.HasPrefix(hist.Key(), seek[:len(seek)-8]) {
					continue // no change at or before the block
				}
				bal = new(big.Int)
				if err := decode(hist.Value(), bal); err != nil {
					_ = it.Close()
					return nil, nil, err
				}
				if bal.Sign() == 0 {
					continue
				}
			}
			if len(out) == limit {
				next = last
				break
			}
			v, err := build(it.Value(), bal)
			if err != nil {
				_ = it.Close()
				return nil, nil, err
			}
			out = append(out, v)
			last = append(last[:0], suffix...)
		}
		if err := it.Close(); err != nil {
			return nil, nil, fmt.Errorf("store: scan balances: %w", err)
		}
		if next != nil {
			break
		}
	}
	return out, next, nil
}

// putInverted writes ^n big-endian into b, so that newer blocks sort
// first.
func putInverted(b []byte, n uint64) {
	n = ^n
	for i := 7; i >= 0; i-- {
		b[i] = byte(n)
		n >>= 8
	}
}

// balanceRanges returns the key ranges to scan under prefix (a holder's
// rows): one per token of tokens, in address order, or the whole prefix;
// each starting after cursor.
func balanceRanges(prefix []byte, tokens []common.Address, cursor []byte) [][2][]byte {
	var ranges [][2][]byte
	if len(tokens) == 0 {
		ranges = append(ranges, [2][]byte{slices.Clone(prefix), successor(prefix)})
	} else {
		sorted := slices.Clone(tokens)
		slices.SortFunc(sorted, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
		for _, tok := range slices.Compact(sorted) {
			lo := append(slices.Clone(prefix), tok[:]...)
			ranges = append(ranges, [2][]byte{lo, successor(lo)})
		}
	}
	if cursor == nil {
		return ranges
	}
	after := append(append(slices.Clone(prefix), cursor...), 0)
	out := ranges[:0]
	for _, r := range ranges {
		if bytes.Compare(after, r[0]) > 0 {
			r[0] = after
		}
		if bytes.Compare(r[0], r[1]) < 0 {
			out = append(out, r)
		}
	}
	return out
}
