package pvm

import (
	"encoding/hex"

	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// secpFxID is the ID of the secp256k1fx feature extension, which
// avalanchego's JSON names beside each output and input.
var secpFxID = mustName("secp256k1fx")

func mustName(n string) ids.ID {
	id, err := ids.FromName(n)
	if err != nil {
		panic(err)
	}
	return id
}

// hexBytes is avalanchego's JSONByteSlice: "0x" and hex digits.
type hexBytes []byte

func (b hexBytes) MarshalText() ([]byte, error) { return []byte("0x" + hex.EncodeToString(b)), nil }

// The JSON forms of transactions and blocks (getTx and getBlock with
// encoding json), in avalanchego's shapes.
type (
	txJSON struct {
		Unsigned    any              `json:"unsignedTx"`
		Credentials []credentialJSON `json:"credentials"`
		ID          ids.ID           `json:"id"`
	}
	credentialJSON struct {
		Signatures []string `json:"signatures"`
	}
	baseTxJSON struct {
		NetworkID    uint32       `json:"networkID"`
		BlockchainID ids.ID       `json:"blockchainID"`
		Outputs      []outputJSON `json:"outputs"`
		Inputs       []inputJSON  `json:"inputs"`
		Memo         hexBytes     `json:"memo"`
	}
	outputJSON struct {
		AssetID ids.ID       `json:"assetID"`
		FxID    ids.ID       `json:"fxID"`
		Output  ownedOutJSON `json:"output"`
	}
	ownedOutJSON struct {
		Addresses []string `json:"addresses"`
		Amount    uint64   `json:"amount"`
		Locktime  uint64   `json:"locktime"`
		Threshold uint32   `json:"threshold"`
	}
	ownerJSON struct {
		Addresses []string `json:"addresses"`
		Locktime  uint64   `json:"locktime"`
		Threshold uint32   `json:"threshold"`
	}
	inputJSON struct {
		TxID        ids.ID        `json:"txID"`
		OutputIndex uint32        `json:"outputIndex"`
		AssetID     ids.ID        `json:"assetID"`
		FxID        ids.ID        `json:"fxID"`
		Input       transferInput `json:"input"`
	}
	transferInput struct {
		Amount           uint64   `json:"amount"`
		SignatureIndices []uint32 `json:"signatureIndices"`
	}
	validatorJSON struct {
		NodeID txs.NodeID `json:"nodeID"`
		Start  uint64     `json:"start"`
		End    uint64     `json:"end"`
		Weight uint64     `json:"weight"`
	}
	signerJSON struct {
		PublicKey         hexBytes `json:"publicKey,omitempty"`
		ProofOfPossession hexBytes `json:"proofOfPossession,omitempty"`
	}
	authJSON struct {
		SignatureIndices []uint32 `json:"signatureIndices"`
	}
	pChainOwnerJSON struct {
		Threshold uint32   `json:"threshold"`
		Addresses []string `json:"addresses"`
	}
	addValidatorJSON struct {
		baseTxJSON
		Validator    validatorJSON `json:"validator"`
		Stake        []outputJSON  `json:"stake"`
		RewardsOwner ownerJSON     `json:"rewardsOwner"`
		Shares       uint32        `json:"shares"`
	}
	addDelegatorJSON struct {
		baseTxJSON
		Validator    validatorJSON `json:"validator"`
		Stake        []outputJSON  `json:"stake"`
		RewardsOwner ownerJSON     `json:"rewardsOwner"`
	}
	addPermissionlessValidatorJSON struct {
		baseTxJSON
		Validator              validatorJSON `json:"validator"`
		SubnetID               ids.ID        `json:"subnetID"`
		Signer                 signerJSON    `json:"signer"`
		Stake                  []outputJSON  `json:"stake"`
		ValidationRewardsOwner ownerJSON     `json:"validationRewardsOwner"`
		DelegationRewardsOwner ownerJSON     `json:"delegationRewardsOwner"`
		Shares                 uint32        `json:"shares"`
	}
	addPermissionlessDelegatorJSON struct {
		baseTxJSON
		Validator    validatorJSON `json:"validator"`
		SubnetID     ids.ID        `json:"subnetID"`
		Stake        []outputJSON  `json:"stake"`
		RewardsOwner ownerJSON     `json:"rewardsOwner"`
	}
	createSubnetJSON struct {
		baseTxJSON
		Owner ownerJSON `json:"owner"`
	}
	createChainJSON struct {
		baseTxJSON
		SubnetID    ids.ID   `json:"subnetID"`
		ChainName   string   `json:"chainName"`
		VMID        ids.ID   `json:"vmID"`
		FxIDs       []ids.ID `json:"fxIDs"`
		GenesisData []byte   `json:"genesisData"`
		SubnetAuth  authJSON `json:"subnetAuthorization"`
	}
	convertValidatorJSON struct {
		NodeID                hexBytes        `json:"nodeID"`
		Weight                uint64          `json:"weight"`
		Balance               uint64          `json:"balance"`
		Signer                signerJSON      `json:"signer"`
		RemainingBalanceOwner pChainOwnerJSON `json:"remainingBalanceOwner"`
		DeactivationOwner     pChainOwnerJSON `json:"deactivationOwner"`
	}
	convertJSON struct {
		baseTxJSON
		SubnetID   ids.ID                 `json:"subnetID"`
		ChainID    ids.ID                 `json:"chainID"`
		Address    hexBytes               `json:"address"`
		Validators []convertValidatorJSON `json:"validators"`
		SubnetAuth authJSON               `json:"subnetAuthorization"`
	}
	registerJSON struct {
		baseTxJSON
		Balance           uint64   `json:"balance"`
		ProofOfPossession [96]byte `json:"proofOfPossession"`
		Message           hexBytes `json:"message"`
	}
	setWeightJSON struct {
		baseTxJSON
		Message hexBytes `json:"message"`
	}
	increaseBalanceJSON struct {
		baseTxJSON
		ValidationID ids.ID `json:"validationID"`
		Balance      uint64 `json:"balance"`
	}
	disableJSON struct {
		baseTxJSON
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
		sigs := make([]string, len(c.Sigs))
		for j := range c.Sigs {
			sigs[j] = "0x" + hex.EncodeToString(c.Sigs[j][:])
		}
		out.Credentials[i] = credentialJSON{Signatures: sigs}
	}
	base := vm.baseJSON(t.Unsigned.Base())
	switch u := t.Unsigned.(type) {
	case *txs.AddValidatorTx:
		out.Unsigned = addValidatorJSON{baseTxJSON: base, Validator: validatorJSONOf(u.Validator), Stake: vm.outputsJSON(u.StakeOuts),
			RewardsOwner: vm.ownerJSON(u.RewardsOwner), Shares: u.DelegationShares}
	case *txs.AddDelegatorTx:
		out.Unsigned = addDelegatorJSON{baseTxJSON: base, Validator: validatorJSONOf(u.Validator), Stake: vm.outputsJSON(u.StakeOuts),
			RewardsOwner: vm.ownerJSON(u.RewardsOwner)}
	case *txs.AddPermissionlessValidatorTx:
		out.Unsigned = addPermissionlessValidatorJSON{baseTxJSON: base, Validator: validatorJSONOf(u.Validator), SubnetID: u.Subnet,
			Signer: signerJSONOf(u.Signer), Stake: vm.outputsJSON(u.StakeOuts), ValidationRewardsOwner: vm.ownerJSON(u.ValidatorRewardsOwner),
			DelegationRewardsOwner: vm.ownerJSON(u.DelegatorRewardsOwner), Shares: u.DelegationShares}
	case *txs.AddPermissionlessDelegatorTx:
		out.Unsigned = addPermissionlessDelegatorJSON{baseTxJSON: base, Validator: validatorJSONOf(u.Validator), SubnetID: u.Subnet,
			Stake: vm.outputsJSON(u.StakeOuts), RewardsOwner: vm.ownerJSON(u.RewardsOwner)}
	case *txs.CreateSubnetTx:
		out.Unsigned = createSubnetJSON{baseTxJSON: base, Owner: vm.ownerJSON(u.Owner)}
	case *txs.CreateChainTx:
		fx := u.FxIDs
		if fx == nil {
			fx = []ids.ID{}
		}
		out.Unsigned = createChainJSON{baseTxJSON: base, SubnetID: u.SubnetID, ChainName: u.ChainName, VMID: u.VMID,
			FxIDs: fx, GenesisData: u.GenesisData, SubnetAuth: authJSONOf(u.SubnetAuth)}
	case *txs.ConvertSubnetToL1Tx:
		vdrs := make([]convertValidatorJSON, len(u.Validators))
		for i, v := range u.Validators {
			vdrs[i] = convertValidatorJSON{NodeID: v.NodeID, Weight: v.Weight, Balance: v.Balance, Signer: signerJSONOf(&v.Signer),
				RemainingBalanceOwner: pChainOwnerJSONOf(v.RemainingBalanceOwner), DeactivationOwner: pChainOwnerJSONOf(v.DeactivationOwner)}
		}
		out.Unsigned = convertJSON{baseTxJSON: base, SubnetID: u.Subnet, ChainID: u.ChainID, Address: u.Address,
			Validators: vdrs, SubnetAuth: authJSONOf(u.SubnetAuth)}
	case *txs.RegisterL1ValidatorTx:
		out.Unsigned = registerJSON{baseTxJSON: base, Balance: u.Balance, ProofOfPossession: u.ProofOfPossession, Message: u.Message}
	case *txs.SetL1ValidatorWeightTx:
		out.Unsigned = setWeightJSON{baseTxJSON: base, Message: u.Message}
	case *txs.IncreaseL1ValidatorBalanceTx:
		out.Unsigned = increaseBalanceJSON{baseTxJSON: base, ValidationID: u.ValidationID, Balance: u.Balance}
	case *txs.DisableL1ValidatorTx:
		out.Unsigned = disableJSON{baseTxJSON: base, ValidationID: u.ValidationID, DisableAuth: authJSONOf(u.DisableAuth)}
	default:
		out.Unsigned = base
	}
	return out
}

func (vm *VM) baseJSON(b *txs.BaseTx) baseTxJSON {
	ins := make([]inputJSON, len(b.Ins))
	for i, in := range b.Ins {
		idx := in.In.SigIndices
		if idx == nil {
			idx = []uint32{}
		}
		ins[i] = inputJSON{TxID: in.TxID, OutputIndex: in.OutputIndex, AssetID: in.AssetID, FxID: secpFxID,
			Input: transferInput{Amount: in.In.Amt, SignatureIndices: idx}}
	}
	return baseTxJSON{NetworkID: b.NetworkID, BlockchainID: b.BlockchainID, Outputs: vm.outputsJSON(b.Outs), Inputs: ins, Memo: b.Memo}
}

func (vm *VM) outputsJSON(outs []avax.TransferableOutput) []outputJSON {
	list := make([]outputJSON, len(outs))
	for i := range outs {
		o := &outs[i].Out
		list[i] = outputJSON{AssetID: outs[i].AssetID, FxID: secpFxID, Output: ownedOutJSON{
			Addresses: vm.formatAddresses(o.Addrs), Amount: o.Amt, Locktime: o.Locktime, Threshold: o.Threshold}}
	}
	return list
}

func (vm *VM) ownerJSON(o avax.OutputOwners) ownerJSON {
	return ownerJSON{Addresses: vm.formatAddresses(o.Addrs), Locktime: o.Locktime, Threshold: o.Threshold}
}

func validatorJSONOf(v txs.Validator) validatorJSON {
	return validatorJSON{NodeID: v.NodeID, Start: v.Start, End: v.End, Weight: v.Weight}
}

func signerJSONOf(s *txs.ProofOfPossession) signerJSON {
	if s == nil {
		return signerJSON{}
	}
	return signerJSON{PublicKey: s.PublicKey[:], ProofOfPossession: s.Signature[:]}
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

// formatAddresses writes addresses as this chain shows them:
// "<alias>-<hrp>1...".
func (vm *VM) formatAddresses(list []avax.ShortID) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = vm.formatAddress(a)
	}
	return out
}

func (vm *VM) formatAddress(a avax.ShortID) string {
	s, err := avax.FormatAddress(vm.env.Name, vm.hrp, a)
	if err != nil {
		return a.String()
	}
	return s
}

// apiOwner is an owner in the API's answers (avalanchego's platform API
// Owner): its numbers as strings.
type apiOwner struct {
	Locktime  jsonrpc.Uint64 `json:"locktime"`
	Threshold jsonrpc.Uint64 `json:"threshold"`
	Addresses []string       `json:"addresses"`
}

func (vm *VM) apiOwner(o avax.OutputOwners) *apiOwner {
	return &apiOwner{Locktime: jsonrpc.Uint64(o.Locktime), Threshold: jsonrpc.Uint64(o.Threshold), Addresses: vm.formatAddresses(o.Addrs)}
}
