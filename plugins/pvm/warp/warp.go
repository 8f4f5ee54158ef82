// Package warp holds Avalanche Warp messages as the P-Chain reads them
// (docs/pchain.md): the unsigned message (network, source chain, payload),
// the bit-set BLS signature of a validator set, the addressed-call payload
// and the L1 validator messages it carries (RegisterL1Validator,
// L1ValidatorWeight), each in avalanchego's codec bytes, and the check
// that enough of a validator set's weight signed a message.
package warp

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
	"github.com/chainhost/chainhost/sdk/ids"
)

// maxMessageSize is the largest Warp message read, in bytes.
const maxMessageSize = 256 << 10

// Quorum is the share of a validator set's weight that must sign a message
// (quorumNumerator / quorumDenominator), as on avalanchego's P-Chain.
const (
	quorumNumerator   = 67
	quorumDenominator = 100
)

// typeBitSetSignature is the bit-set signature's type ID in the Warp codec.
const typeBitSetSignature uint32 = 0

// UnsignedMessage is what a Warp message's signers sign: its bytes (with
// the codec version) are the signed message.
type UnsignedMessage struct {
	NetworkID     uint32
	SourceChainID ids.ID
	Payload       []byte
}

func (m *UnsignedMessage) pack(p *avax.Packer) {
	p.Int(m.NetworkID)
	p.ID(m.SourceChainID)
	p.VarBytes(m.Payload)
}

// Bytes returns the codec version and the fields.
func (m *UnsignedMessage) Bytes() []byte {
	p := avax.NewPacker(nil)
	p.Version()
	m.pack(p)
	return p.Bytes()
}

// Message is a signed Warp message: Signers marks, by their position in
// the source chain's canonical validator set, which validators signed;
// Signature is their aggregate signature of the unsigned message.
type Message struct {
	UnsignedMessage
	Signers   []byte
	Signature [bls.SignatureLen]byte
}

// Bytes returns the message's bytes.
func (m *Message) Bytes() []byte {
	p := avax.NewPacker(nil)
	p.Version()
	m.UnsignedMessage.pack(p)
	p.Int(typeBitSetSignature)
	p.VarBytes(m.Signers)
	p.Fixed(m.Signature[:])
	return p.Bytes()
}

// ParseMessage reads a signed message.
func ParseMessage(b []byte) (*Message, error) {
	if len(b) > maxMessageSize {
		return nil, fmt.Errorf("warp message: %d bytes, more than %d", len(b), maxMessageSize)
	}
	u := avax.NewUnpacker(b)
	u.Version()
	var m Message
	m.NetworkID = u.Int()
	m.SourceChainID = u.ID()
	m.Payload = u.VarBytes()
	if t := u.TypeID(); u.Err() == nil && t != typeBitSetSignature {
		return nil, fmt.Errorf("warp message: signature type ID %d, want %d (bit-set signature)", t, typeBitSetSignature)
	}
	m.Signers = u.VarBytes()
	copy(m.Signature[:], u.Fixed(bls.SignatureLen))
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("warp message: %w", err)
	}
	return &m, nil
}

// typeAddressedCall is the addressed call's type ID in the payload codec.
const typeAddressedCall uint32 = 1

// AddressedCall is a Warp payload: a call from an address of the source
// chain (the L1's validator manager contract) with a payload of its own.
type AddressedCall struct {
	SourceAddress []byte
	Payload       []byte
}

// newPayload returns a packer of a payload: the codec version, then its
// type ID.
func newPayload(typeID uint32) *avax.Packer {
	p := avax.NewPacker(nil)
	p.Version()
	p.Int(typeID)
	return p
}

// Bytes returns the codec version, the type ID and the fields.
func (c *AddressedCall) Bytes() []byte {
	p := newPayload(typeAddressedCall)
	p.VarBytes(c.SourceAddress)
	p.VarBytes(c.Payload)
	return p.Bytes()
}

// ParseAddressedCall reads an addressed-call payload.
func ParseAddressedCall(b []byte) (*AddressedCall, error) {
	u := avax.NewUnpacker(b)
	u.Version()
	if t := u.TypeID(); u.Err() == nil && t != typeAddressedCall {
		return nil, fmt.Errorf("warp payload: type ID %d, want %d (an addressed call)", t, typeAddressedCall)
	}
	c := &AddressedCall{SourceAddress: u.VarBytes(), Payload: u.VarBytes()}
	if err := u.Done(); err != nil {
		return nil, fmt.Errorf("warp payload: %w", err)
	}
	return c, nil
}

