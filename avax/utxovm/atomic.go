package utxovm

import (
	"context"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Imported returns the UTXO that source put in shared memory for this
// chain and an imported input of tx spends (docs/shared-memory.md), after
// checking that it is there under the input's ID and holds the input's
// asset; what names the input in a refusal.
func Imported(ctx context.Context, shared host.SharedMemory, tx ids.ID, what string, source ids.ID, in avax.TransferableInput) (avax.UTXO, error) {
	utxoID := in.InputID()
	vals, err := shared.Get(ctx, source, [][]byte{utxoID[:]})
	if errors.Is(err, host.ErrNotFound) {
		return avax.UTXO{}, Rejected(tx, "%s: UTXO %s is not in shared memory from chain %s "+
			"(never exported to this chain, or imported already)", what, in.UTXOID, source)
	}
	if err != nil {
		return avax.UTXO{}, fmt.Errorf("%s: read shared memory: %w", what, err)
	}
	u, err := avax.ParseUTXO(vals[0])
	if err != nil {
		return avax.UTXO{}, Rejected(tx, "%s: UTXO %s in shared memory: %v", what, in.UTXOID, err)
	}
	if u.UTXOID != in.UTXOID {
		return avax.UTXO{}, Rejected(tx, "%s: shared memory holds UTXO %s under the ID of %s", what, u.UTXOID, in.UTXOID)
	}
	if u.AssetID != in.AssetID {
		return avax.UTXO{}, Rejected(tx, "%s: names asset %s, but UTXO %s holds asset %s", what, in.AssetID, u.UTXOID, u.AssetID)
	}
	return u, nil
}

// Export adds to b the UTXO u an export puts in shared memory for dest,
// under its ID, with its owners as traits so that getUTXOs finds it by
// address.
func Export(b *host.SharedBatch, dest ids.ID, u avax.UTXO) {
	id := u.InputID()
	traits := make([][]byte, len(u.Out.Addrs))
	for k, a := range u.Out.Addrs {
		traits[k] = append([]byte{}, a[:]...)
	}
	b.Put(dest, host.SharedElement{Key: id[:], Value: u.Bytes(), Traits: traits})
}

// NodeChain reads getUTXOs' sourceChain: a chain of the node, by alias or
// ID.
func (c *Core[U, I]) NodeChain(ctx context.Context, s string) (ids.ID, error) {
	info, err := c.Env.Host.Chains.Resolve(ctx, s)
	if errors.Is(err, host.ErrNotFound) {
		return ids.ID{}, jsonrpc.InvalidParams(`"sourceChain": no chain %q on this node`, s)
	}
	return info.ID, err
}
