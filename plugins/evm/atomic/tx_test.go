package atomic_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/sdk/ids"
)

// vectors are the byte vectors coreth v1.14.2's own code made
// (plugins/evm/testdata/README.md).
type vectors struct {
	EthAddr         string   `json:"ethAddr"`
	CAddr           string   `json:"cAddr"`
	ImportTx        string   `json:"importTx"`
	ImportTxID      string   `json:"importTxID"`
	ImportUnsigned  string   `json:"importUnsigned"`
	ExportTx        string   `json:"exportTx"`
	ExportTxID      string   `json:"exportTxID"`
	ExportUTXO      string   `json:"exportUTXO"`
	ExportUTXOID    string   `json:"exportUTXOID"`
	Batch           string   `json:"batch"`
	ImportGas       uint64   `json:"importGas"`
	ExportGas       uint64   `json:"exportGas"`
	ImportFee25Gwei uint64   `json:"importFee25Gwei"`
	ExportFee25Gwei uint64   `json:"exportFee25Gwei"`
	ExportInputIDs  []string `json:"exportInputIDs"`
	ExtDataHash     string   `json:"extDataHash"`
}

func loadVectors(t testing.TB) vectors {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "coreth-v1.14.2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The inputs the vectors were made of.
var (
	cChain = ids.ID{1, 2, 3}
	xChain = ids.ID{9, 9, 9}
	avaxID = mustID("D6FgEcczTT78GJgsdFGFN1iyDih6asG9HE9uV7raGF72nBLob")
	ewoq   = mustKey("56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027")
	ethAdr = common.HexToAddress("0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC")
)

func mustID(s string) ids.ID {
	id, err := ids.FromString(s)
	if err != nil {
		panic(err)
	}
	return id
}

func mustKey(s string) *avax.PrivateKey {
	k, err := avax.ParsePrivateKey(s)
	if err != nil {
		panic(err)
	}
	return k
}

func vectorImport() *atomic.ImportTx {
	return &atomic.ImportTx{
		NetworkID: 12345, BlockchainID: cChain, SourceChain: xChain,
		ImportedIns: []avax.TransferableInput{{
			UTXOID:  avax.UTXOID{TxID: ids.ID{4, 4}, OutputIndex: 1},
			AssetID: avaxID,
			In:      avax.TransferInput{Amt: 5_000_000, SigIndices: []uint32{0}},
		}},
		Outs: []atomic.EVMOutput{{Address: ethAdr, Amount: 4_000_000, AssetID: avaxID}},
	}
}

func vectorExport() *atomic.ExportTx {
	return &atomic.ExportTx{
		NetworkID: 12345, BlockchainID: cChain, DestinationChain: xChain,
		Ins: []atomic.EVMInput{{Address: ethAdr, Amount: 6_000_000, AssetID: avaxID, Nonce: 3}},
		ExportedOuts: []avax.TransferableOutput{{AssetID: avaxID, Out: avax.TransferOutput{
			Amt: 5_000_000, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{ewoq.Address()}},
		}}},
	}
}

