package pvm

import (
	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/txjson"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// The JSON forms of transactions and blocks (getTx and getBlock with
// encoding json), in avalanchego's shapes.
type (
	txJSON         = txjson.Tx[credentialJSON]
	credentialJSON struct {
		Signatures []string `json:"signatures"`
	}
	ownerJSON     = pvmapi.TxOwner
	validatorJSON struct {
		NodeID avax.NodeID `json:"nodeID"`
		Start  uint64      `json:"start"`
		End    uint64      `json:"end"`
		Weight uint64      `json:"weight"`
	}
	authJSON struct {
		SignatureIndices []uint32 `json:"signatureIndices"`
	}
	pChainOwnerJSON struct {
		Threshold uint32   `json:"threshold"`
		Addresses []string `json:"addresses"`
	}
	addValidatorJSON struct {
		txjson.BaseTx
		Validator    validatorJSON   `json:"validator"`
		Stake        []txjson.Output `json:"stake"`
		RewardsOwner ownerJSON       `json:"rewardsOwner"`
		Shares       uint32          `json:"shares"`
	}
	addDelegatorJSON struct {
		txjson.BaseTx
		Validator    validatorJSON   `json:"validator"`
		Stake        []txjson.Output `json:"stake"`
		RewardsOwner ownerJSON       `json:"rewardsOwner"`
	}
	addPermissionlessValidatorJSON struct {
		txjson.BaseTx
		Validator              validatorJSON   `json:"validator"`
		SubnetID               ids.ID          `json:"subnetID"`
		Signer                 pvmapi.Signer   `json:"signer"`
		Stake                  []txjson.Output `json:"stake"`
		ValidationRewardsOwner ownerJSON       `json:"validationRewardsOwner"`
		DelegationRewardsOwner ownerJSON       `json:"delegationRewardsOwner"`
		Shares                 uint32          `json:"shares"`
	}
	addPermissionlessDelegatorJSON struct {
		txjson.BaseTx
		Validator    validatorJSON   `json:"validator"`
		SubnetID     ids.ID          `json:"subnetID"`
		Stake        []txjson.Output `json:"stake"`
		RewardsOwner ownerJSON       `json:"rewardsOwner"`
	}
	createSubnetJSON struct {
		txjson.BaseTx
		pvmapi.CreateSubnetTx
	}
	createChainJSON struct {
		txjson.BaseTx
		pvmapi.CreateChainTx
		SubnetAuth authJSON `json:"subnetAuthorization"`
	}
	convertValidatorJSON struct {
		NodeID                txjson.HexBytes `json:"nodeID"`
		Weight                uint64          `json:"weight"`
		Balance               uint64          `json:"balance"`
		Signer                pvmapi.Signer   `json:"signer"`
		RemainingBalanceOwner pChainOwnerJSON `json:"remainingBalanceOwner"`
		DeactivationOwner     pChainOwnerJSON `json:"deactivationOwner"`
	}
	convertJSON struct {
		txjson.BaseTx
		pvmapi.ConvertSubnetToL1Tx
		Validators []convertValidatorJSON `json:"validators"`
		SubnetAuth authJSON               `json:"subnetAuthorization"`
	}
	registerJSON struct {
		txjson.BaseTx
		Balance           uint64          `json:"balance"`
		ProofOfPossession [96]byte        `json:"proofOfPossession"`
		Message           txjson.HexBytes `json:"message"`
	}
	setWeightJSON struct {
		txjson.BaseTx
		Message txjson.HexBytes `json:"message"`
	}
	increaseBalanceJSON struct {
		txjson.BaseTx
		ValidationID ids.ID `json:"validationID"`
		Balance      uint64 `json:"balance"`
	}
	disableJSON struct {
		txjson.BaseTx
		ValidationID ids.ID   `json:"validationID"`
		DisableAuth  authJSON `json:"disableAuthorization"`
	}
	blockJSON struct {
		Time     uint64   `json:"time"`
		ParentID ids.ID   `json:"parentID"`
		Height   uint64   `json:"height"`
		ID       ids.ID   `json:"id"`
		Txs      []txJSON `json:"txs"`
	}
)

func (vm *VM) txJSON(t *txs.Tx) txJSON {
	out := txJSON{ID: t.ID(), Credentials: make([]credentialJSON, len(t.Creds))}
	for i, c := range t.Creds {
		out.Credentials[i] = credentialJSON{Signatures: txjson.Signatures(c)}
	}
	base := vm.baseJSON(t.Unsigned.Base())
	switch u := t.Unsigned.(type) {
	case *txs.ImportTx:
		out.Unsigned = txjson.ImportTx{BaseTx: base, SourceChain: u.SourceChain, ImportedInputs: txjson.Inputs(u.ImportedIns)}
	case *txs.ExportTx:
		out.Unsigned = txjson.ExportTx{BaseTx: base, DestinationChain: u.DestinationChain, ExportedOutputs: txjson.Outputs(u.ExportedOuts, vm.FormatAddress)}
	case *txs.AddValidatorTx:
		out.Unsigned = addValidatorJSON{BaseTx: base, Validator: validatorJSONOf(u.Validator), Stake: txjson.Outputs(u.StakeOuts, vm.FormatAddress),
			RewardsOwner: vm.ownerJSON(u.RewardsOwner), Shares: u.DelegationShares}
	case *txs.AddDelegatorTx:
		out.Unsigned = addDelegatorJSON{BaseTx: base, Validator: validatorJSONOf(u.Validator), Stake: txjson.Outputs(u.StakeOuts, vm.FormatAddress),
			RewardsOwner: vm.ownerJSON(u.RewardsOwner)}
	case *txs.AddPermissionlessValidatorTx:
		out.Unsigned = addPermissionlessValidatorJSON{BaseTx: base, Validator: validatorJSONOf(u.Validator), SubnetID: u.Subnet,
			Signer: signerJSONOf(u.Signer), Stake: txjson.Outputs(u.StakeOuts, vm.FormatAddress), ValidationRewardsOwner: vm.ownerJSON(u.ValidatorRewardsOwner),
			DelegationRewardsOwner: vm.ownerJSON(u.DelegatorRewardsOwner), Shares: u.DelegationShares}
	case *txs.AddPermissionlessDelegatorTx:
		out.Unsigned = addPermissionlessDelegatorJSON{BaseTx: base, Validator: validatorJSONOf(u.Validator), SubnetID: u.Subnet,
			Stake: txjson.Outputs(u.StakeOuts, vm.FormatAddress), RewardsOwner: vm.ownerJSON(u.RewardsOwner)}
	case *txs.CreateSubnetTx:
		out.Unsigned = createSubnetJSON{BaseTx: base, CreateSubnetTx: pvmapi.CreateSubnetTx{Owner: vm.ownerJSON(u.Owner)}}
	case *txs.CreateChainTx:
		fx := u.FxIDs
		if fx == nil {
			fx = []ids.ID{}
		}
		out.Unsigned = createChainJSON{BaseTx: base, CreateChainTx: pvmapi.CreateChainTx{SubnetID: u.SubnetID, ChainName: u.ChainName,
			VMID: u.VMID, FxIDs: fx, GenesisData: u.GenesisData}, SubnetAuth: authJSONOf(u.SubnetAuth)}
	case *txs.ConvertSubnetToL1Tx:
		vdrs := make([]convertValidatorJSON, len(u.Validators))
		for i, v := range u.Validators {
			vdrs[i] = convertValidatorJSON{NodeID: v.NodeID, Weight: v.Weight, Balance: v.Balance, Signer: signerJSONOf(&v.Signer),
				RemainingBalanceOwner: pChainOwnerJSONOf(v.RemainingBalanceOwner), DeactivationOwner: pChainOwnerJSONOf(v.DeactivationOwner)}
		}
		out.Unsigned = convertJSON{BaseTx: base, ConvertSubnetToL1Tx: pvmapi.ConvertSubnetToL1Tx{SubnetID: u.Subnet, ChainID: u.ChainID,
			Address: u.Address}, Validators: vdrs, SubnetAuth: authJSONOf(u.SubnetAuth)}
	case *txs.RegisterL1ValidatorTx:
		out.Unsigned = registerJSON{BaseTx: base, Balance: u.Balance, ProofOfPossession: u.ProofOfPossession, Message: u.Message}
	case *txs.SetL1ValidatorWeightTx:
		out.Unsigned = setWeightJSON{BaseTx: base, Message: u.Message}
	case *txs.IncreaseL1ValidatorBalanceTx:
		out.Unsigned = increaseBalanceJSON{BaseTx: base, ValidationID: u.ValidationID, Balance: u.Balance}
	case *txs.DisableL1ValidatorTx:
		out.Unsigned = disableJSON{BaseTx: base, ValidationID: u.ValidationID, DisableAuth: authJSONOf(u.DisableAuth)}
	default:
		out.Unsigned = base
	}
	return out
}

func (vm *VM) baseJSON(b *txs.BaseTx) txjson.BaseTx {
	return txjson.Base((*avax.BaseTx)(b), vm.FormatAddress)
}

func (vm *VM) ownerJSON(o avax.OutputOwners) ownerJSON {
	return ownerJSON{Addresses: vm.FormatAddresses(o.Addrs), Locktime: o.Locktime, Threshold: o.Threshold}
}

func validatorJSONOf(v txs.Validator) validatorJSON {
	return validatorJSON{NodeID: v.NodeID, Start: v.Start, End: v.End, Weight: v.Weight}
}

func signerJSONOf(s *txs.ProofOfPossession) pvmapi.Signer {
	if s == nil {
		return pvmapi.Signer{}
	}
	return pvmapi.Signer{PublicKey: s.PublicKey[:], ProofOfPossession: s.Signature[:]}
}

func authJSONOf(a txs.Auth) authJSON {
	idx := a.SigIndices
	if idx == nil {
		idx = []uint32{}
	}
	return authJSON{SignatureIndices: idx}
}

// pChainOwnerJSONOf writes an L1 validator's owner as avalanchego's
// transaction JSON does: CB58 short IDs.
func pChainOwnerJSONOf(o warp.PChainOwner) pChainOwnerJSON {
	addrs := make([]string, len(o.Addrs))
	for i, a := range o.Addrs {
		addrs[i] = a.String()
	}
	return pChainOwnerJSON{Threshold: o.Threshold, Addresses: addrs}
}

func (vm *VM) blockJSON(b *blocks.Block) blockJSON {
	out := blockJSON{Time: b.Time, ParentID: b.Parent, Height: b.Height, ID: b.ID(), Txs: make([]txJSON, len(b.Txs))}
	for i, t := range b.Txs {
		out.Txs[i] = vm.txJSON(t)
	}
	return out
}

// apiOwner is an owner as the API answers write it.
func (vm *VM) apiOwner(o avax.OutputOwners) *pvmapi.Owner {
	return &pvmapi.Owner{Locktime: jsonrpc.Uint64(o.Locktime), Threshold: jsonrpc.Uint64(o.Threshold), Addresses: vm.FormatAddresses(o.Addrs)}
}
