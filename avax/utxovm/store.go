package utxovm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Keys the core keeps in a VM's host database namespace, besides the UTXO
// set's (utxostore: 'u', 'a', 's'); a VM's own prefixes are other bytes.
const (
	prefixTx      = 't' // t <txID> -> the VM's tx record
	prefixBlock   = 'b' // b <height> -> block bytes
	prefixBlockID = 'B' // B <blockID> -> height
	// KeyMeta keys the VM's counters and heads, written with every block.
	KeyMeta = "m"
)

// Key is a key of the namespace: a prefix byte, then parts.
func Key(prefix byte, parts ...[]byte) []byte {
	k := []byte{prefix}
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

// U64 is an 8-byte big-endian number, as keys and counters hold it.
func U64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// TxKey keys the record of an accepted transaction.
func TxKey(id ids.ID) []byte { return Key(prefixTx, id[:]) }

// BlockOps are the writes of an accepted block: its bytes by height, and
// its height by ID.
func BlockOps(id ids.ID, height uint64, b []byte) []host.Op {
	return []host.Op{
		{Key: Key(prefixBlock, U64(height)), Value: b},
		{Key: Key(prefixBlockID, id[:]), Value: U64(height)},
	}
}

// JSONOp is the write of a JSON record.
func JSONOp(k []byte, v any) host.Op {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode record %x: %v", k, err)) // plain data: cannot fail
	}
	return host.Op{Key: k, Value: b}
}

// Store reads a VM's stored state.
type Store struct {
	host.Database
}

// Lookup reads a key; found is false when it does not exist.
func (s Store) Lookup(ctx context.Context, k []byte) (b []byte, found bool, err error) {
	b, err = s.Get(ctx, k)
	if errors.Is(err, host.ErrNotFound) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// ReadJSON reads a JSON record; found is false when it does not exist.
func (s Store) ReadJSON(ctx context.Context, k []byte, v any) (bool, error) {
	b, found, err := s.Lookup(ctx, k)
	if err != nil || !found {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("record %x: %w", k, err)
	}
	return true, nil
}

// ReadMeta reads the VM's counters and heads into m; found is false on a
// new chain.
func (s Store) ReadMeta(ctx context.Context, m any) (bool, error) {
	found, err := s.ReadJSON(ctx, []byte(KeyMeta), m)
	if err != nil {
		return false, fmt.Errorf("read chain state: %w", err)
	}
	return found, nil
}

// Number reads an 8-byte number that must exist (a position or a height);
// what names it in errors.
func (s Store) Number(ctx context.Context, k []byte, what string) (uint64, error) {
	b, err := s.Get(ctx, k)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("corrupt %s", what)
	}
	return binary.BigEndian.Uint64(b), nil
}

// Counter reads an 8-byte counter; a missing one is 0.
func (s Store) Counter(ctx context.Context, k []byte) (uint64, error) {
	b, found, err := s.Lookup(ctx, k)
	if err != nil || !found {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("corrupt counter %x", k)
	}
	return binary.BigEndian.Uint64(b), nil
}

// TxRecord returns the stored record of an accepted transaction.
func (s Store) TxRecord(ctx context.Context, id ids.ID) ([]byte, bool, error) {
	b, found, err := s.Lookup(ctx, TxKey(id))
	if err != nil {
		return nil, false, fmt.Errorf("read tx %s: %w", id, err)
	}
	return b, found, nil
}

// BlockHeight returns the height of a block ID.
func (s Store) BlockHeight(ctx context.Context, id ids.ID) (uint64, error) {
	return s.Number(ctx, Key(prefixBlockID, id[:]), fmt.Sprintf("block %s", id))
}

// OwnedUTXOs calls fn with each UTXO addr owns on this chain.
func (s Store) OwnedUTXOs(ctx context.Context, addr avax.ShortID, fn func(avax.UTXO) error) error {
	prefix := utxostore.AddrPrefix(addr)
	return s.Iterate(ctx, prefix, nil, func(k, _ []byte) error {
		id, err := ids.FromBytes(k[len(prefix):])
		if err != nil {
			return err
		}
		u, found, err := utxostore.Get(ctx, s.Database, id)
		if err != nil || !found {
			return err
		}
		return fn(u)
	})
}
