package txs

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"unicode"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Limits of the structural checks, as avalanchego's.
const (
	maxMemoSize          = 256
	maxChainNameLen      = 128
	maxGenesisLen        = 1 << 20
	maxManagerAddressLen = 4096
	PercentDenominator   = 1_000_000 // delegation shares of 100%
	maxConvertValidators = 1 << 16
)

// Context is what a transaction's structure is checked against.
type Context struct {
	// NetworkID must be the transaction's.
	NetworkID uint32
	// ChainID is this chain's ID, which a transaction must name.
	ChainID ids.ID
	// AVAXAssetID is the only asset of the P-Chain.
	AVAXAssetID ids.ID
}

// PrimaryNetworkID is the ID of the primary network, the subnet every
// node validates: the zero ID, as in avalanchego.
var PrimaryNetworkID = ids.ID{}

// Verify checks what a transaction can be checked for on its own, as
// avalanchego's syntactic verifier does: network and chain, memo, valid
// and sorted AVAX outputs and inputs, the credentials, and each type's
// own fields. It does not check signatures, proofs of possession or
// anything that depends on the chain's state.
func Verify(t *Tx, ctx Context) error {
	b := t.Unsigned.Base()
	switch {
	case b.NetworkID != ctx.NetworkID:
		return fmt.Errorf("tx is for network %d, this is network %d", b.NetworkID, ctx.NetworkID)
	case b.BlockchainID != ctx.ChainID:
		return fmt.Errorf("tx is for chain %s, this chain is %s", b.BlockchainID, ctx.ChainID)
	case len(b.Memo) > maxMemoSize:
		return fmt.Errorf("memo of %d bytes, more than %d", len(b.Memo), maxMemoSize)
	}
	if err := verifyOutputs("output", b.Outs, ctx.AVAXAssetID); err != nil {
		return err
	}
	if err := verifyInputs("input", b.Ins, ctx.AVAXAssetID); err != nil {
		return err
	}
	if n := NumCredentials(t.Unsigned); len(t.Creds) != n {
		return fmt.Errorf("tx has %d credentials, it needs %d", len(t.Creds), n)
	}
	switch u := t.Unsigned.(type) {
	case *BaseTx:
		return nil
	case *ImportTx:
		if len(u.ImportedIns) == 0 {
			return errors.New("import tx has no imported inputs")
		}
		return verifyInputs("imported input", u.ImportedIns, ctx.AVAXAssetID)
	case *ExportTx:
		if len(u.ExportedOuts) == 0 {
			return errors.New("export tx has no exported outputs")
		}
		return verifyOutputs("exported output", u.ExportedOuts, ctx.AVAXAssetID)
	case *AddValidatorTx:
		return verifyStaker(ctx, u.Validator, u.StakeOuts, u.DelegationShares, u.RewardsOwner)
	case *AddPermissionlessValidatorTx:
		if u.Subnet != PrimaryNetworkID {
			return fmt.Errorf("subnet %s: validators of subnets are L1 validators (ConvertSubnetToL1Tx, RegisterL1ValidatorTx)", u.Subnet)
		}
		if u.Signer == nil {
			return errors.New("a primary-network validator needs a BLS key (the signer is empty)")
		}
		if err := verifyStaker(ctx, u.Validator, u.StakeOuts, u.DelegationShares, u.ValidatorRewardsOwner); err != nil {
			return err
		}
		if err := u.DelegatorRewardsOwner.Verify(); err != nil {
			return fmt.Errorf("delegator rewards owner: %w", err)
		}
		return nil
	case *AddDelegatorTx:
		return verifyStaker(ctx, u.Validator, u.StakeOuts, 0, u.RewardsOwner)
	case *AddPermissionlessDelegatorTx:
		if u.Subnet != PrimaryNetworkID {
			return fmt.Errorf("subnet %s: only the primary network takes delegators", u.Subnet)
		}
		return verifyStaker(ctx, u.Validator, u.StakeOuts, 0, u.RewardsOwner)
	case *CreateSubnetTx:
		if err := u.Owner.Verify(); err != nil {
			return fmt.Errorf("subnet owner: %w", err)
		}
		return nil
	case *CreateChainTx:
		return verifyCreateChain(u)
	case *ConvertSubnetToL1Tx:
		return verifyConvert(u)
	case *RegisterL1ValidatorTx, *SetL1ValidatorWeightTx:
		return nil
	case *IncreaseL1ValidatorBalanceTx:
		if u.Balance == 0 {
			return errors.New("balance to add is zero")
		}
		return nil
	case *DisableL1ValidatorTx:
		return u.DisableAuth.Verify()
	}
	return fmt.Errorf("unsupported transaction type %T", t.Unsigned)
}

// verifyInputs checks valid, sorted and unique AVAX inputs.
func verifyInputs(what string, ins []avax.TransferableInput, assetID ids.ID) error {
	for i := range ins {
		if ins[i].AssetID != assetID {
			return fmt.Errorf("%s %d: asset %s is not AVAX (%s), the P-Chain's only asset", what, i, ins[i].AssetID, assetID)
		}
		if err := ins[i].In.Verify(); err != nil {
			return fmt.Errorf("%s %d: %w", what, i, err)
		}
	}
	if !avax.InputsSortedUnique(ins) {
		return fmt.Errorf("%ss not sorted and unique", what)
	}
	return nil
}

