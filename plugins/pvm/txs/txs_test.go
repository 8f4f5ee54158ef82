package txs_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/ids"
)

var txNames = []string{
	"addValidatorTx", "addPermissionlessValidatorTx", "addDelegatorTx", "addPermissionlessDelegatorTx",
	"createSubnetTx", "createChainTx", "convertSubnetToL1Tx", "registerL1ValidatorTx",
	"setL1ValidatorWeightTx", "increaseL1ValidatorBalanceTx", "disableL1ValidatorTx",
}

// avaxID is the AVAX asset ID avalanchego's vectors (avax/avaxvectors)
// were made with.
var avaxID = mustID("D6FgEcczTT78GJgsdFGFN1iyDih6asG9HE9uV7raGF72nBLob")

func mustID(s string) ids.ID {
	id, err := ids.FromString(s)
	if err != nil {
		panic(err)
	}
	return id
}

func ctx() txs.Context {
	return txs.Context{NetworkID: 12345, ChainID: ids.ID{}, AVAXAssetID: avaxID}
}

// TestVectors: every transaction avalanchego v1.14.2 made parses, encodes
// back to its bytes, has its ID and passes the structural checks.
func TestVectors(t *testing.T) {
	v := vectors.LoadP(t)
	for _, name := range txNames {
		raw := v.Bytes(t, name)
		tx, err := txs.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(tx.Bytes(), raw) || tx.ID().String() != v.String(t, name+"ID") {
			t.Fatalf("%s: ID %s, want %s", name, tx.ID(), v.String(t, name+"ID"))
		}
		if err := txs.Verify(tx, ctx()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	blk, err := blocks.Parse(v.Bytes(t, "block"))
	if err != nil || blk.ID().String() != v.String(t, "blockID") || blk.Height != 7 || blk.Time != 1_700_000_100 || len(blk.Txs) != 2 {
		t.Fatalf("block: %v %+v", err, blk)
	}
	again := blocks.New(blk.Time, blk.Parent, blk.Height, blk.Txs)
	if !bytes.Equal(again.Bytes(), v.Bytes(t, "block")) {
		t.Fatal("block does not encode back to its bytes")
	}
}

// keys returns the ewoq key and the three BLS keys of the vectors.
func keys(t *testing.T) (*avax.PrivateKey, []*bls.SecretKey) {
	ewoq, err := avax.ParsePrivateKey("0x" + vectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	var sks []*bls.SecretKey
	for _, b := range []byte{0x11, 0x22, 0x33} {
		sk, err := bls.SecretKeyFromBytes(bytes.Repeat([]byte{b}, 32))
		if err != nil {
			t.Fatal(err)
		}
		sks = append(sks, sk)
	}
	return ewoq, sks
}

// TestBuildLikeAvalanchego: transactions built from their fields and
// signed here are avalanchego's bytes: the staker with a proof of
// possession, the conversion with its validators, and the registration
// whose Warp message both L1 validators sign; the validation IDs and the
// conversion ID are avalanchego's.
func TestBuildLikeAvalanchego(t *testing.T) {
	v := vectors.LoadP(t)
	ewoq, sks := keys(t)
	me := ewoq.Address()
	owner := avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{me}}
	pOwner := warp.PChainOwner{Threshold: 1, Addrs: []avax.ShortID{me}}
	const total = 300_000_000_000_000_000
	out := func(amt uint64) avax.TransferableOutput {
		return avax.TransferableOutput{AssetID: avaxID, Out: avax.TransferOutput{Amt: amt, OutputOwners: owner}}
	}
	base := func(change uint64) txs.BaseTx {
		return txs.BaseTx{NetworkID: 12345, Outs: []avax.TransferableOutput{out(change)},
			Ins: []avax.TransferableInput{{AssetID: avaxID, In: avax.TransferInput{Amt: total, SigIndices: []uint32{0}}}}}
	}
	sign := func(u txs.Unsigned) *txs.Tx {
		ks := make([][]*avax.PrivateKey, txs.NumCredentials(u))
		for i := range ks {
			ks[i] = []*avax.PrivateKey{ewoq}
		}
		return txs.Sign(u, ks)
	}
	check := func(name string, tx *txs.Tx) {
		t.Helper()
		if want := v.String(t, name); hex.EncodeToString(tx.Bytes()) != want {
			t.Fatalf("%s:\n got %x\nwant %s", name, tx.Bytes(), want)
		}
	}
	nodeID := func(i byte) avax.NodeID { return avax.NodeID{i, 0xaa} }
	if got := nodeID(1).String(); got != v.Strings(t, "nodeID")[1] {
		t.Fatalf("node ID text %s, want %s", got, v.Strings(t, "nodeID")[1])
	}
	const stake = 2_000_000_000_000
	pop := txs.NewProofOfPossession(sks[0])
	check("addPermissionlessValidatorTx", sign(&txs.AddPermissionlessValidatorTx{
		BaseTx:    base(total - stake - 1_000_000),
		Validator: txs.Validator{NodeID: nodeID(1), Start: 1_700_000_000, End: 1_700_000_000 + 14*86400, Weight: stake},
		Signer:    &pop, StakeOuts: []avax.TransferableOutput{out(stake)},
		ValidatorRewardsOwner: owner, DelegatorRewardsOwner: owner, DelegationShares: 20_000,
	}))
	subnet := mustID(v.String(t, "createSubnetTxID"))
	manager := mustID(v.String(t, "createChainTxID"))
	addr := []byte{0xab, 0xcd, 0xef}
	check("convertSubnetToL1Tx", sign(&txs.ConvertSubnetToL1Tx{
		BaseTx: base(total - 3_000_000_000 - 1_000_000), Subnet: subnet, ChainID: manager, Address: addr,
		Validators: []txs.ConvertValidator{
			{NodeID: nodeID(2).Bytes(), Weight: 100, Balance: 1_000_000_000, Signer: txs.NewProofOfPossession(sks[1]), RemainingBalanceOwner: pOwner, DeactivationOwner: pOwner},
			{NodeID: nodeID(3).Bytes(), Weight: 200, Balance: 2_000_000_000, Signer: txs.NewProofOfPossession(sks[2]), RemainingBalanceOwner: pOwner, DeactivationOwner: pOwner},
		},
		SubnetAuth: txs.Auth{SigIndices: []uint32{0}},
	}))
	for i, want := range v.Strings(t, "validationIDs") {
		if got := txs.ConvertValidationID(subnet, uint32(i)); got.String() != want {
			t.Fatalf("validation ID %d: %s, want %s", i, got, want)
		}
	}
	conv := warp.ConversionID(subnet, manager, addr, []warp.ConversionValidator{
		{NodeID: nodeID(2).Bytes(), BLSPublicKey: sks[1].PublicKey().Bytes(), Weight: 100},
		{NodeID: nodeID(3).Bytes(), BLSPublicKey: sks[2].PublicKey().Bytes(), Weight: 200},
	})
	if conv.String() != v.String(t, "conversionID") {
		t.Fatalf("conversion ID %s, want %s", conv, v.String(t, "conversionID"))
	}

	reg := &warp.RegisterL1Validator{SubnetID: subnet, NodeID: nodeID(4).Bytes(), BLSPublicKey: sks[0].PublicKey().Bytes(),
		Expiry: 1_700_003_600, RemainingBalanceOwner: pOwner, DisableOwner: pOwner, Weight: 50}
	if hex.EncodeToString(reg.Bytes()) != v.String(t, "registerPayload") || reg.ValidationID().String() != v.String(t, "registerValidationID") {
		t.Fatalf("register payload %x, ID %s", reg.Bytes(), reg.ValidationID())
	}
	set, err := warp.NewValidatorSet([]warp.Validator{{PublicKey: sks[1].PublicKey(), Weight: 100}, {PublicKey: sks[2].PublicKey(), Weight: 200}})
	if err != nil {
		t.Fatal(err)
	}
	signed := map[[bls.PublicKeyLen]byte]*bls.SecretKey{sks[1].PublicKey().Bytes(): sks[1], sks[2].PublicKey().Bytes(): sks[2]}
	call := warp.AddressedCall{SourceAddress: addr, Payload: reg.Bytes()}
	msg, err := warp.Sign(warp.UnsignedMessage{NetworkID: 12345, SourceChainID: manager, Payload: call.Bytes()}, set, signed)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(msg.Bytes()) != v.String(t, "registerWarp") {
		t.Fatalf("warp message:\n got %x\nwant %s", msg.Bytes(), v.String(t, "registerWarp"))
	}
	if err := msg.Verify(12345, set); err != nil {
		t.Fatal(err)
	}
	check("registerL1ValidatorTx", sign(&txs.RegisterL1ValidatorTx{
		BaseTx: base(total - 500_000_000 - 1_000_000), Balance: 500_000_000, ProofOfPossession: pop.Signature, Message: msg.Bytes(),
	}))
	check("disableL1ValidatorTx", sign(&txs.DisableL1ValidatorTx{
		BaseTx: base(total - 1_000_000), ValidationID: txs.ConvertValidationID(subnet, 1), DisableAuth: txs.Auth{SigIndices: []uint32{0}},
	}))
}

// TestWarpVerify: a message signed by too little weight, with a padded or
// too long bit set, by keys outside the set or for another network is
// refused; the quorum counts inactive weight but only active keys sign.
func TestWarpVerify(t *testing.T) {
	_, sks := keys(t)
	set, _ := warp.NewValidatorSet([]warp.Validator{
		{PublicKey: sks[0].PublicKey(), Weight: 40}, {PublicKey: sks[1].PublicKey(), Weight: 30},
		{Weight: 30}, // inactive: counts in the total, cannot sign
	})
	unsigned := warp.UnsignedMessage{NetworkID: 1, SourceChainID: ids.ID{9}, Payload: []byte("p")}
	sign := func(ks ...*bls.SecretKey) *warp.Message {
		m := map[[bls.PublicKeyLen]byte]*bls.SecretKey{}
		for _, k := range ks {
			m[k.PublicKey().Bytes()] = k
		}
		msg, err := warp.Sign(unsigned, set, m)
		if err != nil {
			t.Fatal(err)
		}
		return msg
	}
	if err := sign(sks[0], sks[1]).Verify(1, set); err != nil {
		t.Fatalf("70 of 100 signed: %v", err)
	}
	if err := sign(sks[0]).Verify(1, set); !errors.Is(err, warp.ErrInsufficientWeight) {
		t.Fatalf("40 of 100 signed: %v", err)
	}
	if err := sign(sks[0], sks[1]).Verify(2, set); !errors.Is(err, warp.ErrWrongNetwork) {
		t.Fatalf("other network: %v", err)
	}
	padded := sign(sks[0], sks[1])
	padded.Signers = append([]byte{0}, padded.Signers...)
	if err := padded.Verify(1, set); !errors.Is(err, warp.ErrBadSigners) {
		t.Fatalf("padded bit set: %v", err)
	}
	long := sign(sks[0], sks[1])
	long.Signers = []byte{0x07}
	if err := long.Verify(1, set); !errors.Is(err, warp.ErrBadSigners) {
		t.Fatalf("bit set naming a third signer: %v", err)
	}
	forged := sign(sks[0], sks[1])
	// (Not sks[2]: its scalar is the sum of the other two, so its key is
	// their aggregate.)
	forged.Signature = bls.DeriveSecretKey([]byte("forger")).Sign(unsigned.Bytes()).Bytes()
	if err := forged.Verify(1, set); !errors.Is(err, warp.ErrBadSignature) {
		t.Fatalf("signature of a key outside the set: %v", err)
	}
	parsed, err := warp.ParseMessage(sign(sks[0], sks[1]).Bytes())
	if err != nil || parsed.Verify(1, set) != nil {
		t.Fatalf("parsed message: %v", err)
	}
}

// TestVerifyRefuses: the structural checks, each broken once.
func TestVerifyRefuses(t *testing.T) {
	v := vectors.LoadP(t)
	parse := func(name string) *txs.Tx {
		tx, err := txs.Parse(v.Bytes(t, name))
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	for _, c := range []struct {
		name, tx, want string
		edit           func(u txs.Unsigned)
	}{
		{"zero weight", "addValidatorTx", "weight is zero", func(u txs.Unsigned) { u.(*txs.AddValidatorTx).Validator.Weight = 0 }},
		{"stake differs", "addValidatorTx", "is not the weight", func(u txs.Unsigned) { u.(*txs.AddValidatorTx).Validator.Weight++ }},
		{"ends before start", "addDelegatorTx", "before it starts", func(u txs.Unsigned) {
			d := u.(*txs.AddDelegatorTx)
			d.Validator.End = d.Validator.Start
		}},
		{"empty node", "addDelegatorTx", "node ID is empty", func(u txs.Unsigned) { u.(*txs.AddDelegatorTx).Validator.NodeID = avax.NodeID{} }},
		{"other network", "createSubnetTx", "network 1", func(u txs.Unsigned) { u.Base().NetworkID = 1 }},
		{"other chain", "createSubnetTx", "is for chain", func(u txs.Unsigned) { u.Base().BlockchainID = ids.ID{1} }},
		{"subnet validator", "addPermissionlessValidatorTx", "L1 validators", func(u txs.Unsigned) { u.(*txs.AddPermissionlessValidatorTx).Subnet = ids.ID{1} }},
		{"no BLS key", "addPermissionlessValidatorTx", "needs a BLS key", func(u txs.Unsigned) { u.(*txs.AddPermissionlessValidatorTx).Signer = nil }},
		{"too many shares", "addValidatorTx", "more than 100%", func(u txs.Unsigned) { u.(*txs.AddValidatorTx).DelegationShares = 1_000_001 }},
		{"unsorted L1 validators", "convertSubnetToL1Tx", "not sorted", func(u txs.Unsigned) {
			c := u.(*txs.ConvertSubnetToL1Tx)
			c.Validators[0], c.Validators[1] = c.Validators[1], c.Validators[0]
		}},
		{"L1 validator zero weight", "convertSubnetToL1Tx", "weight is zero", func(u txs.Unsigned) { u.(*txs.ConvertSubnetToL1Tx).Validators[1].Weight = 0 }},
		{"convert primary", "convertSubnetToL1Tx", "primary network", func(u txs.Unsigned) { u.(*txs.ConvertSubnetToL1Tx).Subnet = ids.ID{} }},
		{"zero top-up", "increaseL1ValidatorBalanceTx", "zero", func(u txs.Unsigned) { u.(*txs.IncreaseL1ValidatorBalanceTx).Balance = 0 }},
		{"chain name", "createChainTx", "only ASCII", func(u txs.Unsigned) { u.(*txs.CreateChainTx).ChainName = "a-b" }},
	} {
		tx := parse(c.tx)
		c.edit(tx.Unsigned)
		err := txs.Verify(txs.New(tx.Unsigned, tx.Creds), ctx())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	tx := parse("createChainTx")
	if err := txs.Verify(txs.New(tx.Unsigned, tx.Creds[:1]), ctx()); err == nil || !strings.Contains(err.Error(), "needs 2") {
		t.Errorf("missing authorization credential: %v", err)
	}
	raw := v.Bytes(t, "createSubnetTx")
	raw[5] = 13 // the type ID's last byte: AddSubnetValidatorTx
	if _, err := txs.Parse(raw); err == nil || !strings.Contains(err.Error(), "AddSubnetValidatorTx") {
		t.Errorf("an AddSubnetValidatorTx: %v", err)
	}
}