// TestVectors: chainhost builds, signs and reads coreth's bytes: the same
// transactions, IDs, exported UTXO, block batch and its hash, gas, fees
// and input IDs.
func TestVectors(t *testing.T) {
	v := loadVectors(t)
	keys := [][]*avax.PrivateKey{{ewoq}}
	imp := atomic.Sign(vectorImport(), keys)
	exp := atomic.Sign(vectorExport(), keys)
	for _, c := range []struct {
		name     string
		tx       *atomic.Tx
		raw, id  string
		gas, fee uint64
	}{
		{"import", imp, v.ImportTx, v.ImportTxID, v.ImportGas, v.ImportFee25Gwei},
		{"export", exp, v.ExportTx, v.ExportTxID, v.ExportGas, v.ExportFee25Gwei},
	} {
		if got := hex.EncodeToString(c.tx.Bytes()); got != c.raw {
			t.Errorf("%s: signed bytes\n%s\nwant coreth's\n%s", c.name, got, c.raw)
		}
		if c.tx.ID().String() != c.id {
			t.Errorf("%s: ID %s, coreth's %s", c.name, c.tx.ID(), c.id)
		}
		parsed, err := atomic.Parse(unhex(t, c.raw))
		if err != nil || parsed.ID() != c.tx.ID() || !bytes.Equal(parsed.UnsignedBytes(), c.tx.UnsignedBytes()) {
			t.Errorf("%s: parse: %v", c.name, err)
		}
		if g := atomic.GasUsed(c.tx); g != c.gas {
			t.Errorf("%s: gas %d, coreth's %d", c.name, g, c.gas)
		}
		if f, err := atomic.DynamicFee(c.gas, big.NewInt(25e9)); err != nil || f != c.fee {
			t.Errorf("%s: fee at 25 gwei %d (%v), coreth's %d", c.name, f, err, c.fee)
		}
	}
	if got := hex.EncodeToString(imp.UnsignedBytes()); got != v.ImportUnsigned {
		t.Errorf("import unsigned bytes\n%s\nwant\n%s", got, v.ImportUnsigned)
	}
	utxos := exp.ExportedUTXOs()
	if len(utxos) != 1 || hex.EncodeToString(utxos[0].Bytes()) != v.ExportUTXO {
		t.Errorf("exported UTXOs %v, want coreth's %s", utxos, v.ExportUTXO)
	} else if id := utxos[0].InputID(); hex.EncodeToString(id[:]) != v.ExportUTXOID {
		t.Errorf("exported UTXO ID %x, coreth's %s", id, v.ExportUTXOID)
	}
	if in := exp.InputIDs(); len(in) != 1 || len(v.ExportInputIDs) != 1 || hex.EncodeToString(in[0][:]) != v.ExportInputIDs[0] {
		t.Errorf("export input IDs %x, coreth's %v", in, v.ExportInputIDs)
	}
	if in := imp.InputIDs(); len(in) != 1 || in[0] != vectorImport().ImportedIns[0].InputID() {
		t.Errorf("import input IDs %v, want its UTXO's ID", in)
	}
	batch := atomic.EncodeBatch([]*atomic.Tx{imp, exp})
	if got := hex.EncodeToString(batch); got != v.Batch {
		t.Errorf("batch\n%s\nwant coreth's\n%s", got, v.Batch)
	}
	if h := atomic.BatchHash(batch); h.Hex() != v.ExtDataHash {
		t.Errorf("batch hash %s, coreth's ExtDataHash %s", h.Hex(), v.ExtDataHash)
	}
	back, err := atomic.ParseBatch(batch)
	if err != nil || len(back) != 2 || back[0].ID() != imp.ID() || back[1].ID() != exp.ID() {
		t.Errorf("parse batch: %v, %d transactions", err, len(back))
	}
	if err := atomic.VerifyExportSigners(exp); err != nil {
		t.Errorf("export signers: %v", err)
	}
	addr, err := avax.FormatAddress("C", "local", ewoq.Address())
	if err != nil || addr != v.CAddr {
		t.Errorf("address %s (%v), coreth's %s", addr, err, v.CAddr)
	}
	if v.EthAddr != ethAdr.Hex() {
		t.Errorf("EVM address %s, vector %s", ethAdr.Hex(), v.EthAddr)
	}
}

// TestParseRefuses: malformed bytes are refused with an error, never a
// panic.
func TestParseRefuses(t *testing.T) {
	v := loadVectors(t)
	good := unhex(t, v.ImportTx)
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "uint16"},
		{"truncated", good[:len(good)-10], "cannot fit"},
		{"trailing", append(append([]byte{}, good...), 0), "trailing bytes"},
		{"codec version", append([]byte{0, 1}, good[2:]...), "codec version 1"},
		{"type ID", append([]byte{0, 0, 0, 0, 0, 7}, good[6:]...), "unknown atomic transaction type ID 7"},
		{"huge slice", append(append([]byte{}, good[:74]...), 0xff, 0xff, 0xff, 0xff), "cannot fit"},
		{"too large", make([]byte, atomic.MaxTxSize+1), "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := atomic.Parse(tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := atomic.ParseBatch([]byte{0, 0, 0, 0, 0, 0}); err == nil {
		t.Fatal("an empty batch parsed")
	}
}

