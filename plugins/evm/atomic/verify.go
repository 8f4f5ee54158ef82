package atomic

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Gas of atomic transactions, as coreth counts it since Apricot Phase 5:
// one per byte of the unsigned transaction, costPerSignature per
// signature, and intrinsicGas per transaction. A fee is the gas times a
// base fee (DynamicFee).
const (
	txBytesGas       uint64 = 1
	costPerSignature uint64 = 1000
	intrinsicGas     uint64 = 10_000
	// EVMOutputGas is the gas one more EVM output adds to an import.
	EVMOutputGas = (common.AddressLength + 8 + ids.Len) * txBytesGas
	// EVMInputGas is the gas one more EVM input adds to an export.
	EVMInputGas = (common.AddressLength+8+ids.Len+8)*txBytesGas + costPerSignature
)

// Context is what a transaction is checked against.
type Context struct {
	// NetworkID and ChainID must be the transaction's.
	NetworkID uint32
	ChainID   ids.ID
	// AVAXAssetID is the only asset atomic transactions move.
	AVAXAssetID ids.ID
}

// ErrInsufficientFunds is matched by a transaction whose inputs do not
// cover its outputs and fee.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Verify checks what a transaction can be checked for on its own, as
// coreth does (Banff rules): network and chain, at least one input and
// output, valid amounts, AVAX only, inputs and outputs sorted and unique,
// inputs that cover the outputs and fee (nAVAX), and one credential per
// input. Whether its peer chain exists, its UTXOs and signatures, and the
// balances it debits are the VM's to check.
func Verify(t *Tx, ctx Context, fee uint64) error {
	var network uint32
	var chain ids.ID
	switch tx := t.Unsigned.(type) {
	case *ImportTx:
		network, chain = tx.NetworkID, tx.BlockchainID
		if err := verifyImport(tx, ctx); err != nil {
			return err
		}
	case *ExportTx:
		network, chain = tx.NetworkID, tx.BlockchainID
		if err := verifyExport(tx, ctx); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unsupported atomic transaction type %T", tx)
	}
	switch {
	case network != ctx.NetworkID:
		return fmt.Errorf("tx is for network %d, this is network %d", network, ctx.NetworkID)
	case chain != ctx.ChainID:
		return fmt.Errorf("tx is for chain %s, this is chain %s", chain, ctx.ChainID)
	}
	if n := numInputs(t); len(t.Creds) != n {
		return fmt.Errorf("tx has %d credentials for %d inputs", len(t.Creds), n)
	}
	in, out, err := amounts(t)
	if err != nil {
		return err
	}
	if out > math.MaxUint64-fee || in < out+fee {
		return fmt.Errorf("%w: inputs give %d nAVAX, outputs take %d and the fee is %d", ErrInsufficientFunds, in, out, fee)
	}
	return nil
}

func verifyImport(tx *ImportTx, ctx Context) error {
	switch {
	case len(tx.ImportedIns) == 0:
		return errors.New("import tx has no imported inputs")
	case len(tx.Outs) == 0:
		return errors.New("import tx has no EVM outputs")
	case tx.SourceChain == ctx.ChainID:
		return errors.New("import tx's source chain is this chain")
	}
	for i, o := range tx.Outs {
		if err := verifyEVMAmount(ctx, "output", i, o.Amount, o.AssetID); err != nil {
			return err
		}
	}
	for i := range tx.ImportedIns {
		in := &tx.ImportedIns[i]
		if err := in.In.Verify(); err != nil {
			return fmt.Errorf("imported input %d: %w", i, err)
		}
		if err := onlyAVAX(ctx, "imported input", i, in.AssetID); err != nil {
			return err
		}
	}
	if !avax.InputsSortedUnique(tx.ImportedIns) {
		return errors.New("imported inputs not sorted and unique")
	}
	if !avax.SortedUnique(tx.Outs, EVMOutput.Compare) {
		return errors.New("EVM outputs not sorted and unique")
	}
	return nil
}

func verifyExport(tx *ExportTx, ctx Context) error {
	switch {
	case len(tx.ExportedOuts) == 0:
		return errors.New("export tx has no exported outputs")
	case len(tx.Ins) == 0:
		return errors.New("export tx has no EVM inputs")
	case tx.DestinationChain == ctx.ChainID:
		return errors.New("export tx's destination chain is this chain")
	}
	for i, in := range tx.Ins {
		if err := verifyEVMAmount(ctx, "input", i, in.Amount, in.AssetID); err != nil {
			return err
		}
	}
	for i := range tx.ExportedOuts {
		o := &tx.ExportedOuts[i]
		if err := o.Out.Verify(); err != nil {
			return fmt.Errorf("exported output %d: %w", i, err)
		}
		if err := onlyAVAX(ctx, "exported output", i, o.AssetID); err != nil {
			return err
		}
	}
	if !avax.OutputsSorted(tx.ExportedOuts) {
		return errors.New("exported outputs not sorted")
	}
	if !avax.SortedUnique(tx.Ins, EVMInput.Compare) {
		return errors.New("EVM inputs not sorted and unique")
	}
	return nil
}

