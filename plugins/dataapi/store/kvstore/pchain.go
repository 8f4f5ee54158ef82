package kvstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// placeLen is the length of a creation's place in a key: its block and
// its index in the block.
const placeLen = 8 + 4

// place appends a creation's place.
func (k key) place(c store.Created) key { return k.u64(c.Block).u32(c.TxIndex) }

// writePChain writes the P-Chain records of a batch.
func writePChain(wb writer, t tag, b *store.Batch) {
	for i := range b.PBlocks {
		blk := &b.PBlocks[i]
		wb.put(newKey(tPBlock, t, 8).u64(blk.Height), encode(blk))
		wb.put(newKey(tPBlockID, t, 32).id(blk.ID), binary.BigEndian.AppendUint64(nil, blk.Height))
	}
	for i := range b.Blockchains {
		c := &b.Blockchains[i]
		v := encode(c)
		wb.put(newKey(tPChain, t, placeLen).place(c.Created), v)
		wb.put(newKey(tPChainID, t, 32).id(c.ID), newKey(tPChain, t, placeLen).place(c.Created)[1+tagLen:])
		wb.put(newKey(tPSubnetChain, t, 32+placeLen).id(c.SubnetID).place(c.Created), v)
	}
	for i := range b.Subnets {
		sn := &b.Subnets[i]
		wb.put(newKey(tPSubnet, t, placeLen).place(sn.Created), encode(sn))
		wb.put(newKey(tPSubnetID, t, 32).id(sn.ID), newKey(tPSubnet, t, placeLen).place(sn.Created)[1+tagLen:])
	}
}

// PBlock returns the P-Chain block at height.
func (s *Store) PBlock(_ context.Context, chain ids.ID, height uint64) (store.PBlock, error) {
	return chainRecord[store.PBlock](s, chain, func(t tag) key { return newKey(tPBlock, t, 8).u64(height) })
}

// PBlockByID returns the P-Chain block with ID id.
func (s *Store) PBlockByID(ctx context.Context, chain ids.ID, id ids.ID) (store.PBlock, error) {
	at, err := s.pointer(chain, tPBlockID, id, 8)
	if err != nil {
		return store.PBlock{}, err
	}
	return s.PBlock(ctx, chain, binary.BigEndian.Uint64(at))
}

// PBlocks lists the P-Chain's blocks by height.
func (s *Store) PBlocks(_ context.Context, chain ids.ID, p store.Page) ([]store.PBlock, []byte, error) {
	return scanList[store.PBlock](s, chain, p, 8, func(t tag) key { return newKey(tPBlock, t, 8) })
}

// Blockchain returns the blockchain with ID id.
func (s *Store) Blockchain(_ context.Context, chain ids.ID, id ids.ID) (store.Blockchain, error) {
	return created[store.Blockchain](s, chain, tPChainID, tPChain, id)
}

// Blockchains lists the blockchains by creation.
func (s *Store) Blockchains(_ context.Context, chain ids.ID, p store.Page) ([]store.Blockchain, []byte, error) {
	return scanList[store.Blockchain](s, chain, allCreations(p), placeLen, func(t tag) key { return newKey(tPChain, t, placeLen) })
}

// SubnetBlockchains lists a subnet's blockchains by creation.
func (s *Store) SubnetBlockchains(_ context.Context, chain ids.ID, subnet ids.ID, p store.Page) ([]store.Blockchain, []byte, error) {
	return scanList[store.Blockchain](s, chain, allCreations(p), placeLen, func(t tag) key {
		return newKey(tPSubnetChain, t, 32+placeLen).id(subnet)
	})
}

// Subnet returns the subnet with ID id.
func (s *Store) Subnet(_ context.Context, chain ids.ID, id ids.ID) (store.Subnet, error) {
	return created[store.Subnet](s, chain, tPSubnetID, tPSubnet, id)
}

// Subnets lists the subnets by creation.
func (s *Store) Subnets(_ context.Context, chain ids.ID, p store.Page) ([]store.Subnet, []byte, error) {
	return scanList[store.Subnet](s, chain, allCreations(p), placeLen, func(t tag) key { return newKey(tPSubnet, t, placeLen) })
}

// allCreations drops a page's block bounds, which the creation lists
// ignore.
func allCreations(p store.Page) store.Page {
	p.FromBlock, p.ToBlock = 0, 0
	return p
}

// pointer reads the value of an ID index (table, then id) of chain, of
// length n; store.ErrNotFound when the ID is not recorded.
func (s *Store) pointer(chain ids.ID, table byte, id ids.ID, n int) ([]byte, error) {
	t, ok := s.tagOf(chain)
	if !ok {
		return nil, store.ErrNotFound
	}
	v, err := s.eng.get(newKey(table, t, 32).id(id))
	switch {
	case errors.Is(err, errMissing):
		return nil, store.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("store: read index %#x: %w", table, err)
	case len(v) != n:
		return nil, fmt.Errorf("store: index %#x of %s holds %d bytes", table, id, len(v))
	}
	return v, nil
}

// created reads a record by ID through the index of its creation place.
func created[T any](s *Store, chain ids.ID, index, table byte, id ids.ID) (T, error) {
	var v T
	at, err := s.pointer(chain, index, id, placeLen)
	if err != nil {
		return v, err
	}
	return chainRecord[T](s, chain, func(t tag) key { return append(newKey(table, t, placeLen), at...) })
}
