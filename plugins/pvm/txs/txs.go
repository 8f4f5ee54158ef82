// Package txs holds the P-Chain's transactions in avalanchego's codec
// (docs/pchain.md), built on the X-Chain's primitives (avax):
// transfers, imports and exports with the other chains of the node,
// primary-network validators and delegators, subnets and their
// chains, and L1 validators (conversion, registration, balance, weight,
// disabling), signed with secp256k1 keys as avalanchego signs them, with
// their structural checks.
package txs

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Type IDs of the P-Chain's codec: the five Apricot blocks come first, the
// four Banff blocks after the Banff types.
const (
	typeInput                        uint32 = 10
	typeOutputOwners                 uint32 = 11
	typeAddValidatorTx               uint32 = 12
	typeAddSubnetValidatorTx         uint32 = 13
	typeAddDelegatorTx               uint32 = 14
	typeCreateChainTx                uint32 = 15
	typeCreateSubnetTx               uint32 = 16
	typeImportTx                     uint32 = 17
	typeExportTx                     uint32 = 18
	typeAdvanceTimeTx                uint32 = 19
	typeRewardValidatorTx            uint32 = 20
	typeStakeableLockIn              uint32 = 21
	typeStakeableLockOut             uint32 = 22
	typeRemoveSubnetValidatorTx      uint32 = 23
	typeTransformSubnetTx            uint32 = 24
	typeAddPermissionlessValidatorTx uint32 = 25
	typeAddPermissionlessDelegatorTx uint32 = 26
	typeEmptySigner                  uint32 = 27
	typeProofOfPossession            uint32 = 28
	typeTransferSubnetOwnershipTx    uint32 = 33
	typeBaseTx                       uint32 = 34
	typeConvertSubnetToL1Tx          uint32 = 35
	typeRegisterL1ValidatorTx        uint32 = 36
	typeSetL1ValidatorWeightTx       uint32 = 37
	typeIncreaseL1ValidatorBalanceTx uint32 = 38
	typeDisableL1ValidatorTx         uint32 = 39
)

// unsupported names the codec's transaction types chainhost does not take.
var unsupported = map[uint32]string{
	typeAddSubnetValidatorTx:      "AddSubnetValidatorTx (subnets get validators by becoming L1s)",
	typeAdvanceTimeTx:             "AdvanceTimeTx (the chain's clock moves on its own)",
	typeRewardValidatorTx:         "RewardValidatorTx (stakers leave at their end time on their own)",
	typeRemoveSubnetValidatorTx:   "RemoveSubnetValidatorTx",
	typeTransformSubnetTx:         "TransformSubnetTx",
	typeTransferSubnetOwnershipTx: "TransferSubnetOwnershipTx",
}

// Unsigned is an unsigned transaction.
type Unsigned interface {
	signedtx.Decodable
	// Base returns the common fields.
	Base() *BaseTx
}

// authorized is a transaction whose last credential signs an
// authorization (of a subnet's owner, or of an L1 validator's disable
// owner) besides one credential per input.
type authorized interface {
	Unsigned
	Authorization() *Auth
}

// NumCredentials is how many credentials t needs: one per input (the
// imported inputs of an ImportTx after the inputs), and one more for its
// authorization.
func NumCredentials(t Unsigned) int {
	n := len(t.Base().Ins)
	if imp, ok := t.(*ImportTx); ok {
		n += len(imp.ImportedIns)
	}
	if _, ok := t.(authorized); ok {
		n++
	}
	return n
}

// BaseTx is a transfer of AVAX on the chain, and the fields every
// transaction starts with.
type BaseTx avax.BaseTx

// TypeID is typeBaseTx.
func (*BaseTx) TypeID() uint32 { return typeBaseTx }

// Base returns t.
func (t *BaseTx) Base() *BaseTx { return t }

// Pack packs the fields after the type ID.
func (t *BaseTx) Pack(p *avax.Packer) { (*avax.BaseTx)(t).Pack(p) }

// Unpack reads what Pack wrote.
func (t *BaseTx) Unpack(u *avax.Unpacker) { (*avax.BaseTx)(t).Unpack(u) }

