package avax_test

import (
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/chainhost/chainhost/avax"
	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestEwoqKey: the well-known key's address in avalanchego's three forms.
func TestEwoqKey(t *testing.T) {
	v := vectors.LoadX(t)
	want := v.Strings(t, "addr") // CB58, X-local1..., PrivateKey-...
	key, err := avax.ParsePrivateKey(vectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	if got := key.Address().String(); got != want[0] {
		t.Fatalf("address %s, want %s", got, want[0])
	}
	x, err := avax.FormatAddress("X", avax.HRP(avax.LocalID), key.Address())
	if err != nil || x != want[1] {
		t.Fatalf("X address %s (%v), want %s", x, err, want[1])
	}
	if key.String() != want[2] {
		t.Fatalf("key text %s, want %s", key.String(), want[2])
	}
	again, err := avax.ParsePrivateKey(want[2])
	if err != nil || again.Address() != key.Address() {
		t.Fatalf("parse %s: %v", want[2], err)
	}
	chain, hrp, addr, err := avax.ParseAddress(want[1])
	if err != nil || chain != "X" || hrp != "local" || addr != key.Address() {
		t.Fatalf("parse %s: %s %s %s %v", want[1], chain, hrp, addr, err)
	}
	short, err := avax.ShortIDFromString(want[0])
	if err != nil || short != key.Address() {
		t.Fatalf("short ID %s: %v", want[0], err)
	}
	empty := v.Strings(t, "shortEmpty")
	if (avax.ShortID{}).String() != empty[0] || (ids.ID{}).String() != empty[1] {
		t.Fatalf("zero IDs: %s %s, want %v", avax.ShortID{}, ids.ID{}, empty)
	}
}

// TestHRP: avalanchego's HRPs by network ID.
func TestHRP(t *testing.T) {
	for id, want := range map[uint32]string{1: "avax", 5: "fuji", 12345: "local", 10: "testing", 99: "custom"} {
		if got := avax.HRP(id); got != want {
			t.Errorf("HRP(%d) = %s, want %s", id, got, want)
		}
	}
	if _, _, _, err := avax.ParseAddress("local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"); err == nil {
		t.Error("an address without a chain prefix parsed")
	}
	if _, _, err := avax.ParseBech32("local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96v"); err == nil {
		t.Error("an address with a bad checksum parsed")
	}
}

// TestSignRecover: a signature recovers to its signer; a mutated one
// (high s) is refused as avalanchego refuses it.
func TestSignRecover(t *testing.T) {
	key, _ := avax.ParsePrivateKey(vectors.EwoqKey)
	hash := sha256.Sum256([]byte("msg"))
	sig := key.SignHash(hash[:])
	got, err := avax.RecoverAddress(hash[:], sig)
	if err != nil || got != key.Address() {
		t.Fatalf("recover: %s, %v", got, err)
	}
	other := sha256.Sum256([]byte("other"))
	if got, _ := avax.RecoverAddress(other[:], sig); got == key.Address() {
		t.Fatal("a signature over another message recovered the signer")
	}
	// s' = n - s, with the recovery ID flipped, is the same signature
	// mutated: valid for ECDSA, refused here.
	var s secp256k1.ModNScalar
	s.SetByteSlice(sig[32:64])
	s.Negate()
	mut := sig
	b := s.Bytes()
	copy(mut[32:64], b[:])
	mut[64] ^= 1
	if _, err := avax.RecoverAddress(hash[:], mut); err != avax.ErrHighS {
		t.Fatalf("mutated signature: %v, want ErrHighS", err)
	}
	bad := sig
	bad[64] = 2
	if _, err := avax.RecoverAddress(hash[:], bad); err != avax.ErrBadRecovery {
		t.Fatalf("recovery ID 2: %v", err)
	}
}

// TestVerifySpend: the spend rules of secp256k1fx, each broken once.
func TestVerifySpend(t *testing.T) {
	key, _ := avax.ParsePrivateKey(vectors.EwoqKey)
	stranger, _ := avax.PrivateKeyFromBytes(sha256.New().Sum(nil))
	hash := sha256.Sum256([]byte("tx"))
	out := func() avax.TransferOutput {
		return avax.TransferOutput{Amt: 10, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{key.Address()}}}
	}
	sign := func(k *avax.PrivateKey) avax.Credential {
		return avax.Credential{Sigs: [][avax.SignatureLen]byte{k.SignHash(hash[:])}}
	}
	for _, c := range []struct {
		name string
		in   avax.TransferInput
		cred avax.Credential
		out  func(o *avax.TransferOutput)
		now  uint64
		want string
	}{
		{name: "valid", in: avax.TransferInput{Amt: 10, SigIndices: []uint32{0}}, cred: sign(key)},
		{name: "other amount", in: avax.TransferInput{Amt: 9, SigIndices: []uint32{0}}, cred: sign(key), want: "differs"},
		{name: "locked", in: avax.TransferInput{Amt: 10, SigIndices: []uint32{0}}, cred: sign(key),
			out: func(o *avax.TransferOutput) { o.Locktime = 100 }, now: 99, want: "locked until 100"},
		{name: "unlocked", in: avax.TransferInput{Amt: 10, SigIndices: []uint32{0}}, cred: sign(key),
			out: func(o *avax.TransferOutput) { o.Locktime = 100 }, now: 100},
		{name: "wrong signer", in: avax.TransferInput{Amt: 10, SigIndices: []uint32{0}}, cred: sign(stranger), want: "not by the UTXO's owner"},
		{name: "no signer", in: avax.TransferInput{Amt: 10}, cred: avax.Credential{}, want: "fewer than the UTXO's threshold"},
		{name: "signature missing", in: avax.TransferInput{Amt: 10, SigIndices: []uint32{0}}, cred: avax.Credential{}, want: "0 signatures for 1 signers"},
		{name: "index out of range", in: avax.TransferInput{Amt: 10, SigIndices: []uint32{3}}, cred: sign(key), want: "out of the UTXO's 1 addresses"},
	} {
		o := out()
		if c.out != nil {
			c.out(&o)
		}
		err := avax.VerifySpend(hash[:], &c.in, &c.cred, &o, c.now)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
