// Package kvstore is the data API's embedded backend: an ordered key-value
// store (pebble by default, goleveldb as an option) in the module's data
// directory, laid out so that every list page is one bounded range scan in
// either direction (docs/data-api.md, "Storage layout").
package kvstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures Open.
type Options struct {
	// Engine is EnginePebble (the default) or EngineLevelDB.
	Engine string
	// CacheMB is the block cache size; 0 means 64.
	CacheMB int
	// Logger logs the progress of a backfill on open; nil discards.
	Logger hclog.Logger
}

// Store is the embedded store.Store.
type Store struct {
	eng engine

	mu     sync.RWMutex
	tags   map[ids.ID]tag // chains with a tag
	chains map[tag]ids.ID
	last   uint32 // the last tag handed out
}

var _ store.Store = (*Store)(nil)

// Open opens or creates the store in dir.
func Open(dir string, opts Options) (*Store, error) {
	if opts.Engine == "" {
		opts.Engine = EnginePebble
	}
	if opts.CacheMB <= 0 {
		opts.CacheMB = 64
	}
	eng, err := openEngine(opts.Engine, dir, opts.CacheMB)
	if err != nil {
		return nil, err
	}
	s := &Store{eng: eng, tags: map[ids.ID]tag{}, chains: map[tag]ids.ID{}}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if err := s.loadTags(); err != nil {
		_ = eng.close()
		return nil, err
	}
	if err := s.backfillTokenTransfers(opts.Logger); err != nil {
		_ = eng.close()
		return nil, err
	}
	if err := s.backfillChainLists(opts.Logger); err != nil {
		_ = eng.close()
		return nil, err
	}
	return s, nil
}

// loadTags reads the chain tags.
func (s *Store) loadTags() error {
	it := s.eng.iter([]byte{tChainTag}, []byte{tChainTag + 1})
	for ok := it.First(); ok; ok = it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) != 1+32 || len(v) != tagLen {
			_ = it.Close()
			return fmt.Errorf("store: bad chain tag entry %x", k)
		}
		id, _ := ids.FromBytes(k[1:])
		var t tag
		copy(t[:], v)
		s.tags[id], s.chains[t] = t, id
		s.last = max(s.last, binary.BigEndian.Uint32(t[:]))
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("store: read chain tags: %w", err)
	}
	return nil
}

// Close closes the engine.
func (s *Store) Close() error { return s.eng.close() }

// tagOf returns the tag of chain, if it has one.
func (s *Store) tagOf(chain ids.ID) (tag, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tags[chain]
	return t, ok
}