// ImportTx spends, besides its inputs, UTXOs that SourceChain (the X- or
// C-Chain) exported to the P-Chain through shared memory.
type ImportTx struct {
	BaseTx
	avax.Import
}

// TypeID is typeImportTx.
func (*ImportTx) TypeID() uint32 { return typeImportTx }

// Pack packs the fields after the type ID.
func (t *ImportTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Import.Pack(p)
}

// Unpack reads what Pack wrote.
func (t *ImportTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Import.Unpack(u)
}

// ExportTx sends ExportedOuts to DestinationChain (the X- or C-Chain)
// through shared memory; they are numbered after the outputs.
type ExportTx struct {
	BaseTx
	avax.Export
}

// TypeID is typeExportTx.
func (*ExportTx) TypeID() uint32 { return typeExportTx }

// Pack packs the fields after the type ID.
func (t *ExportTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Export.Pack(p)
}

// Unpack reads what Pack wrote.
func (t *ExportTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Export.Unpack(u)
}

// AddValidatorTx adds a primary-network validator: its node, period and
// weight, the stake that makes the weight (locked until the end) and who
// gets the rewards. avalanchego refuses it since Durango; chainhost takes
// it beside AddPermissionlessValidatorTx.
type AddValidatorTx struct {
	BaseTx
	Validator        Validator
	StakeOuts        []avax.TransferableOutput
	RewardsOwner     avax.OutputOwners
	DelegationShares uint32
}

// TypeID is typeAddValidatorTx.
func (*AddValidatorTx) TypeID() uint32 { return typeAddValidatorTx }

// Pack packs the fields after the type ID.
func (t *AddValidatorTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Validator.pack(p)
	avax.PackOutputs(p, t.StakeOuts)
	packOwner(p, &t.RewardsOwner)
	p.Int(t.DelegationShares)
}

// Unpack reads what Pack wrote.
func (t *AddValidatorTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Validator = unpackValidator(u)
	t.StakeOuts = avax.UnpackOutputs(u, "stake outputs")
	t.RewardsOwner = unpackOwner(u)
	t.DelegationShares = u.Int()
}

// AddDelegatorTx stakes on a primary-network validator.
type AddDelegatorTx struct {
	BaseTx
	Validator    Validator
	StakeOuts    []avax.TransferableOutput
	RewardsOwner avax.OutputOwners
}

// TypeID is typeAddDelegatorTx.
func (*AddDelegatorTx) TypeID() uint32 { return typeAddDelegatorTx }

// Pack packs the fields after the type ID.
func (t *AddDelegatorTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Validator.pack(p)
	avax.PackOutputs(p, t.StakeOuts)
	packOwner(p, &t.RewardsOwner)
}

// Unpack reads what Pack wrote.
func (t *AddDelegatorTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Validator = unpackValidator(u)
	t.StakeOuts = avax.UnpackOutputs(u, "stake outputs")
	t.RewardsOwner = unpackOwner(u)
}

// AddPermissionlessValidatorTx adds a validator of a subnet (chainhost:
// the primary network only) with a BLS key; Signer nil is the empty
// signer.
type AddPermissionlessValidatorTx struct {
	BaseTx
	Validator             Validator
	Subnet                ids.ID
	Signer                *ProofOfPossession
	StakeOuts             []avax.TransferableOutput
	ValidatorRewardsOwner avax.OutputOwners
	DelegatorRewardsOwner avax.OutputOwners
	DelegationShares      uint32
}

// TypeID is typeAddPermissionlessValidatorTx.
func (*AddPermissionlessValidatorTx) TypeID() uint32 { return typeAddPermissionlessValidatorTx }

// Pack packs the fields after the type ID.
func (t *AddPermissionlessValidatorTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Validator.pack(p)
	p.ID(t.Subnet)
	packSigner(p, t.Signer)
	avax.PackOutputs(p, t.StakeOuts)
	packOwner(p, &t.ValidatorRewardsOwner)
	packOwner(p, &t.DelegatorRewardsOwner)
	p.Int(t.DelegationShares)
}

