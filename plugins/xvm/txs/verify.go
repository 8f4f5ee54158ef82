package txs

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Context is what a transaction's structure is checked against.
type Context struct {
	// NetworkID and ChainID must match the transaction's.
	NetworkID uint32
	ChainID   ids.ID
	// FeeAssetID is the asset fees are paid in; TxFee the fee of every
	// transaction but a CreateAssetTx, which pays CreateAssetTxFee.
	FeeAssetID       ids.ID
	TxFee            uint64
	CreateAssetTxFee uint64
}

// Fee returns the fee t pays.
func (c Context) Fee(t Unsigned) uint64 {
	if _, ok := t.(*CreateAssetTx); ok {
		return c.CreateAssetTxFee
	}
	return c.TxFee
}

// ErrInsufficientFunds is matched by a transaction whose outputs and fee
// exceed its inputs in some asset.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Verify checks what a transaction can be checked for on its own, as
// avalanchego's syntactic verifier does: network and chain, memo size,
// valid and sorted outputs, valid, sorted and unique inputs, inputs that
// cover the outputs and the fee in every asset, and one credential per
// input. Whatever the inputs give beyond the outputs is burned, the fee
// at least. A CreateAssetTx's asset and initial states are checked too
// (verifyAsset).
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
		if err := verifyAsset(tx); err != nil {
			return err
		}
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
	if _, err := Flow(ctx.FeeAssetID, ctx.Fee(t.Unsigned), ins, outs); err != nil {
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

// The limits of a new asset's description, avalanchego's.
const (
	maxNameLen      = 128
	maxSymbolLen    = 4
	maxDenomination = 32
)

// Feature extension indexes of an initial state, in avalanchego's X-Chain
// order: only the secp256k1fx is taken.
const (
	fxSecp256k1 = 0
	fxNFT       = 1
	fxProperty  = 2
)

// verifyAsset checks a new asset as avalanchego's syntactic verifier
// does: a name of 1 to 128 ASCII letters, digits and inner spaces, a
// symbol of 1 to 4 ASCII capitals, a denomination of at most 32, and at
// least one initial state, sorted by feature extension with none twice,
// each of the secp256k1fx with valid outputs sorted by their bytes.
func verifyAsset(t *CreateAssetTx) error {
	switch {
	case t.Name == "":
		return errors.New("asset name is empty (1 to 128 characters)")
	case len(t.Name) > maxNameLen:
		return fmt.Errorf("asset name of %d bytes, more than %d", len(t.Name), maxNameLen)
	case t.Symbol == "":
		return errors.New("asset symbol is empty (1 to 4 capital letters)")
	case len(t.Symbol) > maxSymbolLen:
		return fmt.Errorf("asset symbol %q is longer than %d", t.Symbol, maxSymbolLen)
	case len(t.States) == 0:
		return errors.New("asset has no initial state (it must support at least one feature extension)")
	case t.Denomination > maxDenomination:
		return fmt.Errorf("asset denomination %d is more than %d", t.Denomination, maxDenomination)
	case strings.TrimSpace(t.Name) != t.Name:
		return fmt.Errorf("asset name %q starts or ends with white space", t.Name)
	}
	for _, r := range t.Name {
		if !isASCIILetter(r) && !isASCIIDigit(r) && r != ' ' {
			return fmt.Errorf("asset name %q: only ASCII letters, digits and spaces are allowed", t.Name)
		}
	}
	for _, r := range t.Symbol {
		if r < 'A' || r > 'Z' {
			return fmt.Errorf("asset symbol %q: only ASCII capital letters are allowed", t.Symbol)
		}
	}
	for i, s := range t.States {
		switch s.FxIndex {
		case fxSecp256k1:
		case fxNFT, fxProperty:
			return fmt.Errorf("initial state %d: feature extension %d (NFT or property) is not supported: only the secp256k1fx, 0", i, s.FxIndex)
		default:
			return fmt.Errorf("initial state %d: unknown feature extension %d", i, s.FxIndex)
		}
		for j := range s.Outs {
			o := &s.Outs[j]
			var err error
			if o.Mint != nil {
				err = o.Mint.OutputOwners.Verify()
			} else {
				err = o.Out.Verify()
			}
			if err != nil {
				return fmt.Errorf("initial state %d output %d: %w", i, j, err)
			}
			if j > 0 && bytes.Compare(s.Outs[j-1].bytes(), o.bytes()) > 0 {
				return fmt.Errorf("initial state %d: outputs not sorted", i)
			}
		}
		if i > 0 && t.States[i-1].FxIndex >= s.FxIndex {
			return errors.New("initial states not sorted and unique")
		}
	}
	return nil
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func isASCIIDigit(r rune) bool  { return r >= '0' && r <= '9' }
