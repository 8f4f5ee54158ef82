package warp

import (
	"errors"
	"fmt"
	"math"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Type IDs of the L1 validator messages, the payloads of addressed calls.
const (
	typeSubnetToL1Conversion    uint32 = 0
	typeRegisterL1Validator     uint32 = 1
	typeL1ValidatorRegistration uint32 = 2
	typeL1ValidatorWeight       uint32 = 3
)

// PChainOwner is who may spend an L1 validator's remaining balance or
// disable it: Threshold signatures of Addrs.
type PChainOwner struct {
	Threshold uint32
	Addrs     []avax.ShortID
}

// Pack packs the threshold and the addresses.
func (o *PChainOwner) Pack(p *avax.Packer) {
	p.Int(o.Threshold)
	p.ShortIDs(o.Addrs)
}

// UnpackPChainOwner reads what Pack wrote.
func UnpackPChainOwner(u *avax.Unpacker) PChainOwner {
	return PChainOwner{Threshold: u.Int(), Addrs: u.ShortIDs("owner addresses")}
}

// Owners returns the owner as output owners without a locktime.
func (o PChainOwner) Owners() avax.OutputOwners {
	return avax.OutputOwners{Threshold: o.Threshold, Addrs: o.Addrs}
}

// Verify checks the owner as secp256k1fx checks output owners.
func (o PChainOwner) Verify() error {
	owners := o.Owners()
	return owners.Verify()
}

// RegisterL1Validator is the validator manager's request to add a
// validator to an L1. Its validation ID is the SHA-256 of its bytes.
type RegisterL1Validator struct {
	SubnetID              ids.ID
	NodeID                []byte
	BLSPublicKey          [bls.PublicKeyLen]byte
	Expiry                uint64
	RemainingBalanceOwner PChainOwner
	DisableOwner          PChainOwner
	Weight                uint64
}

// Bytes returns the codec version, the type ID and the fields.
func (r *RegisterL1Validator) Bytes() []byte {
	p := newPayload(typeRegisterL1Validator)
	p.ID(r.SubnetID)
	p.VarBytes(r.NodeID)
	p.Fixed(r.BLSPublicKey[:])
	p.Long(r.Expiry)
	r.RemainingBalanceOwner.Pack(p)
	r.DisableOwner.Pack(p)
	p.Long(r.Weight)
	return p.Bytes()
}

// ValidationID is the ID of the validator it registers.
func (r *RegisterL1Validator) ValidationID() ids.ID { return hash(r.Bytes()) }

// Verify checks the message on its own: not the primary network, a
// weight, a node ID of 20 bytes that is not empty, valid owners.
func (r *RegisterL1Validator) Verify() error {
	switch {
	case r.SubnetID == ids.ID{}:
		return errors.New("register message: the primary network has no L1 validators")
	case r.Weight == 0:
		return errors.New("register message: weight is zero")
	case len(r.NodeID) != avax.NodeIDLen:
		return fmt.Errorf("register message: node ID of %d bytes, want %d", len(r.NodeID), avax.NodeIDLen)
	case [avax.NodeIDLen]byte(r.NodeID) == [avax.NodeIDLen]byte{}:
		return errors.New("register message: empty node ID")
	}
	if err := r.RemainingBalanceOwner.Verify(); err != nil {
		return fmt.Errorf("register message: remaining balance owner: %w", err)
	}
	if err := r.DisableOwner.Verify(); err != nil {
		return fmt.Errorf("register message: disable owner: %w", err)
	}
	return nil
}

// L1ValidatorWeight is the validator manager's request to set an L1
// validator's weight (0 removes it), with a nonce that only grows.
type L1ValidatorWeight struct {
	ValidationID ids.ID
	Nonce        uint64
	Weight       uint64
}

// Bytes returns the codec version, the type ID and the fields.
func (w *L1ValidatorWeight) Bytes() []byte {
	p := newPayload(typeL1ValidatorWeight)
	p.ID(w.ValidationID)
	p.Long(w.Nonce)
	p.Long(w.Weight)
	return p.Bytes()
}

// Verify checks that the last nonce is kept for removals.
func (w *L1ValidatorWeight) Verify() error {
	if w.Nonce == math.MaxUint64 && w.Weight != 0 {
		return errors.New("weight message: the largest nonce is reserved for removal")
	}
	return nil
}

// ParsePayload reads an L1 validator message: a *RegisterL1Validator or an
// *L1ValidatorWeight (the P-Chain reads no other).
func ParsePayload(b []byte) (any, error) {
	u := avax.NewUnpacker(b)
	u.Version()
	var out any
	switch t := u.TypeID(); {
	case u.Err() != nil:
	case t == typeRegisterL1Validator:
		r := &RegisterL1Validator{SubnetID: u.ID(), NodeID: u.VarBytes()}
		copy(r.BLSPublicKey[:], u.Fixed(bls.PublicKeyLen))
		r.Expiry = u.Long()
		r.RemainingBalanceOwner = UnpackPChainOwner(u)
		r.DisableOwner = UnpackPChainOwner(u)
		r.Weight = u.Long()
		out = r
	case t == typeL1ValidatorWeight:
		out = &L1ValidatorWeight{ValidationID: u.ID(), Nonce: u.Long(), Weight: u.Long()}
	case t == typeSubnetToL1Conversion || t == typeL1ValidatorRegistration:
		return nil, fmt.Errorf("L1 validator message type %d is one the P-Chain sends, not one it reads", t)
	default:
		return nil, fmt.Errorf("unknown L1 validator message type %d", t)
	}
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("L1 validator message: %w", err)
	}
	return out, nil
}

// ConversionValidator is an initial validator of an L1 as its conversion
// ID commits to it.
type ConversionValidator struct {
	NodeID       []byte
	BLSPublicKey [bls.PublicKeyLen]byte
	Weight       uint64
}

// ConversionID is the ID of a subnet's conversion to an L1: the SHA-256 of
// the codec bytes of the subnet, its manager's chain and address and its
// initial validators. The validator manager reads it from the P-Chain.
func ConversionID(subnetID, managerChain ids.ID, managerAddress []byte, vdrs []ConversionValidator) ids.ID {
	p := avax.NewPacker(nil)
	p.Version()
	p.ID(subnetID)
	p.ID(managerChain)
	p.VarBytes(managerAddress)
	p.Int(uint32(len(vdrs)))
	for _, v := range vdrs {
		p.VarBytes(v.NodeID)
		p.Fixed(v.BLSPublicKey[:])
		p.Long(v.Weight)
	}
	return hash(p.Bytes())
}
