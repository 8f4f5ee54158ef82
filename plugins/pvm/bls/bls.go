// Package bls holds the BLS12-381 signatures of avalanchego's platform
// chain (docs/pchain.md): public keys in G1 (48 bytes compressed),
// signatures in G2 (96 bytes), the proof-of-possession scheme of the IETF
// BLS signature draft with its two ciphersuites (one for signatures, one
// for proofs of possession), and aggregation. Validators' proofs of
// possession and Warp messages are checked with it.
package bls

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Lengths of the encodings.
const (
	secretKeyLen          = 32
	PublicKeyLen          = bls12381.SizeOfG1AffineCompressed
	UncompressedPublicKey = bls12381.SizeOfG1AffineUncompressed
	SignatureLen          = bls12381.SizeOfG2AffineCompressed
)

// The domain separation tags of the two ciphersuites: a signature of a
// message, and a proof of possession (the signature of the public key's
// compressed bytes).
var (
	dstSignature = []byte("BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")
	dstPoP       = []byte("BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")
)

// PublicKey is a point of G1.
type PublicKey struct{ p bls12381.G1Affine }

// Signature is a point of G2.
type Signature struct{ p bls12381.G2Affine }

// SecretKey is a scalar, below the group order and not 0.
type SecretKey struct{ s big.Int }

// Errors of the parsers.
var (
	ErrInfinity = errors.New("bls: the point at infinity")
	ErrScalar   = errors.New("bls: secret key is 0 or not below the group order")
)

// PublicKeyFromBytes reads a compressed public key: a point of G1 in its
// subgroup, not the point at infinity.
func PublicKeyFromBytes(b []byte) (*PublicKey, error) {
	if len(b) != PublicKeyLen {
		return nil, fmt.Errorf("bls: public key of %d bytes, want %d", len(b), PublicKeyLen)
	}
	var pk PublicKey
	if _, err := pk.p.SetBytes(b); err != nil {
		return nil, fmt.Errorf("bls: public key: %w", err)
	}
	if pk.p.IsInfinity() {
		return nil, ErrInfinity
	}
	return &pk, nil
}

// Bytes returns the compressed encoding.
func (pk *PublicKey) Bytes() [PublicKeyLen]byte { return pk.p.Bytes() }

// UncompressedBytes returns the uncompressed encoding, by which Warp orders
// validators.
func (pk *PublicKey) UncompressedBytes() [UncompressedPublicKey]byte { return pk.p.RawBytes() }

// SignatureFromBytes reads a compressed signature: a point of G2 in its
// subgroup.
func SignatureFromBytes(b []byte) (*Signature, error) {
	if len(b) != SignatureLen {
		return nil, fmt.Errorf("bls: signature of %d bytes, want %d", len(b), SignatureLen)
	}
	var sig Signature
	if _, err := sig.p.SetBytes(b); err != nil {
		return nil, fmt.Errorf("bls: signature: %w", err)
	}
	return &sig, nil
}

// Bytes returns the compressed encoding.
func (s *Signature) Bytes() [SignatureLen]byte { return s.p.Bytes() }

// SecretKeyFromBytes reads a big-endian scalar.
func SecretKeyFromBytes(b []byte) (*SecretKey, error) {
	if len(b) != secretKeyLen {
		return nil, fmt.Errorf("bls: secret key of %d bytes, want %d", len(b), secretKeyLen)
	}
	var sk SecretKey
	sk.s.SetBytes(b)
	if sk.s.Sign() == 0 || sk.s.Cmp(fr.Modulus()) >= 0 {
		return nil, ErrScalar
	}
	return &sk, nil
}

// DeriveSecretKey returns the secret key that a seed stands for: the first
// SHA-256 of the seed and a counter that is a valid scalar. chainhost's
// wallet derives its validators' development keys this way
// (docs/pchain.md); it is no key generation for real funds.
func DeriveSecretKey(seed []byte) *SecretKey {
	for i := byte(0); ; i++ {
		sum := sha256.Sum256(append(append([]byte{}, seed...), i))
		if sk, err := SecretKeyFromBytes(sum[:]); err == nil {
			return sk
		}
	}
}

