// Package utxostore keeps a chain's UTXO set in its VM's host database,
// in the same keys on the X- and P-Chains (docs/xvm.md, State): each
// unspent UTXO, its entry under each owner address, and the spender of
// each spent one.
package utxostore

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// The key prefixes of the UTXO set; a chain's other keys use other bytes.
const (
	PrefixUTXO  = 'u' // u <utxoID> -> UTXO bytes
	PrefixAddr  = 'a' // a <address> <utxoID> -> nothing
	PrefixSpent = 's' // s <utxoID> -> ID of the tx that spent it
)

// UTXOKey is the key of an unspent UTXO's bytes.
func UTXOKey(id ids.ID) []byte { return append([]byte{PrefixUTXO}, id[:]...) }

// AddrPrefix is the prefix of the keys of an address's UTXOs.
func AddrPrefix(a avax.ShortID) []byte { return append([]byte{PrefixAddr}, a[:]...) }

// AddrKey is the key of UTXO id under owner address a.
func AddrKey(a avax.ShortID, id ids.ID) []byte { return append(AddrPrefix(a), id[:]...) }

// SpentKey is the key of the ID of the transaction that spent a UTXO.
func SpentKey(id ids.ID) []byte { return append([]byte{PrefixSpent}, id[:]...) }

// Put adds the writes of a new UTXO to ops: the UTXO and its entry under
// each owner address.
func Put(ops []host.Op, u avax.UTXO) []host.Op {
	id := u.InputID()
	ops = append(ops, host.Op{Key: UTXOKey(id), Value: u.Bytes()})
	for _, a := range u.Owners().Addrs {
		ops = append(ops, host.Op{Key: AddrKey(a, id), Value: []byte{}})
	}
	return ops
}

// Spend adds the writes that spend u in tx spender to ops.
func Spend(ops []host.Op, u avax.UTXO, spender ids.ID) []host.Op {
	id := u.InputID()
	ops = append(ops, host.Op{Key: UTXOKey(id), Delete: true}, host.Op{Key: SpentKey(id), Value: spender[:]})
	for _, a := range u.Owners().Addrs {
		ops = append(ops, host.Op{Key: AddrKey(a, id), Delete: true})
	}
	return ops
}

// Get returns a UTXO; found is false when it does not exist (spent, or
// never made).
func Get(ctx context.Context, db host.Database, id ids.ID) (u avax.UTXO, found bool, err error) {
	b, err := db.Get(ctx, UTXOKey(id))
	if errors.Is(err, host.ErrNotFound) {
		return avax.UTXO{}, false, nil
	}
	if err != nil {
		return avax.UTXO{}, false, fmt.Errorf("read UTXO %s: %w", id, err)
	}
	u, err = avax.ParseUTXO(b)
	if err != nil {
		return avax.UTXO{}, false, fmt.Errorf("read UTXO %s: %w", id, err)
	}
	return u, true, nil
}

// SpentBy returns the transaction that spent a UTXO, if one did.
func SpentBy(ctx context.Context, db host.Database, id ids.ID) (ids.ID, bool, error) {
	b, err := db.Get(ctx, SpentKey(id))
	if errors.Is(err, host.ErrNotFound) {
		return ids.ID{}, false, nil
	}
	if err != nil {
		return ids.ID{}, false, fmt.Errorf("read spent marker of %s: %w", id, err)
	}
	txID, err := ids.FromBytes(b)
	return txID, err == nil, err
}
