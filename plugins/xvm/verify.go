package xvm

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// rejected returns an error matching utxovm.ErrRejected that says why.
var rejected = utxovm.Rejected

// checked is what verification found of a pending transaction, for its
// block: the local UTXOs it spends, its peer chain and what it burns.
type checked struct {
	spends []avax.UTXO
	peer   ids.ID // the source of an import, or the destination of an export
	burned map[ids.ID]uint64
}

// checkLocked checks tx against the accepted state and the mempool, as
// avalanchego's semantic verifier does: every input spends an existing
// UTXO of its asset that no pending transaction spends, with a credential
// its owners signed; imported inputs spend UTXOs that the source chain put
// in shared memory for this chain; outputs are of this chain's assets; the
// peer chain of an import or export is another chain of the node. Mu is
// held.
func (vm *VM) checkLocked(ctx context.Context, tx *txs.Tx) (*pending, error) {
	id := tx.ID()
	if err := txs.Verify(tx, vm.txCtx); err != nil {
		return nil, rejected(id, "%v", err)
	}
	now := uint64(vm.now().Unix())
	hash := sha256.Sum256(tx.UnsignedBytes())
	base := tx.Unsigned.Base()
	p := &pending{Tx: tx}
	outs := base.Outs
	for i, in := range base.Ins {
		u, err := vm.spendable(ctx, id, fmt.Sprintf("input %d", i), in)
		if err != nil {
			return nil, err
		}
		if err := avax.VerifySpend(hash[:], &in.In, &tx.Creds[i], &u.Out, now); err != nil {
			return nil, rejected(id, "input %d (UTXO %s): %v", i, in.UTXOID, err)
		}
		p.Spends = append(p.Spends, u.InputID())
		p.Info.spends = append(p.Info.spends, u)
	}
	switch t := tx.Unsigned.(type) {
	case *txs.ImportTx:
		if err := vm.checkPeer(ctx, id, "source", t.SourceChain); err != nil {
			return nil, err
		}
		p.Info.peer = t.SourceChain
		for j, in := range t.ImportedIns {
			what := fmt.Sprintf("imported input %d", j)
			utxoID := in.InputID()
			if other, ok := vm.Pool.ImportedBy(utxoID); ok {
				return nil, rejected(id, "%s: UTXO %s is imported by pending tx %s already", what, in.UTXOID, other)
			}
			u, err := utxovm.Imported(ctx, vm.shared, id, what, t.SourceChain, in)
			if err != nil {
				return nil, err
			}
			cred := &tx.Creds[len(base.Ins)+j]
			if err := avax.VerifySpend(hash[:], &in.In, cred, &u.Out, now); err != nil {
				return nil, rejected(id, "%s (UTXO %s): %v", what, in.UTXOID, err)
			}
			p.Imports = append(p.Imports, utxoID)
		}
	case *txs.ExportTx:
		if err := vm.checkPeer(ctx, id, "destination", t.DestinationChain); err != nil {
			return nil, err
		}
		p.Info.peer = t.DestinationChain
		outs = append(append([]avax.TransferableOutput{}, outs...), t.ExportedOuts...)
	}
	for i, o := range outs {
		_, ok, err := vm.asset(ctx, o.AssetID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, rejected(id, "output %d: asset %s is not an asset of this chain", i, o.AssetID)
		}
	}
	ins := [][]avax.TransferableInput{base.Ins}
	if t, ok := tx.Unsigned.(*txs.ImportTx); ok {
		ins = append(ins, t.ImportedIns)
	}
	burned, err := txs.Flow(vm.txCtx.FeeAssetID, vm.txCtx.Fee(tx.Unsigned), ins, [][]avax.TransferableOutput{outs})
	if err != nil {
		return nil, rejected(id, "%v", err)
	}
	p.Info.burned = burned
	return p, nil
}

// spendable returns the UTXO input in spends, after checking that it
// exists, that no pending transaction spends it and that its asset is the
// input's. A UTXO spent already is a double spend, said so with the
// transaction that spent it.
func (vm *VM) spendable(ctx context.Context, id ids.ID, what string, in avax.TransferableInput) (avax.UTXO, error) {
	utxoID := in.InputID()
	if other, ok := vm.Pool.SpentBy(utxoID); ok {
		return avax.UTXO{}, rejected(id, "%s: double spend: UTXO %s is spent by pending tx %s", what, in.UTXOID, other)
	}
	u, found, err := utxostore.Get(ctx, vm.Store, utxoID)
	if err != nil {
		return avax.UTXO{}, err
	}
	if !found {
		spender, spent, err := utxostore.SpentBy(ctx, vm.Store, utxoID)
		switch {
		case err != nil:
			return avax.UTXO{}, err
		case spent:
			return avax.UTXO{}, rejected(id, "%s: double spend: UTXO %s was spent by tx %s", what, in.UTXOID, spender)
		}
		return avax.UTXO{}, rejected(id, "%s: UTXO %s does not exist", what, in.UTXOID)
	}
	if u.Mint != nil {
		return avax.UTXO{}, rejected(id, "%s: UTXO %s is a mint output, which no transfer spends", what, in.UTXOID)
	}
	return u, vm.checkAsset(id, what, in.AssetID, u)
}

// asset returns an asset of the chain by ID: a genesis asset, or one an
// accepted CreateAssetTx made (its ID the transaction's).
func (vm *VM) asset(ctx context.Context, id ids.ID) (*asset, bool, error) {
	if a, ok := vm.assetByID[id]; ok {
		return a, true, nil
	}
	t, found, err := vm.storedTx(ctx, id)
	if err != nil || !found {
		return nil, false, err
	}
	def, ok := t.Unsigned.(*txs.CreateAssetTx)
	if !ok {
		return nil, false, nil
	}
	return &asset{id: id, tx: t, def: def}, true, nil
}

// checkAsset checks that an input names its UTXO's asset.
func (vm *VM) checkAsset(id ids.ID, what string, asset ids.ID, u avax.UTXO) error {
	if u.AssetID != asset {
		return rejected(id, "%s: names asset %s, but UTXO %s holds asset %s", what, asset, u.UTXOID, u.AssetID)
	}
	return nil
}

// checkPeer checks that chain is another chain of the node, the source
// or destination of an atomic transaction.
func (vm *VM) checkPeer(ctx context.Context, id ids.ID, role string, chain ids.ID) error {
	if chain == vm.Env.ChainID {
		return rejected(id, "the %s chain is this chain", role)
	}
	if vm.chains[chain] {
		return nil
	}
	_, err := vm.Env.Host.Chains.Resolve(ctx, chain.String())
	if errors.Is(err, host.ErrNotFound) {
		return rejected(id, "the %s chain %s is not a chain of this node", role, chain)
	}
	if err != nil {
		return fmt.Errorf("resolve the %s chain %s: %w", role, chain, err)
	}
	vm.chains[chain] = true
	return nil
}