// verifyOutputs checks valid, sorted AVAX outputs.
func verifyOutputs(what string, outs []avax.TransferableOutput, assetID ids.ID) error {
	for i := range outs {
		if outs[i].AssetID != assetID {
			return fmt.Errorf("%s %d: asset %s is not AVAX (%s), the P-Chain's only asset", what, i, outs[i].AssetID, assetID)
		}
		if err := outs[i].Out.Verify(); err != nil {
			return fmt.Errorf("%s %d: %w", what, i, err)
		}
	}
	if !avax.OutputsSorted(outs) {
		return fmt.Errorf("%s list not sorted", what)
	}
	return nil
}

// verifyStaker checks a validator's or delegator's own fields: a node, a
// weight, a period that ends after it starts, AVAX stake summing to the
// weight, delegation shares of at most 100% and a valid rewards owner.
func verifyStaker(ctx Context, v Validator, stake []avax.TransferableOutput, shares uint32, rewards avax.OutputOwners) error {
	switch {
	case v.NodeID.IsZero():
		return errors.New("node ID is empty")
	case v.Weight == 0:
		return errors.New("weight is zero")
	case v.End <= v.Start:
		return fmt.Errorf("period ends (%d) before it starts (%d)", v.End, v.Start)
	case len(stake) == 0:
		return errors.New("no stake")
	case shares > PercentDenominator:
		return fmt.Errorf("delegation shares %d are more than 100%% (%d)", shares, PercentDenominator)
	}
	if err := verifyOutputs("stake output", stake, ctx.AVAXAssetID); err != nil {
		return err
	}
	var sum uint64
	for i := range stake {
		if sum > math.MaxUint64-stake[i].Out.Amt {
			return errors.New("stake overflows")
		}
		sum += stake[i].Out.Amt
	}
	if sum != v.Weight {
		return fmt.Errorf("stake of %d is not the weight %d", sum, v.Weight)
	}
	if err := rewards.Verify(); err != nil {
		return fmt.Errorf("rewards owner: %w", err)
	}
	return nil
}

func verifyCreateChain(u *CreateChainTx) error {
	switch {
	case u.SubnetID == PrimaryNetworkID:
		return errors.New("a new chain cannot be validated by the primary network")
	case len(u.ChainName) > maxChainNameLen:
		return fmt.Errorf("chain name of %d characters, more than %d", len(u.ChainName), maxChainNameLen)
	case u.VMID == ids.ID{}:
		return errors.New("VM ID is empty")
	case len(u.GenesisData) > maxGenesisLen:
		return fmt.Errorf("genesis of %d bytes, more than %d", len(u.GenesisData), maxGenesisLen)
	}
	if !avax.SortedUnique(u.FxIDs, ids.ID.Compare) {
		return errors.New("feature extension IDs not sorted and unique")
	}
	for _, r := range u.ChainName {
		if r > unicode.MaxASCII || (!unicode.IsLetter(r) && !unicode.IsNumber(r) && r != ' ') {
			return fmt.Errorf("chain name %q: only ASCII letters, digits and spaces", u.ChainName)
		}
	}
	return u.SubnetAuth.Verify()
}

func verifyConvert(u *ConvertSubnetToL1Tx) error {
	switch {
	case u.Subnet == PrimaryNetworkID:
		return errors.New("the primary network cannot become an L1")
	case len(u.Address) > maxManagerAddressLen:
		return fmt.Errorf("manager address of %d bytes, more than %d", len(u.Address), maxManagerAddressLen)
	case len(u.Validators) == 0:
		return errors.New("a conversion needs at least one validator")
	case len(u.Validators) > maxConvertValidators:
		return fmt.Errorf("%d validators, more than %d", len(u.Validators), maxConvertValidators)
	}
	for i := range u.Validators {
		v := &u.Validators[i]
		if i > 0 && bytes.Compare(u.Validators[i-1].NodeID, v.NodeID) >= 0 {
			return errors.New("conversion validators not sorted and unique by node ID")
		}
		id, err := avax.NodeIDFromBytes(v.NodeID)
		switch {
		case err != nil:
			return fmt.Errorf("validator %d: %w", i, err)
		case id.IsZero():
			return fmt.Errorf("validator %d: node ID is empty", i)
		case v.Weight == 0:
			return fmt.Errorf("validator %d (%s): weight is zero", i, id)
		}
		if err := v.RemainingBalanceOwner.Verify(); err != nil {
			return fmt.Errorf("validator %d (%s): remaining balance owner: %w", i, id, err)
		}
		if err := v.DeactivationOwner.Verify(); err != nil {
			return fmt.Errorf("validator %d (%s): deactivation owner: %w", i, id, err)
		}
	}
	return u.SubnetAuth.Verify()
}