// TestVerify: the structural checks, each on a transaction that passes all
// the others.
func TestVerify(t *testing.T) {
	ctx := atomic.Context{NetworkID: 12345, ChainID: cChain, AVAXAssetID: avaxID}
	other := ids.ID{7}
	keys := [][]*avax.PrivateKey{{ewoq}}
	tests := []struct {
		name string
		tx   func() *atomic.Tx
		fee  uint64
		want string
	}{
		{"import passes", func() *atomic.Tx { return atomic.Sign(vectorImport(), keys) }, 1_000_000, ""},
		{"export passes", func() *atomic.Tx { return atomic.Sign(vectorExport(), keys) }, 1_000_000, ""},
		{"import fee too high", func() *atomic.Tx { return atomic.Sign(vectorImport(), keys) }, 1_000_001, "insufficient funds: inputs give 5000000 nAVAX, outputs take 4000000 and the fee is 1000001"},
		{"export fee too high", func() *atomic.Tx { return atomic.Sign(vectorExport(), keys) }, 1_000_001, "insufficient funds"},
		{"wrong network", func() *atomic.Tx { u := vectorImport(); u.NetworkID = 1; return atomic.Sign(u, keys) }, 0, "tx is for network 1"},
		{"wrong chain", func() *atomic.Tx { u := vectorExport(); u.BlockchainID = other; return atomic.Sign(u, keys) }, 0, "tx is for chain"},
		{"import from itself", func() *atomic.Tx { u := vectorImport(); u.SourceChain = cChain; return atomic.Sign(u, keys) }, 0, "source chain is this chain"},
		{"export to itself", func() *atomic.Tx { u := vectorExport(); u.DestinationChain = cChain; return atomic.Sign(u, keys) }, 0, "destination chain is this chain"},
		{"no imported inputs", func() *atomic.Tx { u := vectorImport(); u.ImportedIns = nil; return atomic.New(u, nil) }, 0, "no imported inputs"},
		{"no EVM outputs", func() *atomic.Tx { u := vectorImport(); u.Outs = nil; return atomic.Sign(u, keys) }, 0, "no EVM outputs"},
		{"no exported outputs", func() *atomic.Tx { u := vectorExport(); u.ExportedOuts = nil; return atomic.Sign(u, keys) }, 0, "no exported outputs"},
		{"no EVM inputs", func() *atomic.Tx { u := vectorExport(); u.Ins = nil; return atomic.New(u, nil) }, 0, "no EVM inputs"},
		{"other asset out", func() *atomic.Tx { u := vectorImport(); u.Outs[0].AssetID = other; return atomic.Sign(u, keys) }, 0, "only AVAX"},
		{"other asset in", func() *atomic.Tx {
			u := vectorImport()
			u.ImportedIns[0].AssetID = other
			return atomic.Sign(u, keys)
		}, 0, "only AVAX"},
		{"zero output", func() *atomic.Tx { u := vectorImport(); u.Outs[0].Amount = 0; return atomic.Sign(u, keys) }, 0, "output 0 has no value"},
		{"zero input", func() *atomic.Tx { u := vectorExport(); u.Ins[0].Amount = 0; return atomic.Sign(u, keys) }, 0, "input 0 has no value"},
		{"repeated outputs", func() *atomic.Tx {
			u := vectorImport()
			u.Outs = append(u.Outs, u.Outs[0])
			return atomic.Sign(u, keys)
		}, 0, "EVM outputs not sorted and unique"},
		{"repeated inputs", func() *atomic.Tx {
			u := vectorExport()
			u.Ins = append(u.Ins, u.Ins[0])
			return atomic.Sign(u, [][]*avax.PrivateKey{{ewoq}, {ewoq}})
		}, 0, "EVM inputs not sorted and unique"},
		{"repeated imported inputs", func() *atomic.Tx {
			u := vectorImport()
			u.ImportedIns = append(u.ImportedIns, u.ImportedIns[0])
			return atomic.Sign(u, [][]*avax.PrivateKey{{ewoq}, {ewoq}})
		}, 0, "imported inputs not sorted and unique"},
		{"bad exported output", func() *atomic.Tx {
			u := vectorExport()
			u.ExportedOuts[0].Out.Threshold = 2
			return atomic.Sign(u, keys)
		}, 0, "exported output 0: output is unspendable"},
		{"missing credential", func() *atomic.Tx { return atomic.New(vectorImport(), nil) }, 0, "0 credentials for 1 inputs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := atomic.Verify(tt.tx(), ctx, tt.fee)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Verify: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if err := atomic.Verify(atomic.Sign(vectorImport(), keys), ctx, 1_000_001); !errors.Is(err, atomic.ErrInsufficientFunds) {
		t.Fatalf("a fee over the surplus: %v, want ErrInsufficientFunds", err)
	}
}

// TestExportSigners: an export's inputs must each be signed by the key of
// the account they debit, once.
func TestExportSigners(t *testing.T) {
	other := mustKey("0x0000000000000000000000000000000000000000000000000000000000000001")
	if err := atomic.VerifyExportSigners(atomic.Sign(vectorExport(), [][]*avax.PrivateKey{{other}})); err == nil ||
		!strings.Contains(err.Error(), "not by the account") {
		t.Fatalf("signed by another key: %v", err)
	}
	if err := atomic.VerifyExportSigners(atomic.Sign(vectorExport(), [][]*avax.PrivateKey{{ewoq, ewoq}})); err == nil ||
		!strings.Contains(err.Error(), "2 signatures, want 1") {
		t.Fatalf("two signatures: %v", err)
	}
	tx := atomic.Sign(vectorExport(), [][]*avax.PrivateKey{{ewoq}})
	tx.Creds[0].Sigs[0][64] = 7
	if err := atomic.VerifyExportSigners(tx); err == nil || !strings.Contains(err.Error(), "malformed signature") {
		t.Fatalf("bad recovery ID: %v", err)
	}
}