// ensureTag returns the tag of chain, handing out a new one (written at
// once) the first time.
func (s *Store) ensureTag(chain ids.ID) (tag, error) {
	if t, ok := s.tagOf(chain); ok {
		return t, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tags[chain]; ok {
		return t, nil
	}
	var t tag
	binary.BigEndian.PutUint32(t[:], s.last+1)
	b := s.eng.newBatch()
	b.put(append([]byte{tChainTag}, chain[:]...), t[:])
	if err := b.commit(); err != nil {
		return tag{}, fmt.Errorf("store: tag chain %s: %w", chain, err)
	}
	s.last++
	s.tags[chain], s.chains[t] = t, chain
	return t, nil
}

// encode returns the RLP of a record; records are made of types RLP
// encodes, so an error is a bug.
func encode(v any) []byte {
	b, err := rlp.EncodeToBytes(v)
	if err != nil {
		panic(fmt.Sprintf("store: encode %T: %v", v, err))
	}
	return b
}

// Write applies a batch in one atomic engine write; with b.Undo, block by
// block, logging what each changes (undo.go).
func (s *Store) Write(_ context.Context, b *store.Batch) error {
	t, err := s.ensureTag(b.Chain)
	if err != nil {
		return err
	}
	wb := s.eng.newBatch()
	if b.Undo {
		if err := s.writeUndoable(wb, t, b); err != nil {
			return err
		}
	} else {
		writeRecords(wb, t, b)
	}
	wb.put(newKey(tState, t, 0), encode(&b.State))
	if b.PruneUndoBelow > 0 {
		if err := s.pruneUndo(wb, t, b.PruneUndoBelow); err != nil {
			return err
		}
	}
	if err := wb.commit(); err != nil {
		return fmt.Errorf("store: write %d blocks of chain %s: %w", len(b.Blocks), b.Chain, err)
	}
	return nil
}

// writeRecords writes the records of a batch (its state aside).
func writeRecords(wb writer, t tag, b *store.Batch) {
	writePChain(wb, t, b)
	for i := range b.Blocks {
		blk := &b.Blocks[i]
		wb.put(newKey(tBlock, t, 8).u64(blk.Number), encode(blk))
		wb.put(newKey(tBlockHash, t, 32).hash(blk.Hash), binary.BigEndian.AppendUint64(nil, blk.Number))
	}
	active := map[common.Address]struct{}{}
	for i := range b.Txs {
		writeTx(wb, t, &b.Txs[i], active)
	}
	for a := range active {
		wb.put(append(append([]byte{tAddrChain}, a[:]...), t[:]...), nil)
	}
	for i := range b.Balances {
		writeBalance(wb, t, &b.Balances[i])
	}
	for i := range b.Ownerships {
		o := &b.Ownerships[i]
		var zero common.Address
		if o.From != zero {
			wb.del(newKey(tCollect, t, 2*addrLen+idLen).addr(o.From).addr(o.Token.Address).tokenID(o.NFT.TokenID))
		}
		if o.To != zero {
			c := store.Collectible{Token: o.Token, NFT: o.NFT, Balance: big.NewInt(1)}
			wb.put(newKey(tCollect, t, 2*addrLen+idLen).addr(o.To).addr(o.Token.Address).tokenID(o.NFT.TokenID), encode(&c))
		}
	}
	for i := range b.Contracts {
		c := &b.Contracts[i]
		v := encode(c)
		wb.put(newKey(tDeploy, t, addrLen+16).addr(c.Deployer).u64(c.BlockNumber).u32(c.TxIndex).u32(c.Frame), v)
		if c.Factory != (common.Address{}) && c.Factory != c.Deployer {
			wb.put(newKey(tDeploy, t, addrLen+16).addr(c.Factory).u64(c.BlockNumber).u32(c.TxIndex).u32(c.Frame), v)
		}
		wb.put(newKey(tContract, t, addrLen).addr(c.Address), v)
	}
	for i := range b.Tokens {
		wb.put(newKey(tToken, t, addrLen).addr(b.Tokens[i].Address), encode(&b.Tokens[i]))
	}
	for i := range b.NFTs {
		n := &b.NFTs[i]
		wb.put(newKey(tNFT, t, addrLen+idLen).addr(n.Token).tokenID(n.NFT.TokenID), encode(&n.NFT))
	}
}

// writeTx writes a transaction by hash, in the transaction list of every
// address that took part in it, and its transfers and internal
// transactions in the lists of their senders and recipients; it adds those
// addresses to active.
func writeTx(wb writer, t tag, tx *store.Tx, active map[common.Address]struct{}) {
	wb.put(newKey(tTx, t, 32).hash(tx.Hash), encode(tx))
	for _, v := range tx.Views() {
		active[v.Address] = struct{}{}
		wb.put(newKey(tAddrTx, t, addrLen+posLen).addr(v.Address).u64(tx.BlockNumber).u32(tx.Index), encode(&v.Tx))
	}
	writeTokenTransfers(wb, t, tx)
	writeChainLists(wb, t, tx)
	ref := tx.Ref()
	for _, x := range tx.ERC721 {
		v := encode(&store.ERC721Item{Ref: ref, Transfer: x})
		forBoth(x.From, x.To, func(a common.Address) {
			wb.put(newKey(tAddr721, t, addrLen+posLen+4).addr(a).u64(tx.BlockNumber).u32(tx.Index).u32(x.LogIndex), v)
		})
	}
	for _, x := range tx.ERC1155 {
		v := encode(&store.ERC1155Item{Ref: ref, Transfer: x})
		forBoth(x.From, x.To, func(a common.Address) {
			wb.put(newKey(tAddr1155, t, addrLen+posLen+8).addr(a).u64(tx.BlockNumber).u32(tx.Index).u32(x.LogIndex).u32(x.BatchIndex), v)
		})
	}
	for _, x := range tx.Internal {
		v := encode(&store.InternalItem{Ref: ref, Tx: x})
		forBoth(x.From, x.To, func(a common.Address) {
			wb.put(newKey(tAddrInt, t, addrLen+posLen+4).addr(a).u64(tx.BlockNumber).u32(tx.Index).u32(x.Frame), v)
		})
	}
}

// forBoth calls fn with from, then with to unless it is from.
func forBoth(from, to common.Address, fn func(common.Address)) {
	fn(from)
	if to != from {
		fn(to)
	}
}

// writeBalance records a holder's balance after a block: in its history,
// in the list of tokens it ever held, and as its current balance (deleted
// at zero), with ERC-1155 balances also in its collectibles.
func writeBalance(wb writer, t tag, c *store.BalanceChange) {
	if c.NFT == nil {
		cur := newKey(tCur20, t, 2*addrLen).addr(c.Holder).addr(c.Token.Address)
		if c.Balance.Sign() == 0 {
			wb.del(cur)
		} else {
			wb.put(cur, encode(&store.ERC20Balance{Token: c.Token, Balance: c.Balance}))
		}
		wb.put(newKey(tHeld20, t, 2*addrLen).addr(c.Holder).addr(c.Token.Address), encode(&c.Token))
		wb.put(newKey(tHist20, t, 2*addrLen+8).addr(c.Holder).addr(c.Token.Address).u64(^c.Block), encode(c.Balance))
		return
	}
	bal := store.ERC1155Balance{Token: c.Token, NFT: *c.NFT, Balance: c.Balance}
	cur := newKey(tCur1155, t, 2*addrLen+idLen).addr(c.Holder).addr(c.Token.Address).tokenID(c.NFT.TokenID)
	coll := newKey(tCollect, t, 2*addrLen+idLen).addr(c.Holder).addr(c.Token.Address).tokenID(c.NFT.TokenID)
	if c.Balance.Sign() == 0 {
		wb.del(cur)
		wb.del(coll)
	} else {
		wb.put(cur, encode(&bal))
		wb.put(coll, encode(&store.Collectible{Token: c.Token, NFT: *c.NFT, Balance: c.Balance}))
	}
	held := bal
	held.Balance = new(big.Int)
	wb.put(newKey(tHeld1155, t, 2*addrLen+idLen).addr(c.Holder).addr(c.Token.Address).tokenID(c.NFT.TokenID), encode(&held))
	wb.put(newKey(tHist1155, t, 2*addrLen+idLen+8).addr(c.Holder).addr(c.Token.Address).tokenID(c.NFT.TokenID).u64(^c.Block), encode(c.Balance))
}

// decode decodes an RLP value into v.
func decode(b []byte, v any) error {
	if err := rlp.DecodeBytes(b, v); err != nil {
		return fmt.Errorf("store: decode %T: %w", v, err)
	}
	return nil
}

// getRecord reads the record at k into v; store.ErrNotFound when missing.
func getRecord(r reader, k []byte, v any) error {
	b, err := r.get(k)
	if errors.Is(err, errMissing) {
		return store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store: read: %w", err)
	}
	return decode(b, v)
}

// chainRecord reads the record of chain under the key that key makes of
// its tag; store.ErrNotFound for a chain never written.
func chainRecord[T any](s *Store, chain ids.ID, key func(t tag) key) (T, error) {
	var v T
	t, ok := s.tagOf(chain)
	if !ok {
		return v, store.ErrNotFound
	}
	err := getRecord(s.eng, key(t), &v)
	return v, err
}

// Chains returns the state of every chain written.
func (s *Store) Chains(context.Context) (map[ids.ID]store.ChainState, error) {
	out := map[ids.ID]store.ChainState{}
	it := s.eng.iter([]byte{tState}, []byte{tState + 1})
	for ok := it.First(); ok; ok = it.Next() {
		var t tag
		copy(t[:], it.Key()[1:])
		s.mu.RLock()
		chain, known := s.chains[t]
		s.mu.RUnlock()
		if !known {
			continue
		}
		var st store.ChainState
		if err := decode(it.Value(), &st); err != nil {
			_ = it.Close()
			return nil, err
		}
		out[chain] = st
	}
	return out, it.Close()
}

// State returns chain's state, zero when it was never written.
func (s *Store) State(_ context.Context, chain ids.ID) (store.ChainState, error) {
	var st store.ChainState
	t, ok := s.tagOf(chain)
	if !ok {
		return st, nil
	}
	if err := getRecord(s.eng, newKey(tState, t, 0), &st); err != nil && !errors.Is(err, store.ErrNotFound) {
		return st, err
	}
	return st, nil
}

// Block returns block n of chain.
func (s *Store) Block(_ context.Context, chain ids.ID, n uint64) (store.Block, error) {
	return chainRecord[store.Block](s, chain, func(t tag) key { return newKey(tBlock, t, 8).u64(n) })
}

// BlockByHash returns the block of chain with hash h.
func (s *Store) BlockByHash(ctx context.Context, chain ids.ID, h common.Hash) (store.Block, error) {
	t, ok := s.tagOf(chain)
	if !ok {
		return store.Block{}, store.ErrNotFound
	}
	n, err := s.eng.get(newKey(tBlockHash, t, 32).hash(h))
	if errors.Is(err, errMissing) {
		return store.Block{}, store.ErrNotFound
	}
	if err != nil {
		return store.Block{}, fmt.Errorf("store: read block hash: %w", err)
	}
	return s.Block(ctx, chain, binary.BigEndian.Uint64(n))
}

// Tx returns the complete transaction of chain with hash h.
func (s *Store) Tx(_ context.Context, chain ids.ID, h common.Hash) (store.Tx, error) {
	return chainRecord[store.Tx](s, chain, func(t tag) key { return newKey(tTx, t, 32).hash(h) })
}

// Token returns the recorded metadata of a token contract.
func (s *Store) Token(_ context.Context, chain ids.ID, addr common.Address) (store.Token, error) {
	return chainRecord[store.Token](s, chain, func(t tag) key { return newKey(tToken, t, addrLen).addr(addr) })
}

// NFT returns the recorded metadata of one NFT.
func (s *Store) NFT(_ context.Context, chain ids.ID, token common.Address, id *big.Int) (store.NFT, error) {
	return chainRecord[store.NFT](s, chain, func(t tag) key { return newKey(tNFT, t, addrLen+idLen).addr(token).tokenID(id) })
}

// Balance returns holder's current balance of token (id nil: ERC-20).
func (s *Store) Balance(_ context.Context, chain ids.ID, holder, token common.Address, id *big.Int) (*big.Int, error) {
	t, ok := s.tagOf(chain)
	if !ok {
		return new(big.Int), nil
	}
	var (
		err error
		bal *big.Int
	)
	if id == nil {
		var b store.ERC20Balance
		err = getRecord(s.eng, newKey(tCur20, t, 2*addrLen).addr(holder).addr(token), &b)
		bal = b.Balance
	} else {
		var b store.ERC1155Balance
		err = getRecord(s.eng, newKey(tCur1155, t, 2*addrLen+idLen).addr(holder).addr(token).tokenID(id), &b)
		bal = b.Balance
	}
	if errors.Is(err, store.ErrNotFound) {
		return new(big.Int), nil
	}
	return bal, err
}

// AddressChains returns the chains addr took part in.
func (s *Store) AddressChains(_ context.Context, addr common.Address) ([]ids.ID, error) {
	prefix := append([]byte{tAddrChain}, addr[:]...)
	it := s.eng.iter(prefix, successor(prefix))
	var out []ids.ID
	for ok := it.First(); ok; ok = it.Next() {
		var t tag
		copy(t[:], it.Key()[len(prefix):])
		s.mu.RLock()
		chain, known := s.chains[t]
		s.mu.RUnlock()
		if known {
			out = append(out, chain)
		}
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("store: read address chains: %w", err)
	}
	return out, nil
}
