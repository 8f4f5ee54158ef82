package compat

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/engine/avalanche/vertex"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/hashing"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	xbuilder "github.com/ava-labs/avalanchego/wallet/chain/x/builder"
)

// vectorsFile holds the byte vectors the X-Chain's unit tests compare
// chainhost's encodings with (avax/avaxvectors).
var vectorsFile = filepath.Join("..", "..", "avax", "avaxvectors", "testdata", "xchain", "avalanchego-v1.14.2.json")

// TestVectors: every byte vector the X-Chain's unit tests trust is what
// avalanchego's own code makes of it: each encoding decodes with
// avalanchego's codec and encodes back to the same bytes, with the same ID;
// the signatures recover to the ewoq key; addresses, the hex encoding and
// the empty IDs are avalanchego's spellings.
func TestVectors(t *testing.T) {
	raw, err := os.ReadFile(vectorsFile)
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
	strs := func(name string) []string {
		t.Helper()
		var s []string
		if err := json.Unmarshal(v[name], &s); err != nil {
			t.Fatalf("vector %s: %v", name, err)
		}
		return s
	}
	hexBytes := func(name string) []byte {
		t.Helper()
		b, err := hex.DecodeString(str(name))
		if err != nil {
			t.Fatalf("vector %s: %v", name, err)
		}
		return b
	}
	ewoq := ewoqKey(t)
	parser := xbuilder.Parser

	// The genesis CreateAssetTx: its ID is the AVAX asset ID.
	genesis, err := parser.ParseGenesisTx(hexBytes("genesisTx"))
	if err != nil || !bytes.Equal(genesis.Bytes(), hexBytes("genesisTx")) || genesis.ID().String() != str("assetID") {
		t.Errorf("genesisTx: %v; ID %s, want the asset ID %s", err, genesis.ID(), str("assetID"))
	}

	for _, name := range []string{"baseTx", "exportTx", "importTx", "createAssetTx"} {
		b := hexBytes(name)
		tx, err := parser.ParseTx(b)
		if err != nil {
			t.Errorf("%s does not parse with avalanchego's codec: %v", name, err)
			continue
		}
		again, err := parser.Codec().Marshal(txs.CodecVersion, tx)
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s encodes back to other bytes (%v)", name, err)
		}
		if tx.ID().String() != str(name+"ID") {
			t.Errorf("%s ID %s, vector %s", name, tx.ID(), str(name+"ID"))
		}
		unsigned, err := parser.Codec().Marshal(txs.CodecVersion, &tx.Unsigned)
		if err != nil {
			t.Fatal(err)
		}
		hash := hashing.ComputeHash256(unsigned)
		for i, c := range tx.Creds {
			cred, ok := c.Credential.(*secp256k1fx.Credential)
			if !ok {
				t.Errorf("%s credential %d is a %T", name, i, c.Credential)
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

	// The exported UTXO, and the new asset's mint and transfer UTXOs,
	// which the CreateAssetTx makes after its change output.
	for _, name := range []string{"exportUTXO", "mintUTXO", "assetUTXO"} {
		var utxo avax.UTXO
		if _, err := parser.Codec().Unmarshal(hexBytes(name), &utxo); err != nil {
			t.Errorf("%s does not parse: %v", name, err)
			continue
		}
		again, err := parser.Codec().Marshal(txs.CodecVersion, &utxo)
		if err != nil || !bytes.Equal(again, hexBytes(name)) || utxo.InputID().String() != str(name+"ID") {
			t.Errorf("%s: %v; input ID %s, vector %s", name, err, utxo.InputID(), str(name+"ID"))
		}
		if name != "exportUTXO" && (utxo.TxID.String() != str("createAssetTxID") || utxo.AssetID().String() != str("createAssetTxID")) {
			t.Errorf("%s: made by %s of asset %s, want the CreateAssetTx's ID for both", name, utxo.TxID, utxo.AssetID())
		}
	}
	if tx, err := parser.ParseTx(hexBytes("createAssetTx")); err == nil {
		if ca, ok := tx.Unsigned.(*txs.CreateAssetTx); !ok || ca.Name != "Test Token" || ca.Symbol != "TT" || ca.Denomination != 2 || len(ca.States) != 1 || len(ca.States[0].Outs) != 2 {
			t.Errorf("createAssetTx decodes to %+v", tx.Unsigned)
		}
	}

	blk, err := parser.ParseBlock(hexBytes("block"))
	if err != nil || !bytes.Equal(blk.Bytes(), hexBytes("block")) || blk.ID().String() != str("blockID") {
		t.Errorf("block: %v; ID %v, vector %s", err, blk, str("blockID"))
	}
	for _, name := range []string{"vertex", "stopVertex"} {
		vtx, err := vertex.Parse(hexBytes(name))
		if err != nil || !bytes.Equal(vtx.Bytes(), hexBytes(name)) || vtx.ID().String() != str(name+"ID") {
			t.Errorf("%s: %v; vector ID %s", name, err, str(name+"ID"))
		}
	}

	bech, err := address.Format("X", "local", ewoq.Address().Bytes())
	if addr := strs("addr"); err != nil || len(addr) != 3 || addr[0] != ewoq.Address().String() || addr[1] != bech || addr[2] != ewoq.String() {
		t.Errorf("addr = %v, avalanchego spells %s %s %s (%v)", addr, ewoq.Address(), bech, ewoq, err)
	}
	if h, err := formatting.Encode(formatting.Hex, []byte("chainhost")); err != nil || h != str("hex") {
		t.Errorf("hex = %s, avalanchego encodes %s (%v)", str("hex"), h, err)
	}
	if e := strs("shortEmpty"); len(e) != 2 || e[0] != ids.ShortEmpty.String() || e[1] != ids.Empty.String() {
		t.Errorf("shortEmpty = %v", e)
	}
}
