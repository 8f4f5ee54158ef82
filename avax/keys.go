package avax

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/ripemd160" //lint:ignore SA1019 avalanchego's addresses are RIPEMD-160 hashes: the format needs it

	"github.com/chainhost/chainhost/sdk/ids"
)

// SignatureLen is the length of a recoverable signature: r, s (32 bytes
// each) and the recovery ID (0 or 1).
const SignatureLen = 65

// privateKeyPrefix starts avalanchego's text form of a private key.
const privateKeyPrefix = "PrivateKey-"

// PrivateKey is a secp256k1 private key.
type PrivateKey struct {
	sk *secp256k1.PrivateKey
}

// ParsePrivateKey reads a key as hex (64 digits, "0x" optional) or in
// avalanchego's "PrivateKey-<cb58>" form.
func ParsePrivateKey(s string) (*PrivateKey, error) {
	s = strings.TrimSpace(s)
	var raw []byte
	var err error
	if rest, ok := strings.CutPrefix(s, privateKeyPrefix); ok {
		raw, err = ids.DecodeCB58(rest)
	} else {
		raw, err = hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	}
	if err != nil {
		return nil, fmt.Errorf("private key: want 64 hex digits or %s<cb58>: %w", privateKeyPrefix, err)
	}
	return PrivateKeyFromBytes(raw)
}

// PrivateKeyFromBytes returns the key of 32 bytes.
func PrivateKeyFromBytes(b []byte) (*PrivateKey, error) {
	if len(b) != 32 {
		return nil, fmt.Errorf("private key: %d bytes, want 32", len(b))
	}
	var scalar secp256k1.ModNScalar
	if overflow := scalar.SetByteSlice(b); overflow || scalar.IsZero() {
		return nil, errors.New("private key: not a valid secp256k1 scalar")
	}
	return &PrivateKey{sk: secp256k1.NewPrivateKey(&scalar)}, nil
}

// Bytes returns the 32 bytes of the key.
func (k *PrivateKey) Bytes() []byte { return k.sk.Serialize() }

// String returns avalanchego's "PrivateKey-<cb58>" form.
func (k *PrivateKey) String() string { return privateKeyPrefix + ids.EncodeCB58(k.Bytes()) }

// PublicKey returns the compressed public key (33 bytes).
func (k *PrivateKey) PublicKey() []byte { return k.sk.PubKey().SerializeCompressed() }

// Address returns the key's address.
func (k *PrivateKey) Address() ShortID { return publicKeyAddress(k.PublicKey()) }

// SignHash signs a 32-byte hash and returns the recoverable signature: r,
// s (the low one) and the recovery ID.
func (k *PrivateKey) SignHash(hash []byte) [SignatureLen]byte {
	compact := ecdsa.SignCompact(k.sk, hash, false) // v (27 + recovery ID), r, s
	var sig [SignatureLen]byte
	copy(sig[:64], compact[1:])
	sig[64] = compact[0] - 27
	return sig
}

// publicKeyAddress returns the address of a compressed public key: the
// RIPEMD-160 of its SHA-256.
func publicKeyAddress(compressed []byte) ShortID {
	sum := sha256.Sum256(compressed)
	h := ripemd160.New()
	h.Write(sum[:])
	var a ShortID
	copy(a[:], h.Sum(nil))
	return a
}

// Errors of RecoverAddress.
var (
	ErrHighS       = errors.New("signature's s is in the upper half of the curve order (a mutated signature)")
	ErrBadRecovery = errors.New("signature's recovery ID is not 0 or 1")
)

// RecoverAddress returns the address of the key that made sig over hash.
// Like avalanchego it refuses a signature whose s is in the upper half of
// the curve order.
func RecoverAddress(hash []byte, sig [SignatureLen]byte) (ShortID, error) {
	var s secp256k1.ModNScalar
	s.SetByteSlice(sig[32:64])
	if s.IsOverHalfOrder() {
		return ShortID{}, ErrHighS
	}
	if sig[64] > 1 {
		return ShortID{}, ErrBadRecovery
	}
	var compact [SignatureLen]byte
	compact[0] = 27 + sig[64]
	copy(compact[1:], sig[:64])
	pub, _, err := ecdsa.RecoverCompact(compact[:], hash)
	if err != nil {
		return ShortID{}, fmt.Errorf("recover public key: %w", err)
	}
	return publicKeyAddress(pub.SerializeCompressed()), nil
}
