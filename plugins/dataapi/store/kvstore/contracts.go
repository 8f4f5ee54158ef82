package kvstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// tokenXferSuffix is the length, after the token, of a token transfer
// key: block, transaction, log and batch positions; a cursor is one.
const tokenXferSuffix = posLen + 8

// nftSuffix is the length, after the token, of an NFT key: the token ID.
const nftSuffix = idLen

// writeTokenTransfers writes tx's transfers in their tokens' lists and
// returns their keys.
func writeTokenTransfers(wb writer, t tag, tx *store.Tx) [][]byte {
	var keys [][]byte
	for _, x := range tx.TokenTransfers() {
		token, logIndex, batch := x.Place()
		k := tokenXferKey(t, token).u64(tx.BlockNumber).u32(tx.Index).u32(logIndex).u32(batch)
		wb.put(k, encode(&x))
		keys = append(keys, k)
	}
	return keys
}

// tokenXferKey is the prefix of a token's transfers.
func tokenXferKey(t tag, token common.Address) key {
	return newKey(tTokenXfer, t, addrLen+tokenXferSuffix).addr(token)
}

// Contract returns the deployment of the contract at addr.
func (s *Store) Contract(_ context.Context, chain ids.ID, addr common.Address) (store.Contract, error) {
	return chainRecord[store.Contract](s, chain, func(t tag) key { return newKey(tContract, t, addrLen).addr(addr) })
}

// TokenTransfers lists the transfers of token.
func (s *Store) TokenTransfers(_ context.Context, chain ids.ID, token common.Address, p store.Page) ([]store.TokenTransfer, []byte, error) {
	return listPage[store.TokenTransfer](s, tTokenXfer, chain, token, p, tokenXferSuffix)
}

// CollectionNFTs lists the NFTs of token by token ID: one range scan from
// the cursor.
func (s *Store) CollectionNFTs(_ context.Context, chain ids.ID, token common.Address, p store.Page) ([]store.NFT, []byte, error) {
	if p.Cursor != nil && len(p.Cursor) != nftSuffix {
		return nil, nil, store.ErrBadCursor
	}
	t, ok := s.tagOf(chain)
	if !ok {
		return nil, nil, nil
	}
	prefix := newKey(tNFT, t, addrLen+nftSuffix).addr(token)
	lower := slices.Clone(prefix)
	if p.Cursor != nil {
		lower = append(append(lower, p.Cursor...), 0)
	}
	limit := max(p.Limit, 1)
	it := s.eng.iter(lower, successor(prefix))
	out := make([]store.NFT, 0, min(limit, 128))
	var last, next []byte
	for ok := it.First(); ok; ok = it.Next() {
		if len(out) == limit {
			next = last
			break
		}
		var n store.NFT
		if err := decode(it.Value(), &n); err != nil {
			_ = it.Close()
			return nil, nil, err
		}
		out = append(out, n)
		last = append(last[:0], it.Key()[len(prefix):]...)
	}
	if err := it.Close(); err != nil {
		return nil, nil, fmt.Errorf("store: scan NFTs: %w", err)
	}
	return out, next, nil
}

// UpdateNFTs replaces the records of NFTs already recorded; one that is
// not (rolled back meanwhile) stays unrecorded.
func (s *Store) UpdateNFTs(_ context.Context, chain ids.ID, nfts []store.NFTRecord) error {
	t, ok := s.tagOf(chain)
	if !ok {
		return nil
	}
	wb := s.eng.newBatch()
	for i := range nfts {
		k := newKey(tNFT, t, addrLen+idLen).addr(nfts[i].Token).tokenID(nfts[i].NFT.TokenID)
		if _, err := s.eng.get(k); errors.Is(err, errMissing) {
			continue
		} else if err != nil {
			return fmt.Errorf("store: read NFT: %w", err)
		}
		wb.put(k, encode(&nfts[i].NFT))
	}
	if err := wb.commit(); err != nil {
		return fmt.Errorf("store: update NFTs of chain %s: %w", chain, err)
	}
	return nil
}

// backfillTokenXfers names the backfill that lists the transfers of a
// store written before the token transfer lists existed.
const backfillTokenXfers = "token-transfers"

// backfillTokenTransfers writes the token transfer lists of every
// transaction stored, once: a store of an earlier release has
// transactions without them. It logs its progress.
func (s *Store) backfillTokenTransfers(log hclog.Logger) error {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	done := metaKey(backfillTokenXfers)
	if _, err := s.eng.get(done); err == nil {
		return nil
	} else if !errors.Is(err, errMissing) {
		return fmt.Errorf("store: read backfills: %w", err)
	}
	const perWrite = 10_000
	var txs, transfers int
	for _, t := range s.tagList() {
		prefix := newKey(tTx, t, 0)
		var after []byte
		for {
			lower := slices.Clone(prefix)
			if after != nil {
				lower = append(after, 0)
			}
			n, last, err := s.backfillRange(t, lower, successor(prefix), perWrite, &transfers)
			if err != nil {
				return err
			}
			if txs += n; n > 0 {
				log.Info("backfilling the token transfer lists", "transactions", txs, "transfers", transfers)
			}
			if last == nil {
				break
			}
			after = last
		}
	}
	wb := s.eng.newBatch()
	wb.put(done, nil)
	if err := wb.commit(); err != nil {
		return fmt.Errorf("store: record the backfill %s: %w", backfillTokenXfers, err)
	}
	if txs > 0 {
		log.Info("backfilled the token transfer lists", "transactions", txs, "transfers", transfers)
	}
	return nil
}

// backfillRange writes the token transfers of up to n transactions from
// lower on, in one write, adding their keys to the undo record of their
// block when it has one (so that a rollback removes them); last is the
// key of the last one read, nil when the range ended.
func (s *Store) backfillRange(t tag, lower, upper []byte, n int, transfers *int) (int, []byte, error) {
	it := s.eng.iter(lower, upper)
	wb := s.eng.newBatch()
	undo := map[uint64][]undoEntry{} // the undo records changed, by block
	read := 0
	var (
		last []byte
		err  error
	)
	ok := it.First()
	for ; ok && read < n; ok = it.Next() {
		var tx store.Tx
		if err = decode(it.Value(), &tx); err != nil {
			break
		}
		keys := writeTokenTransfers(wb, t, &tx)
		*transfers += len(keys)
		read++
		last = bytes.Clone(it.Key())
		if len(keys) == 0 {
			continue
		}
		entries, logged := undo[tx.BlockNumber]
		if !logged {
			rec, gerr := s.eng.get(undoKey(t, tx.BlockNumber))
			if errors.Is(gerr, errMissing) {
				continue // not undoable: nothing to log
			} else if gerr != nil {
				err = gerr
				break
			}
			if err = decode(rec, &entries); err != nil {
				break
			}
		}
		for _, k := range keys {
			entries = append(entries, undoEntry{Key: k})
		}
		undo[tx.BlockNumber] = entries
	}
	if !ok {
		last = nil
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	for block, entries := range undo {
		wb.put(undoKey(t, block), encode(entries))
	}
	if err == nil {
		err = wb.commit()
	}
	if err != nil {
		return 0, nil, fmt.Errorf("store: backfill token transfers: %w", err)
	}
	return read, last, nil
}

// tagList returns the tags of the chains, in order.
func (s *Store) tagList() []tag {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]tag, 0, len(s.chains))
	for t := range s.chains {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b tag) int { return int(binary.BigEndian.Uint32(a[:])) - int(binary.BigEndian.Uint32(b[:])) })
	return out
}
