package txs

import (
	"errors"
	"fmt"
	"math"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Context is what a transaction's structure is checked against.
type Context struct {
	// NetworkID and ChainID must match the transaction's.
	NetworkID uint32
	ChainID   ids.ID
	// FeeAssetID is the asset fees are paid in; TxFee the fee of every
	// transaction.
	FeeAssetID ids.ID
	TxFee      uint64
}

// ErrInsufficientFunds is matched by a transaction whose outputs and fee
// exceed its inputs in some asset.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Verify checks what a transaction can be checked for on its own, as
// avalanchego's syntactic verifier does: network and chain, memo size,
// valid and sorted outputs, valid, sorted and unique inputs, inputs that
// cover the outputs and the fee in every asset, and one credential per
// input. Whatever the inputs give beyond the outputs is burned, the fee
// at least. A CreateAssetTx is refused: assets come from the genesis.
func Verify(t *Tx, ctx Context) error {
	b := t.Unsigned.Base()
	switch {
	case b.NetworkID != ctx.NetworkID:
		return fmt.Errorf("tx is for network %d, this is network %d", b.NetworkID, ctx.NetworkID)
	case b.BlockchainID != ctx.ChainID:
		return fmt.Errorf("tx is for chain %s, this is chain %s", b.BlockchainID, ctx.ChainID)
	case len(b.Memo) > maxMemoSize:
		return fmt.Errorf("memo of %d bytes, more than %d", len(b.Memo), maxMemoSize)
	}
	outs := [][]avax.TransferableOutput{b.Outs}
	ins := [][]avax.TransferableInput{b.Ins}
	switch tx := t.Unsigned.(type) {
	case *BaseTx:
	case *ImportTx:
		if len(tx.ImportedIns) == 0 {
			return errors.New("import tx has no imported inputs")
		}
		ins = append(ins, tx.ImportedIns)
	case *ExportTx:
		if len(tx.ExportedOuts) == 0 {
			return errors.New("export tx has no exported outputs")
		}
		outs = append(outs, tx.ExportedOuts)
	case *CreateAssetTx:
		return errors.New("create asset transactions are not supported: assets come from the genesis")
	default:
		return fmt.Errorf("unsupported transaction type %T", tx)
	}
	for _, list := range outs {
		for i := range list {
			if err := list[i].Out.Verify(); err != nil {
				return fmt.Errorf("output %d: %w", i, err)
			}
		}
		if !avax.OutputsSorted(list) {
			return errors.New("outputs not sorted")
		}
	}
	for _, list := range ins {
		for i := range list {
			if err := list[i].In.Verify(); err != nil {
				return fmt.Errorf("input %d: %w", i, err)
			}
		}
		if !avax.InputsSortedUnique(list) {
			return errors.New("inputs not sorted and unique")
		}
	}
	if _, err := Flow(ctx.FeeAssetID, ctx.TxFee, ins, outs); err != nil {
		return err
	}
	if n := t.Unsigned.NumInputs(); len(t.Creds) != n {
		return fmt.Errorf("tx has %d credentials for %d inputs", len(t.Creds), n)
	}
	return nil
}

// Flow returns what the inputs give beyond the outputs, per asset (the
// burned amounts, the fee among them), after checking that the inputs
// cover the outputs and fee in fee asset feeAsset. An error matching
// ErrInsufficientFunds says which asset falls short.
func Flow(feeAsset ids.ID, fee uint64, ins [][]avax.TransferableInput, outs [][]avax.TransferableOutput) (map[ids.ID]uint64, error) {
	consumed := map[ids.ID]uint64{}
	produced := map[ids.ID]uint64{feeAsset: fee}
	add := func(m map[ids.ID]uint64, asset ids.ID, v uint64) error {
		if m[asset] > math.MaxUint64-v {
			return fmt.Errorf("amounts of asset %s overflow", asset)
		}
		m[asset] += v
		return nil
	}
	for _, list := range ins {
		for i := range list {
			if err := add(consumed, list[i].AssetID, list[i].In.Amt); err != nil {
				return nil, err
			}
		}
	}
	for _, list := range outs {
		for i := range list {
			if err := add(produced, list[i].AssetID, list[i].Out.Amt); err != nil {
				return nil, err
			}
		}
	}
	burned := map[ids.ID]uint64{}
	for asset, p := range produced {
		c := consumed[asset]
		if p > c {
			what := "outputs"
			if asset == feeAsset {
				what = fmt.Sprintf("outputs and the fee of %d", fee)
			}
			return nil, fmt.Errorf("%w: asset %s: %s need %d, inputs give %d", ErrInsufficientFunds, asset, what, p, c)
		}
	}
	produced[feeAsset] -= fee // what the outputs take: the rest is burned
	for asset, c := range consumed {
		if d := c - produced[asset]; d > 0 {
			burned[asset] = d
		}
	}
	return burned, nil
}