// Validator is a member of a validator set: its BLS key (nil for one that
// cannot sign, such as an inactive L1 validator) and weight.
type Validator struct {
	PublicKey *bls.PublicKey
	Weight    uint64
}

// ValidatorSet is a validator set in Warp's canonical order: the
// validators that can sign, merged by public key and sorted by its
// uncompressed bytes, and the total weight of all of them.
type ValidatorSet struct {
	Signers     []Validator
	TotalWeight uint64
}

// NewValidatorSet returns the canonical set of vs.
func NewValidatorSet(vs []Validator) (ValidatorSet, error) {
	var set ValidatorSet
	byKey := map[[bls.UncompressedPublicKey]byte]int{}
	for _, v := range vs {
		if set.TotalWeight+v.Weight < set.TotalWeight {
			return ValidatorSet{}, errors.New("warp: validator weights overflow")
		}
		set.TotalWeight += v.Weight
		if v.PublicKey == nil {
			continue
		}
		k := v.PublicKey.UncompressedBytes()
		if i, ok := byKey[k]; ok {
			set.Signers[i].Weight += v.Weight
			continue
		}
		byKey[k] = len(set.Signers)
		set.Signers = append(set.Signers, v)
	}
	slices.SortFunc(set.Signers, func(a, b Validator) int { return bls.ComparePublicKeys(a.PublicKey, b.PublicKey) })
	return set, nil
}

// Errors of Verify.
var (
	ErrWrongNetwork       = errors.New("warp message is for another network")
	ErrBadSigners         = errors.New("warp signers bit set is invalid")
	ErrInsufficientWeight = errors.New("warp signers hold too little weight")
	ErrBadSignature       = errors.New("warp signature is invalid")
)

// Verify checks that the message is for networkID and that signers holding
// at least the quorum of set's total weight signed it.
func (m *Message) Verify(networkID uint32, set ValidatorSet) error {
	if m.NetworkID != networkID {
		return fmt.Errorf("%w: %d, this is network %d", ErrWrongNetwork, m.NetworkID, networkID)
	}
	bits := new(big.Int).SetBytes(m.Signers)
	if len(bits.Bytes()) != len(m.Signers) {
		return fmt.Errorf("%w: leading zero bytes", ErrBadSigners)
	}
	if bits.BitLen() > len(set.Signers) {
		return fmt.Errorf("%w: it names validator %d of a set of %d", ErrBadSigners, bits.BitLen()-1, len(set.Signers))
	}
	var (
		keys   []*bls.PublicKey
		weight uint64
	)
	for i, v := range set.Signers {
		if bits.Bit(i) == 1 {
			keys = append(keys, v.PublicKey)
			weight += v.Weight
		}
	}
	need := new(big.Int).Mul(new(big.Int).SetUint64(set.TotalWeight), big.NewInt(quorumNumerator))
	have := new(big.Int).Mul(new(big.Int).SetUint64(weight), big.NewInt(quorumDenominator))
	if have.Cmp(need) < 0 {
		return fmt.Errorf("%w: %d of %d, the quorum is %d%%", ErrInsufficientWeight, weight, set.TotalWeight, quorumNumerator)
	}
	sig, err := bls.SignatureFromBytes(m.Signature[:])
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	agg, err := bls.AggregatePublicKeys(keys)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	if !bls.Verify(agg, sig, m.UnsignedMessage.Bytes()) {
		return ErrBadSignature
	}
	return nil
}

// Sign returns the message signed by every member of set whose secret key
// keys holds (by compressed public key).
func Sign(unsigned UnsignedMessage, set ValidatorSet, keys map[[bls.PublicKeyLen]byte]*bls.SecretKey) (*Message, error) {
	bits := new(big.Int)
	var sigs []*bls.Signature
	msg := unsigned.Bytes()
	for i, v := range set.Signers {
		sk, ok := keys[v.PublicKey.Bytes()]
		if !ok {
			continue
		}
		bits.SetBit(bits, i, 1)
		sigs = append(sigs, sk.Sign(msg))
	}
	agg, err := bls.AggregateSignatures(sigs)
	if err != nil {
		return nil, fmt.Errorf("warp: none of the validator set's keys is known: %w", err)
	}
	m := &Message{UnsignedMessage: unsigned, Signers: bits.Bytes(), Signature: agg.Bytes()}
	return m, nil
}

// hash is the SHA-256 of b as an ID.
func hash(b []byte) ids.ID { return sha256.Sum256(b) }