// Bytes returns the big-endian scalar.
func (sk *SecretKey) Bytes() []byte { return sk.s.FillBytes(make([]byte, secretKeyLen)) }

// PublicKey returns the key's public key.
func (sk *SecretKey) PublicKey() *PublicKey {
	var pk PublicKey
	pk.p.ScalarMultiplicationBase(&sk.s)
	return &pk
}

// Sign signs a message.
func (sk *SecretKey) Sign(msg []byte) *Signature { return sk.sign(msg, dstSignature) }

// SignProofOfPossession signs the key's own compressed public key with the
// proof-of-possession ciphersuite.
func (sk *SecretKey) SignProofOfPossession() *Signature {
	pk := sk.PublicKey().Bytes()
	return sk.sign(pk[:], dstPoP)
}

func (sk *SecretKey) sign(msg, dst []byte) *Signature {
	h, err := bls12381.HashToG2(msg, dst)
	if err != nil {
		panic(fmt.Sprintf("bls: hash to G2: %v", err)) // only for a DST over 255 bytes
	}
	var sig Signature
	sig.p.ScalarMultiplication(&h, &sk.s)
	return &sig
}

// Verify reports whether sig signs msg with pk.
func Verify(pk *PublicKey, sig *Signature, msg []byte) bool {
	return verify(pk, sig, msg, dstSignature)
}

// VerifyProofOfPossession reports whether sig proves possession of pk: it
// signs pk's compressed bytes with the proof-of-possession ciphersuite.
func VerifyProofOfPossession(pk *PublicKey, sig *Signature) bool {
	b := pk.Bytes()
	return verify(pk, sig, b[:], dstPoP)
}

// verify checks e(pk, H(msg)) = e(g1, sig), as e(pk, H(msg)) * e(-g1, sig) = 1.
func verify(pk *PublicKey, sig *Signature, msg, dst []byte) bool {
	if pk.p.IsInfinity() {
		return false
	}
	h, err := bls12381.HashToG2(msg, dst)
	if err != nil {
		return false
	}
	_, _, g1, _ := bls12381.Generators()
	var negG1 bls12381.G1Affine
	negG1.Neg(&g1)
	ok, err := bls12381.PairingCheck([]bls12381.G1Affine{pk.p, negG1}, []bls12381.G2Affine{h, sig.p})
	return err == nil && ok
}

// AggregatePublicKeys returns the sum of the keys; none is an error.
func AggregatePublicKeys(pks []*PublicKey) (*PublicKey, error) {
	sum, err := aggregate[bls12381.G1Jac](pks, func(pk *PublicKey) *bls12381.G1Affine { return &pk.p }, "public keys")
	if err != nil {
		return nil, err
	}
	return &PublicKey{p: *sum}, nil
}

// AggregateSignatures returns the sum of the signatures; none is an error.
func AggregateSignatures(sigs []*Signature) (*Signature, error) {
	sum, err := aggregate[bls12381.G2Jac](sigs, func(s *Signature) *bls12381.G2Affine { return &s.p }, "signatures")
	if err != nil {
		return nil, err
	}
	return &Signature{p: *sum}, nil
}

// aggregate returns the sum of the points of list (point gives each),
// added in Jacobian coordinates J; what names the list in the error of an
// empty one.
func aggregate[J any, T any, A any, PJ interface {
	*J
	FromAffine(*A) *J
	AddMixed(*A) *J
}, PA interface {
	*A
	FromJacobian(*J) *A
}](list []*T, point func(*T) *A, what string) (*A, error) {
	if len(list) == 0 {
		return nil, fmt.Errorf("bls: no %s to aggregate", what)
	}
	var sum J
	PJ(&sum).FromAffine(point(list[0]))
	for _, t := range list[1:] {
		PJ(&sum).AddMixed(point(t))
	}
	var out A
	PA(&out).FromJacobian(&sum)
	return &out, nil
}

// ComparePublicKeys orders keys by their uncompressed bytes, the canonical
// order of a Warp validator set.
func ComparePublicKeys(a, b *PublicKey) int {
	ab, bb := a.UncompressedBytes(), b.UncompressedBytes()
	return bytes.Compare(ab[:], bb[:])
}