// verifyEVMAmount checks the amount of an EVM input or output (what, at
// index i): a value, of AVAX.
func verifyEVMAmount(ctx Context, what string, i int, amount uint64, asset ids.ID) error {
	if amount == 0 {
		return fmt.Errorf("%s %d has no value", what, i)
	}
	return onlyAVAX(ctx, what, i, asset)
}

// onlyAVAX checks that what, at index i, is of AVAX, the only asset that
// moves between chains.
func onlyAVAX(ctx Context, what string, i int, asset ids.ID) error {
	if asset != ctx.AVAXAssetID {
		return fmt.Errorf("%s %d is of asset %s: only AVAX (%s) moves between chains", what, i, asset, ctx.AVAXAssetID)
	}
	return nil
}

// numInputs is the number of inputs that need a credential.
func numInputs(t *Tx) int {
	switch tx := t.Unsigned.(type) {
	case *ImportTx:
		return len(tx.ImportedIns)
	case *ExportTx:
		return len(tx.Ins)
	}
	return 0
}

// amounts returns what the inputs give and the outputs take, in nAVAX.
func amounts(t *Tx) (in, out uint64, err error) {
	add := func(sum *uint64, v uint64) {
		if *sum > math.MaxUint64-v {
			err = errors.New("amounts overflow")
		}
		*sum += v
	}
	switch tx := t.Unsigned.(type) {
	case *ImportTx:
		for i := range tx.ImportedIns {
			add(&in, tx.ImportedIns[i].In.Amt)
		}
		for _, o := range tx.Outs {
			add(&out, o.Amount)
		}
	case *ExportTx:
		for _, i := range tx.Ins {
			add(&in, i.Amount)
		}
		for i := range tx.ExportedOuts {
			add(&out, tx.ExportedOuts[i].Out.Amt)
		}
	}
	return in, out, err
}

// Burned returns what the transaction burns: its inputs less its outputs,
// in nAVAX (the fee it pays).
func Burned(t *Tx) (uint64, error) {
	in, out, err := amounts(t)
	if err != nil {
		return 0, err
	}
	if in < out {
		return 0, fmt.Errorf("%w: inputs give %d nAVAX, outputs take %d", ErrInsufficientFunds, in, out)
	}
	return in - out, nil
}

// GasUsed returns the transaction's gas as coreth counts it (Apricot
// Phase 5): its unsigned bytes, its signatures and the intrinsic gas.
func GasUsed(t *Tx) uint64 {
	gas := uint64(len(t.UnsignedBytes()))*txBytesGas + intrinsicGas
	switch tx := t.Unsigned.(type) {
	case *ImportTx:
		for i := range tx.ImportedIns {
			gas += uint64(len(tx.ImportedIns[i].In.SigIndices)) * costPerSignature
		}
	case *ExportTx:
		gas += uint64(len(tx.Ins)) * costPerSignature
	}
	return gas
}

// DynamicFee returns coreth's fee of gas at baseFee (wei per gas) in
// nAVAX, rounded up: gas × baseFee / X2CRate.
func DynamicFee(gas uint64, baseFee *big.Int) (uint64, error) {
	fee := new(big.Int).SetUint64(gas)
	fee.Mul(fee, baseFee)
	fee.Add(fee, big.NewInt(X2CRate-1))
	fee.Div(fee, big.NewInt(X2CRate))
	if !fee.IsUint64() {
		return 0, fmt.Errorf("fee of %d gas at %s wei overflows", gas, baseFee)
	}
	return fee.Uint64(), nil
}

// VerifyExportSigners checks that each input of an export carries one
// signature, by the key of the input's address, over the transaction.
func VerifyExportSigners(t *Tx) error {
	tx, ok := t.Unsigned.(*ExportTx)
	if !ok {
		return fmt.Errorf("not an export tx: %T", t.Unsigned)
	}
	hash := sha256.Sum256(t.UnsignedBytes())
	for i, in := range tx.Ins {
		cred := t.Creds[i]
		if len(cred.Sigs) != 1 {
			return fmt.Errorf("input %d: its credential has %d signatures, want 1", i, len(cred.Sigs))
		}
		signer, err := evmSigner(hash[:], cred.Sigs[0])
		if err != nil {
			return fmt.Errorf("input %d: %w", i, err)
		}
		if signer != in.Address {
			return fmt.Errorf("input %d: signed by %s, not by the account %s it debits", i, signer, in.Address)
		}
	}
	return nil
}

// evmSigner returns the EVM address of the key that made sig over hash. A
// signature whose s is in the upper half of the curve order is refused, as
// avalanchego refuses it.
func evmSigner(hash []byte, sig [avax.SignatureLen]byte) (common.Address, error) {
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(sig[64], r, s, true) {
		return common.Address{}, errors.New("malformed signature (r, s out of range, s in the upper half, or recovery ID not 0 or 1)")
	}
	pub, err := crypto.SigToPub(hash, sig[:])
	if err != nil {
		return common.Address{}, fmt.Errorf("recover the signer: %w", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}
