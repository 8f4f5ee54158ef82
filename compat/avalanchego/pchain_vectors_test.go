package compat

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
)

// pchainVectorsFile holds the byte vectors the P-Chain's unit tests
// compare chainhost's encodings with (avax/avaxvectors).
var pchainVectorsFile = filepath.Join("..", "..", "avax", "avaxvectors", "testdata", "pchain", "avalanchego-v1.14.2.json")

// TestPChainVectors: every P-Chain vector chainhost's tests trust is what
// avalanchego's own code makes of it: each transaction and the block parse
// with avalanchego's codec and encode back to the same bytes with the same
// ID, signed by the ewoq key; the BLS keys, signatures and proofs of
// possession are blst's; the Warp messages verify with the L1 validators'
// keys; the validation and conversion IDs are avalanchego's.
func TestPChainVectors(t *testing.T) {
	raw, err := os.ReadFile(pchainVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	str := func(name string) string {
		t.Helper()
		var s string
		if err := json.Unmarshal(v[name], &s); err != nil {
			t.Fatalf("vector %s: %v", name, err)
		}
		return s
	}
	unhex := func(s string) []byte {
		t.Helper()
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ewoq := ewoqKey(t)

	parsed := map[string]*txs.Tx{}
	for _, name := range []string{
		"addValidatorTx", "addPermissionlessValidatorTx", "addDelegatorTx", "addPermissionlessDelegatorTx",
		"createSubnetTx", "createChainTx", "convertSubnetToL1Tx", "registerL1ValidatorTx",
		"setL1ValidatorWeightTx", "increaseL1ValidatorBalanceTx", "disableL1ValidatorTx",
	} {
		b := unhex(str(name))
		tx, err := txs.Parse(txs.Codec, b)
		if err != nil {
			t.Errorf("%s does not parse with avalanchego's codec: %v", name, err)
			continue
		}
		parsed[name] = tx
		if !bytes.Equal(tx.Bytes(), b) || tx.ID().String() != str(name+"ID") {
			t.Errorf("%s: ID %s, vector %s", name, tx.ID(), str(name+"ID"))
		}
		hash := hashing.ComputeHash256(tx.Unsigned.Bytes())
		for i, c := range tx.Creds {
			cred, ok := c.(*secp256k1fx.Credential)
			if !ok {
				t.Errorf("%s credential %d is a %T", name, i, c)
				continue
			}
			for j, sig := range cred.Sigs {
				pub, err := secp256k1.RecoverPublicKeyFromHash(hash, sig[:])
				if err != nil || pub.Address() != ewoq.Address() {
					t.Errorf("%s credential %d signature %d does not recover to the ewoq key (%v)", name, i, j, err)
				}
			}
		}
	}
	blk, err := block.Parse(block.Codec, unhex(str("block")))
	if err != nil || blk.ID().String() != str("blockID") || blk.Height() != 7 {
		t.Errorf("block: %v; vector ID %s", err, str("blockID"))
	}

	var keys map[string]string
	if err := json.Unmarshal(v["bls"], &keys); err != nil {
		t.Fatal(err)
	}
	sk, err := localsigner.FromBytes(unhex(keys["secretKey"]))
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(bls.PublicKeyToCompressedBytes(sk.PublicKey())); got != keys["publicKey"] {
		t.Errorf("public key %s, blst's %s", keys["publicKey"], got)
	}
	sig, _ := sk.Sign(unhex(keys["message"]))
	if got := hex.EncodeToString(bls.SignatureToBytes(sig)); got != keys["signature"] {
		t.Errorf("signature %s, blst's %s", keys["signature"], got)
	}
	for _, k := range []string{"", "2", "3"} {
		pop := signer.ProofOfPossession{}
		copy(pop.PublicKey[:], unhex(keys["publicKey"+k]))
		copy(pop.ProofOfPossession[:], unhex(keys["pop"+k]))
		if err := pop.Verify(); err != nil {
			t.Errorf("proof of possession %q: %v", k, err)
		}
	}

	subnetID := parsed["createSubnetTx"].ID()
	var vids []string
	if err := json.Unmarshal(v["validationIDs"], &vids); err != nil {
		t.Fatal(err)
	}
	for i, want := range vids {
		if got := subnetID.Append(uint32(i)).String(); got != want {
			t.Errorf("validation ID %d: %s, avalanchego's %s", i, want, got)
		}
	}
	convert := parsed["convertSubnetToL1Tx"].Unsigned.(*txs.ConvertSubnetToL1Tx)
	data := message.SubnetToL1ConversionData{SubnetID: convert.Subnet, ManagerChainID: convert.ChainID, ManagerAddress: convert.Address}
	for _, vdr := range convert.Validators {
		data.Validators = append(data.Validators, message.SubnetToL1ConversionValidatorData{NodeID: vdr.NodeID, BLSPublicKey: vdr.Signer.PublicKey, Weight: vdr.Weight})
	}
	if id, err := message.SubnetToL1ConversionID(data); err != nil || id.String() != str("conversionID") {
		t.Errorf("conversion ID %s, avalanchego's %s (%v)", str("conversionID"), id, err)
	}

	// The Warp messages: from the manager chain, signed by both L1
	// validators (in avalanchego's canonical order), carrying the L1
	// messages.
	vdrSet := map[ids.NodeID]*validators.GetValidatorOutput{}
	for _, vdr := range convert.Validators {
		pk, err := bls.PublicKeyFromCompressedBytes(vdr.Signer.PublicKey[:])
		if err != nil {
			t.Fatal(err)
		}
		nodeID, _ := ids.ToNodeID(vdr.NodeID)
		vdrSet[nodeID] = &validators.GetValidatorOutput{NodeID: nodeID, PublicKey: pk, Weight: vdr.Weight}
	}
	set, err := validators.FlattenValidatorSet(vdrSet)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"registerWarp", "weightWarp"} {
		msg, err := warp.ParseMessage(unhex(str(name)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if hex.EncodeToString(msg.UnsignedMessage.Bytes()) != str(name+"Unsigned") || msg.SourceChainID != convert.ChainID {
			t.Errorf("%s: unsigned message or source chain differs", name)
		}
		if err := msg.Signature.Verify(&msg.UnsignedMessage, 12345, set, 67, 100); err != nil {
			t.Errorf("%s: signature: %v", name, err)
		}
		call, err := payload.ParseAddressedCall(msg.Payload)
		if err != nil || !bytes.Equal(call.SourceAddress, convert.Address) {
			t.Errorf("%s: addressed call: %v", name, err)
		}
	}
	reg, err := message.ParseRegisterL1Validator(unhex(str("registerPayload")))
	if err != nil || reg.ValidationID().String() != str("registerValidationID") {
		t.Errorf("register payload: %v; validation ID vector %s", err, str("registerValidationID"))
	}
	if w, err := message.ParseL1ValidatorWeight(unhex(str("weightPayload"))); err != nil || w.ValidationID != reg.ValidationID() || w.Weight != 70 {
		t.Errorf("weight payload: %v %+v", err, w)
	}
}
