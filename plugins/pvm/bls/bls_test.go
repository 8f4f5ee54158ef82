package bls_test

import (
	"bytes"
	"testing"

	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
)

// TestAvalanchegoVectors: keys, signatures and proofs of possession are
// avalanchego's (blst's) bytes for the same secret key.
func TestAvalanchegoVectors(t *testing.T) {
	v := vectors.LoadP(t).Map(t, "bls")
	sk, err := bls.SecretKeyFromBytes(vectors.Hex(t, v["secretKey"]))
	if err != nil {
		t.Fatal(err)
	}
	pk := sk.PublicKey()
	if b := pk.Bytes(); !bytes.Equal(b[:], vectors.Hex(t, v["publicKey"])) {
		t.Fatalf("public key %x, want %s", b, v["publicKey"])
	}
	if b := pk.UncompressedBytes(); !bytes.Equal(b[:], vectors.Hex(t, v["publicKeyRaw"])) {
		t.Fatalf("uncompressed public key %x, want %s", b, v["publicKeyRaw"])
	}
	msg := vectors.Hex(t, v["message"])
	sig := sk.Sign(msg)
	if b := sig.Bytes(); !bytes.Equal(b[:], vectors.Hex(t, v["signature"])) {
		t.Fatalf("signature %x, want %s", b, v["signature"])
	}
	if !bls.Verify(pk, sig, msg) {
		t.Fatal("own signature does not verify")
	}
	if bls.Verify(pk, sig, []byte("other")) {
		t.Fatal("signature verifies for another message")
	}
	pop := sk.SignProofOfPossession()
	if b := pop.Bytes(); !bytes.Equal(b[:], vectors.Hex(t, v["pop"])) {
		t.Fatalf("proof of possession %x, want %s", b, v["pop"])
	}
	if !bls.VerifyProofOfPossession(pk, pop) {
		t.Fatal("proof of possession does not verify")
	}
	if bls.VerifyProofOfPossession(pk, sig) {
		t.Fatal("a plain signature passes as a proof of possession (ciphersuites not separated)")
	}
	for _, k := range []string{"2", "3"} {
		pk, err := bls.PublicKeyFromBytes(vectors.Hex(t, v["publicKey"+k]))
		if err != nil {
			t.Fatal(err)
		}
		s, err := bls.SignatureFromBytes(vectors.Hex(t, v["pop"+k]))
		if err != nil || !bls.VerifyProofOfPossession(pk, s) {
			t.Fatalf("avalanchego's proof of possession %s: %v", k, err)
		}
	}
}

// TestAggregate: an aggregate signature verifies with the aggregate key of
// its signers, not with a subset.
func TestAggregate(t *testing.T) {
	k1, k2 := bls.DeriveSecretKey([]byte("a")), bls.DeriveSecretKey([]byte("b"))
	msg := []byte("warp")
	sig, err := bls.AggregateSignatures([]*bls.Signature{k1.Sign(msg), k2.Sign(msg)})
	if err != nil {
		t.Fatal(err)
	}
	both, _ := bls.AggregatePublicKeys([]*bls.PublicKey{k1.PublicKey(), k2.PublicKey()})
	if !bls.Verify(both, sig, msg) {
		t.Fatal("aggregate does not verify")
	}
	if bls.Verify(k1.PublicKey(), sig, msg) {
		t.Fatal("aggregate verifies with one key")
	}
	if _, err := bls.AggregatePublicKeys(nil); err == nil {
		t.Fatal("empty aggregate")
	}
}

// TestParse: bad encodings are refused.
func TestParse(t *testing.T) {
	inf := make([]byte, bls.PublicKeyLen)
	inf[0] = 0xc0 // compressed infinity
	if _, err := bls.PublicKeyFromBytes(inf); err == nil {
		t.Fatal("the point at infinity parsed as a public key")
	}
	if _, err := bls.PublicKeyFromBytes(make([]byte, 47)); err == nil {
		t.Fatal("47 bytes parsed")
	}
	bad := bytes.Repeat([]byte{0x9f}, bls.PublicKeyLen)
	if _, err := bls.PublicKeyFromBytes(bad); err == nil {
		t.Fatal("a non-point parsed")
	}
	if _, err := bls.SecretKeyFromBytes(make([]byte, 32)); err == nil {
		t.Fatal("secret key 0 parsed")
	}
	if _, err := bls.SecretKeyFromBytes(bytes.Repeat([]byte{0xff}, 32)); err == nil {
		t.Fatal("secret key above the order parsed")
	}
}
