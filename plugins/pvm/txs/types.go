package txs

import (
	"cmp"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
)

// Validator is a staker's node, period (unix seconds) and weight.
type Validator struct {
	NodeID avax.NodeID
	Start  uint64
	End    uint64
	Weight uint64
}

func (v *Validator) pack(p *avax.Packer) {
	p.Fixed(v.NodeID[:])
	p.Long(v.Start)
	p.Long(v.End)
	p.Long(v.Weight)
}

func unpackValidator(u *avax.Unpacker) Validator {
	var v Validator
	copy(v.NodeID[:], u.Fixed(avax.NodeIDLen))
	v.Start, v.End, v.Weight = u.Long(), u.Long(), u.Long()
	return v
}

// packOwner packs output owners as a reward or subnet owner: the type ID
// of secp256k1fx's OutputOwners, then its fields.
func packOwner(p *avax.Packer, o *avax.OutputOwners) {
	p.Int(typeOutputOwners)
	o.PackFields(p)
}

func unpackOwner(u *avax.Unpacker) avax.OutputOwners {
	if !u.ExpectTypeID(typeOutputOwners, "owner", "secp256k1fx output owners") {
		return avax.OutputOwners{}
	}
	return avax.UnpackOwnerFields(u)
}

// Auth authorizes a change with an owner's signatures (secp256k1fx's
// Input): which of the owner's addresses sign, in the transaction's last
// credential.
type Auth struct {
	SigIndices []uint32
}

func (a *Auth) pack(p *avax.Packer) {
	p.Int(typeInput)
	p.Ints(a.SigIndices)
}

func unpackAuth(u *avax.Unpacker) Auth {
	if !u.ExpectTypeID(typeInput, "authorization", "secp256k1fx inputs") {
		return Auth{}
	}
	return Auth{SigIndices: u.Ints("signature indices")}
}

// Verify checks sorted, unique signature indices.
func (a *Auth) Verify() error {
	if !avax.SortedUnique(a.SigIndices, cmp.Compare) {
		return fmt.Errorf("authorization signature indices not sorted and unique")
	}
	return nil
}

// ProofOfPossession is a BLS public key (compressed) and the proof that
// its holder has the secret key: the key's signature of itself.
type ProofOfPossession struct {
	PublicKey [bls.PublicKeyLen]byte
	Signature [bls.SignatureLen]byte
}

func (s *ProofOfPossession) pack(p *avax.Packer) {
	p.Fixed(s.PublicKey[:])
	p.Fixed(s.Signature[:])
}

func unpackPoP(u *avax.Unpacker) ProofOfPossession {
	var s ProofOfPossession
	copy(s.PublicKey[:], u.Fixed(bls.PublicKeyLen))
	copy(s.Signature[:], u.Fixed(bls.SignatureLen))
	return s
}

// Verify checks the proof and returns the public key.
func (s *ProofOfPossession) Verify() (*bls.PublicKey, error) {
	pk, err := bls.PublicKeyFromBytes(s.PublicKey[:])
	if err != nil {
		return nil, fmt.Errorf("proof of possession: %w", err)
	}
	sig, err := bls.SignatureFromBytes(s.Signature[:])
	if err != nil {
		return nil, fmt.Errorf("proof of possession: %w", err)
	}
	if !bls.VerifyProofOfPossession(pk, sig) {
		return nil, fmt.Errorf("invalid proof of possession of BLS key 0x%x", s.PublicKey)
	}
	return pk, nil
}

// NewProofOfPossession returns sk's proof of possession.
func NewProofOfPossession(sk *bls.SecretKey) ProofOfPossession {
	return ProofOfPossession{PublicKey: sk.PublicKey().Bytes(), Signature: sk.SignProofOfPossession().Bytes()}
}

// packSigner packs a validator's signer: the empty signer's type ID, or
// the proof of possession's with the proof.
func packSigner(p *avax.Packer, s *ProofOfPossession) {
	if s == nil {
		p.Int(typeEmptySigner)
		return
	}
	p.Int(typeProofOfPossession)
	s.pack(p)
}

func unpackSigner(u *avax.Unpacker) *ProofOfPossession {
	switch t := u.TypeID(); {
	case u.Err() != nil:
		return nil
	case t == typeEmptySigner:
		return nil
	case t == typeProofOfPossession:
		s := unpackPoP(u)
		return &s
	default:
		u.Failf("signer type ID %d is not a signer (empty %d, proof of possession %d)", t, typeEmptySigner, typeProofOfPossession)
		return nil
	}
}