// Unpack reads what Pack wrote.
func (t *AddPermissionlessValidatorTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Validator = unpackValidator(u)
	t.Subnet = u.ID()
	t.Signer = unpackSigner(u)
	t.StakeOuts = avax.UnpackOutputs(u, "stake outputs")
	t.ValidatorRewardsOwner = unpackOwner(u)
	t.DelegatorRewardsOwner = unpackOwner(u)
	t.DelegationShares = u.Int()
}

// AddPermissionlessDelegatorTx stakes on a validator of a subnet
// (chainhost: the primary network only).
type AddPermissionlessDelegatorTx struct {
	BaseTx
	Validator    Validator
	Subnet       ids.ID
	StakeOuts    []avax.TransferableOutput
	RewardsOwner avax.OutputOwners
}

// TypeID is typeAddPermissionlessDelegatorTx.
func (*AddPermissionlessDelegatorTx) TypeID() uint32 { return typeAddPermissionlessDelegatorTx }

// Pack packs the fields after the type ID.
func (t *AddPermissionlessDelegatorTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	t.Validator.pack(p)
	p.ID(t.Subnet)
	avax.PackOutputs(p, t.StakeOuts)
	packOwner(p, &t.RewardsOwner)
}

// Unpack reads what Pack wrote.
func (t *AddPermissionlessDelegatorTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Validator = unpackValidator(u)
	t.Subnet = u.ID()
	t.StakeOuts = avax.UnpackOutputs(u, "stake outputs")
	t.RewardsOwner = unpackOwner(u)
}

// CreateSubnetTx creates a subnet owned by Owner; its ID is the
// transaction's.
type CreateSubnetTx struct {
	BaseTx
	Owner avax.OutputOwners
}

// TypeID is typeCreateSubnetTx.
func (*CreateSubnetTx) TypeID() uint32 { return typeCreateSubnetTx }

// Pack packs the fields after the type ID.
func (t *CreateSubnetTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	packOwner(p, &t.Owner)
}

// Unpack reads what Pack wrote.
func (t *CreateSubnetTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Owner = unpackOwner(u)
}

// CreateChainTx creates a blockchain of a subnet, authorized by the
// subnet's owner; its ID is the transaction's. chainhost records it (an
// L1's validator manager lives on such a chain) and runs nothing.
type CreateChainTx struct {
	BaseTx
	SubnetID    ids.ID
	ChainName   string
	VMID        ids.ID
	FxIDs       []ids.ID
	GenesisData []byte
	SubnetAuth  Auth
}

// TypeID is typeCreateChainTx.
func (*CreateChainTx) TypeID() uint32 { return typeCreateChainTx }

// Authorization is the subnet owner's.
func (t *CreateChainTx) Authorization() *Auth { return &t.SubnetAuth }

// Pack packs the fields after the type ID.
func (t *CreateChainTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	p.ID(t.SubnetID)
	p.Str(t.ChainName)
	p.ID(t.VMID)
	p.Int(uint32(len(t.FxIDs)))
	for _, id := range t.FxIDs {
		p.ID(id)
	}
	p.VarBytes(t.GenesisData)
	t.SubnetAuth.pack(p)
}

// Unpack reads what Pack wrote.
func (t *CreateChainTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.SubnetID = u.ID()
	t.ChainName = u.Str()
	t.VMID = u.ID()
	n := u.SliceLen(ids.Len, "feature extension IDs")
	t.FxIDs = make([]ids.ID, n)
	for i := range t.FxIDs {
		t.FxIDs[i] = u.ID()
	}
	t.GenesisData = u.VarBytes()
	t.SubnetAuth = unpackAuth(u)
}

// ConvertValidator is an initial validator of an L1: its node, weight,
// balance for the continuous fee, BLS key and the owners of what is left
// of its balance and of its disabling.
type ConvertValidator struct {
	NodeID                []byte
	Weight                uint64
	Balance               uint64
	Signer                ProofOfPossession
	RemainingBalanceOwner warp.PChainOwner
	DeactivationOwner     warp.PChainOwner
}

