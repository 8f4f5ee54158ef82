package txs

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/ids"
)

// nodeIDPrefix starts a node ID's text.
const nodeIDPrefix = "NodeID-"

// NodeID names a node: 20 bytes, written "NodeID-<cb58>".
type NodeID [warp.NodeIDLen]byte

// String returns "NodeID-<cb58>".
func (n NodeID) String() string { return nodeIDPrefix + ids.EncodeCB58(n[:]) }

// IsZero reports whether every byte is 0.
func (n NodeID) IsZero() bool { return n == NodeID{} }

// Compare orders node IDs by their bytes.
func (n NodeID) Compare(o NodeID) int { return bytes.Compare(n[:], o[:]) }

// MarshalText writes the "NodeID-" form.
func (n NodeID) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// UnmarshalText reads the "NodeID-" form.
func (n *NodeID) UnmarshalText(b []byte) error {
	v, err := ParseNodeID(string(b))
	if err != nil {
		return err
	}
	*n = v
	return nil
}

// ParseNodeID reads "NodeID-<cb58>".
func ParseNodeID(s string) (NodeID, error) {
	rest, ok := strings.CutPrefix(s, nodeIDPrefix)
	if !ok {
		return NodeID{}, fmt.Errorf("node ID %q does not start with %q", s, nodeIDPrefix)
	}
	b, err := ids.DecodeCB58(rest)
	if err != nil {
		return NodeID{}, fmt.Errorf("node ID %q: %w", s, err)
	}
	return NodeIDFromBytes(b)
}

// NodeIDFromBytes returns the node ID of 20 bytes.
func NodeIDFromBytes(b []byte) (NodeID, error) {
	if len(b) != warp.NodeIDLen {
		return NodeID{}, fmt.Errorf("node ID of %d bytes, want %d", len(b), warp.NodeIDLen)
	}
	return NodeID(b), nil
}

// Validator is a staker's node, period (unix seconds) and weight.
type Validator struct {
	NodeID NodeID
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
	copy(v.NodeID[:], u.Fixed(warp.NodeIDLen))
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

// Bytes returns the node ID's 20 bytes.
func (n NodeID) Bytes() []byte { return append([]byte{}, n[:]...) }
