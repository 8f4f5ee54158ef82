package kvstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// Chunk is a part of an export: records of one chain as a store.Batch
// whose State is left empty.
type Chunk struct {
	Batch *store.Batch
	// Phase names what the chunk holds ("transactions", "blocks", ...).
	Phase string
	// Records is how many records it holds.
	Records int
	// Next is the position after it, to resume from.
	Next []byte
}

// exportPhase is one pass of an export: the table it reads, in which
// direction, and how a record of it goes into a batch.
type exportPhase struct {
	name     string
	table    byte
	backward bool
	add      func(s *Store, b *store.Batch, key, value []byte) error
}

// exportPhases are the passes of an export. Writing their chunks in order
// through a backend's write path rebuilds the store: the transactions
// make the address lists and the address chains; each holder's balance
// changes come oldest first (the history table read backwards), so that
// the last written is the current balance; ERC-1155 balances make their
// collectibles, ERC-721 tokens owned make theirs; the deployments make the
// contract records.
var exportPhases = []exportPhase{
	{name: "transactions", table: tTx, add: addTo(func(b *store.Batch) *[]store.Tx { return &b.Txs })},
	{name: "blocks", table: tBlock, add: addTo(func(b *store.Batch) *[]store.Block { return &b.Blocks })},
	{name: "ERC-20 balance changes", table: tHist20, backward: true, add: func(s *Store, b *store.Batch, k, v []byte) error {
		// tag, holder, token, ^block
		c := store.BalanceChange{Holder: common.BytesToAddress(k[5:25]), Block: ^binary.BigEndian.Uint64(k[45:53]), Balance: new(big.Int)}
		if err := decode(v, c.Balance); err != nil {
			return err
		}
		if err := getRecord(s.eng, slices.Concat([]byte{tHeld20}, k[1:45]), &c.Token); err != nil {
			return fmt.Errorf("store: the token of ERC-20 history %x: %w", k, err)
		}
		b.Balances = append(b.Balances, c)
		return nil
	}},
	{name: "ERC-1155 balance changes", table: tHist1155, backward: true, add: func(s *Store, b *store.Batch, k, v []byte) error {
		// tag, holder, token, token ID, ^block
		var held store.ERC1155Balance
		if err := getRecord(s.eng, slices.Concat([]byte{tHeld1155}, k[1:77]), &held); err != nil {
			return fmt.Errorf("store: the token of ERC-1155 history %x: %w", k, err)
		}
		c := store.BalanceChange{Holder: common.BytesToAddress(k[5:25]), Token: held.Token, NFT: &held.NFT,
			Block: ^binary.BigEndian.Uint64(k[77:85]), Balance: new(big.Int)}
		if err := decode(v, c.Balance); err != nil {
			return err
		}
		b.Balances = append(b.Balances, c)
		return nil
	}},
	{name: "ERC-721 tokens owned", table: tCollect, add: func(_ *Store, b *store.Batch, k, v []byte) error {
		var c store.Collectible
		if err := decode(v, &c); err != nil {
			return err
		}
		if c.Token.Kind == store.KindERC721 {
			b.Ownerships = append(b.Ownerships, store.Ownership{Token: c.Token, NFT: c.NFT, To: common.BytesToAddress(k[5:25])})
		}
		return nil
	}},
	{name: "deployments", table: tDeploy, add: addTo(func(b *store.Batch) *[]store.Contract { return &b.Contracts })},
	{name: "tokens", table: tToken, add: addTo(func(b *store.Batch) *[]store.Token { return &b.Tokens })},
	{name: "NFTs", table: tNFT, add: func(_ *Store, b *store.Batch, k, v []byte) error {
		n := store.NFTRecord{Token: common.BytesToAddress(k[5:25])}
		err := decode(v, &n.NFT)
		b.NFTs = append(b.NFTs, n)
		return err
	}},
	{name: "P-Chain blocks", table: tPBlock, add: addTo(func(b *store.Batch) *[]store.PBlock { return &b.PBlocks })},
	{name: "blockchains", table: tPChain, add: addTo(func(b *store.Batch) *[]store.Blockchain { return &b.Blockchains })},
	{name: "subnets", table: tPSubnet, add: addTo(func(b *store.Batch) *[]store.Subnet { return &b.Subnets })},
}

// addTo is the add of a phase whose records go into a batch as they are,
// into the list that list picks.
func addTo[T any](list func(b *store.Batch) *[]T) func(s *Store, b *store.Batch, key, value []byte) error {
	return func(_ *Store, b *store.Batch, _, v []byte) error {
		var r T
		if err := decode(v, &r); err != nil {
			return err
		}
		l := list(b)
		*l = append(*l, r)
		return nil
	}
}

// ErrBadPosition is returned by Export for a position it did not make.
var ErrBadPosition = errors.New("store: not an export position")

// Export streams the store's records from position from (nil: the start)
// to fn in chunks of at most limit records of one chain, phase by phase
// (exportPhases); the chains' states, which say how far each is indexed,
// are left to the caller (Chains), to be written last. The store must not
// change meanwhile.
func (s *Store) Export(ctx context.Context, from []byte, limit int, fn func(Chunk) error) error {
	phase, after := 0, []byte(nil)
	if len(from) > 0 {
		phase, after = int(from[0]), from[1:]
		if phase > len(exportPhases) {
			return ErrBadPosition
		}
	}
	for ; phase < len(exportPhases); phase, after = phase+1, nil {
		if err := s.exportPhase(ctx, phase, after, max(limit, 1), fn); err != nil {
			return err
		}
	}
	return nil
}

// exportPhase streams one phase from after its key after (nil: the
// start).
func (s *Store) exportPhase(ctx context.Context, phase int, after []byte, limit int, fn func(Chunk) error) error {
	p := exportPhases[phase]
	lower, upper := []byte{p.table}, []byte{p.table + 1}
	if after != nil {
		if p.backward {
			upper = slices.Clone(after)
		} else {
			lower = append(slices.Clone(after), 0)
		}
	}
	it := s.eng.iter(lower, upper)
	err := s.exportRange(ctx, it, phase, limit, fn)
	if cerr := it.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("store: export %s: %w", p.name, cerr)
	}
	return err
}

// exportRange streams the records under it of one phase.
func (s *Store) exportRange(ctx context.Context, it iter, phase, limit int, fn func(Chunk) error) error {
	p := exportPhases[phase]
	ok, step := it.First(), it.Next
	if p.backward {
		ok, step = it.Last(), it.Prev
	}
	var b *store.Batch
	var t tag
	n := 0
	var last []byte
	flush := func() error {
		if b == nil {
			return nil
		}
		err := fn(Chunk{Batch: b, Phase: p.name, Records: n, Next: append([]byte{byte(phase)}, last...)})
		b, n = nil, 0
		return err
	}
	for ; ok; ok = step() {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := it.Key()
		if len(k) < 1+tagLen {
			return fmt.Errorf("store: bad key %x", k)
		}
		if b != nil && (n == limit || [tagLen]byte(k[1:1+tagLen]) != t) {
			if err := flush(); err != nil {
				return err
			}
		}
		if b == nil {
			copy(t[:], k[1:1+tagLen])
			s.mu.RLock()
			chain, known := s.chains[t]
			s.mu.RUnlock()
			if !known {
				return fmt.Errorf("store: key %x of an unknown chain tag", k)
			}
			b = &store.Batch{Chain: chain}
		}
		if err := p.add(s, b, k, it.Value()); err != nil {
			return fmt.Errorf("store: export %s: %w", p.name, err)
		}
		n++
		last = append(last[:0], k...)
	}
	return flush()
}