// ConvertSubnetToL1Tx makes a subnet an L1 whose validators are managed by
// a contract (Address) on a chain (ChainID), with its first validators.
type ConvertSubnetToL1Tx struct {
	BaseTx
	Subnet     ids.ID
	ChainID    ids.ID
	Address    []byte
	Validators []ConvertValidator
	SubnetAuth Auth
}

// TypeID is typeConvertSubnetToL1Tx.
func (*ConvertSubnetToL1Tx) TypeID() uint32 { return typeConvertSubnetToL1Tx }

// Authorization is the subnet owner's.
func (t *ConvertSubnetToL1Tx) Authorization() *Auth { return &t.SubnetAuth }

// Pack packs the fields after the type ID.
func (t *ConvertSubnetToL1Tx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	p.ID(t.Subnet)
	p.ID(t.ChainID)
	p.VarBytes(t.Address)
	p.Int(uint32(len(t.Validators)))
	for i := range t.Validators {
		v := &t.Validators[i]
		p.VarBytes(v.NodeID)
		p.Long(v.Weight)
		p.Long(v.Balance)
		v.Signer.pack(p)
		v.RemainingBalanceOwner.Pack(p)
		v.DeactivationOwner.Pack(p)
	}
	t.SubnetAuth.pack(p)
}

// Unpack reads what Pack wrote.
func (t *ConvertSubnetToL1Tx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Subnet = u.ID()
	t.ChainID = u.ID()
	t.Address = u.VarBytes()
	n := u.SliceLen(4+8+8+bls.PublicKeyLen+bls.SignatureLen+16, "conversion validators")
	t.Validators = make([]ConvertValidator, n)
	for i := range t.Validators {
		v := &t.Validators[i]
		v.NodeID = u.VarBytes()
		v.Weight = u.Long()
		v.Balance = u.Long()
		v.Signer = unpackPoP(u)
		v.RemainingBalanceOwner = warp.UnpackPChainOwner(u)
		v.DeactivationOwner = warp.UnpackPChainOwner(u)
	}
	t.SubnetAuth = unpackAuth(u)
}

// RegisterL1ValidatorTx adds an L1 validator that its validator manager
// asked for in a signed Warp message, with a balance for its fee.
type RegisterL1ValidatorTx struct {
	BaseTx
	Balance           uint64
	ProofOfPossession [bls.SignatureLen]byte
	Message           []byte
}

// TypeID is typeRegisterL1ValidatorTx.
func (*RegisterL1ValidatorTx) TypeID() uint32 { return typeRegisterL1ValidatorTx }

// Pack packs the fields after the type ID.
func (t *RegisterL1ValidatorTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	p.Long(t.Balance)
	p.Fixed(t.ProofOfPossession[:])
	p.VarBytes(t.Message)
}

// Unpack reads what Pack wrote.
func (t *RegisterL1ValidatorTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Balance = u.Long()
	copy(t.ProofOfPossession[:], u.Fixed(bls.SignatureLen))
	t.Message = u.VarBytes()
}

// SetL1ValidatorWeightTx sets an L1 validator's weight as its validator
// manager asked in a signed Warp message; weight 0 removes it.
type SetL1ValidatorWeightTx struct {
	BaseTx
	Message []byte
}

// TypeID is typeSetL1ValidatorWeightTx.
func (*SetL1ValidatorWeightTx) TypeID() uint32 { return typeSetL1ValidatorWeightTx }

// Pack packs the fields after the type ID.
func (t *SetL1ValidatorWeightTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	p.VarBytes(t.Message)
}

// Unpack reads what Pack wrote.
func (t *SetL1ValidatorWeightTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.Message = u.VarBytes()
}

// IncreaseL1ValidatorBalanceTx adds to an L1 validator's balance (and
// makes an inactive one active); anyone may pay.
type IncreaseL1ValidatorBalanceTx struct {
	BaseTx
	ValidationID ids.ID
	Balance      uint64
}

// TypeID is typeIncreaseL1ValidatorBalanceTx.
func (*IncreaseL1ValidatorBalanceTx) TypeID() uint32 { return typeIncreaseL1ValidatorBalanceTx }

// Pack packs the fields after the type ID.
func (t *IncreaseL1ValidatorBalanceTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	p.ID(t.ValidationID)
	p.Long(t.Balance)
}

// Unpack reads what Pack wrote.
func (t *IncreaseL1ValidatorBalanceTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.ValidationID = u.ID()
	t.Balance = u.Long()
}

// DisableL1ValidatorTx makes an L1 validator inactive and refunds what is
// left of its balance, authorized by its deactivation owner.
type DisableL1ValidatorTx struct {
	BaseTx
	ValidationID ids.ID
	DisableAuth  Auth
}

// TypeID is typeDisableL1ValidatorTx.
func (*DisableL1ValidatorTx) TypeID() uint32 { return typeDisableL1ValidatorTx }

// Authorization is the deactivation owner's.
func (t *DisableL1ValidatorTx) Authorization() *Auth { return &t.DisableAuth }

// Pack packs the fields after the type ID.
func (t *DisableL1ValidatorTx) Pack(p *avax.Packer) {
	t.BaseTx.Pack(p)
	p.ID(t.ValidationID)
	t.DisableAuth.pack(p)
}

// Unpack reads what Pack wrote.
func (t *DisableL1ValidatorTx) Unpack(u *avax.Unpacker) {
	t.BaseTx.Unpack(u)
	t.ValidationID = u.ID()
	t.DisableAuth = unpackAuth(u)
}

// ConvertValidationID is the validation ID of an L1's initial validator
// at index i of its conversion: the SHA-256 of the subnet ID followed by
// the index (4 bytes, big-endian).
func ConvertValidationID(subnetID ids.ID, i uint32) ids.ID {
	return sha256.Sum256(binary.BigEndian.AppendUint32(subnetID[:], i))
}

// Tx is a signed transaction: the unsigned transaction and its
// credentials.
type Tx = signedtx.Tx[Unsigned]

// New returns the signed transaction of unsigned and creds, with its bytes
// and ID.
func New(unsigned Unsigned, creds []avax.Credential) *Tx { return signedtx.New(unsigned, creds) }

// Sign signs unsigned with one list of keys per credential (one per input,
// then the authorization's), each key signing for one signature index.
func Sign(unsigned Unsigned, keys [][]*avax.PrivateKey) *Tx { return signedtx.Sign(unsigned, keys) }

// codec reads the P-Chain's signed transactions.
var codec = signedtx.NewCodec("tx", signedtx.Types[Unsigned]{
	Noun: "transaction",
	New: map[uint32]func() Unsigned{
		typeBaseTx:                       func() Unsigned { return &BaseTx{} },
		typeAddValidatorTx:               func() Unsigned { return &AddValidatorTx{} },
		typeAddDelegatorTx:               func() Unsigned { return &AddDelegatorTx{} },
		typeAddPermissionlessValidatorTx: func() Unsigned { return &AddPermissionlessValidatorTx{} },
		typeAddPermissionlessDelegatorTx: func() Unsigned { return &AddPermissionlessDelegatorTx{} },
		typeImportTx:                     func() Unsigned { return &ImportTx{} },
		typeExportTx:                     func() Unsigned { return &ExportTx{} },
		typeCreateSubnetTx:               func() Unsigned { return &CreateSubnetTx{} },
		typeCreateChainTx:                func() Unsigned { return &CreateChainTx{} },
		typeConvertSubnetToL1Tx:          func() Unsigned { return &ConvertSubnetToL1Tx{} },
		typeRegisterL1ValidatorTx:        func() Unsigned { return &RegisterL1ValidatorTx{} },
		typeSetL1ValidatorWeightTx:       func() Unsigned { return &SetL1ValidatorWeightTx{} },
		typeIncreaseL1ValidatorBalanceTx: func() Unsigned { return &IncreaseL1ValidatorBalanceTx{} },
		typeDisableL1ValidatorTx:         func() Unsigned { return &DisableL1ValidatorTx{} },
	},
	Refused: unsupported,
}.Unpack)

// Parse reads a signed transaction, with nothing after it.
func Parse(b []byte) (*Tx, error) { return codec.Parse(b) }

// UnpackInBlock reads a transaction as a block holds it.
func UnpackInBlock(u *avax.Unpacker) *Tx { return codec.UnpackInBlock(u) }
