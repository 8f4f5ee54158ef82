package txs_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	vectors "github.com/chainhost/chainhost/avax/avaxvectors"
	"github.com/chainhost/chainhost/plugins/xvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestAvalanchegoVectors: transactions that avalanchego v1.14.2 built and
// signed parse, re-encode to the same bytes and get avalanchego's IDs.
func TestAvalanchegoVectors(t *testing.T) {
	v := vectors.LoadX(t)
	for _, c := range []struct {
		name string
		kind uint32
	}{
		{"genesisTx", txs.TypeCreateAssetTx},
		{"baseTx", txs.TypeBaseTx},
		{"exportTx", txs.TypeExportTx},
		{"importTx", txs.TypeImportTx},
	} {
		raw := v.Bytes(t, c.name)
		tx, err := txs.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tx.Unsigned.TypeID() != c.kind {
			t.Fatalf("%s: type %d, want %d", c.name, tx.Unsigned.TypeID(), c.kind)
		}
		if !bytes.Equal(tx.Bytes(), raw) {
			t.Fatalf("%s: re-encoded bytes differ", c.name)
		}
		idName := strings.TrimSuffix(c.name, "Tx") + "TxID"
		if c.name == "genesisTx" {
			idName = "assetID"
		}
		if got, want := tx.ID().String(), v.String(t, idName); got != want {
			t.Fatalf("%s: ID %s, want %s", c.name, got, want)
		}
		if !bytes.HasPrefix(raw, tx.UnsignedBytes()) {
			t.Fatalf("%s: unsigned bytes are not a prefix of the signed bytes", c.name)
		}
	}
}

// TestSignMatchesAvalanchego: signing the vector's unsigned BaseTx with the
// ewoq key gives avalanchego's bytes exactly (RFC 6979 nonces).
func TestSignMatchesAvalanchego(t *testing.T) {
	v := vectors.LoadX(t)
	for _, name := range []string{"baseTx", "exportTx", "importTx"} {
		want := v.Bytes(t, name)
		parsed, err := txs.Parse(want)
		if err != nil {
			t.Fatal(err)
		}
		key, err := avax.ParsePrivateKey(vectors.EwoqKey)
		if err != nil {
			t.Fatal(err)
		}
		signed := txs.Sign(parsed.Unsigned, [][]*avax.PrivateKey{{key}})
		if !bytes.Equal(signed.Bytes(), want) {
			t.Fatalf("%s: signed bytes differ:\n got %x\nwant %x", name, signed.Bytes(), want)
		}
	}
}

// TestExportedUTXO: the UTXO an export makes is avalanchego's bytes, with
// its ID.
func TestExportedUTXO(t *testing.T) {
	v := vectors.LoadX(t)
	tx, err := txs.Parse(v.Bytes(t, "exportTx"))
	if err != nil {
		t.Fatal(err)
	}
	e := tx.Unsigned.(*txs.ExportTx)
	u := avax.UTXO{UTXOID: avax.UTXOID{TxID: tx.ID(), OutputIndex: uint32(len(e.Outs))}, AssetID: e.ExportedOuts[0].AssetID, Out: e.ExportedOuts[0].Out}
	if got, want := u.Bytes(), v.Bytes(t, "exportUTXO"); !bytes.Equal(got, want) {
		t.Fatalf("UTXO bytes %x, want %x", got, want)
	}
	if got, want := u.InputID().String(), v.String(t, "exportUTXOID"); got != want {
		t.Fatalf("UTXO ID %s, want %s", got, want)
	}
	back, err := avax.ParseUTXO(u.Bytes())
	if err != nil || back.InputID() != u.InputID() || back.Out.Amt != 5000 {
		t.Fatalf("parse UTXO: %+v, %v", back, err)
	}
}

// TestParseRejects: malformed bytes are refused with a reason.
func TestParseRejects(t *testing.T) {
	v := vectors.LoadX(t)
	good := v.Bytes(t, "baseTx")
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "need 2 bytes"},
		{"trailing byte", append(append([]byte{}, good...), 0), "trailing bytes"},
		{"truncated", good[:len(good)-1], "cannot fit"},
		{"codec version 1", mutate(func(b []byte) []byte { b[1] = 1; return b }), "codec version 1"},
		{"operation tx", mutate(func(b []byte) []byte { b[5] = 2; return b }), "operation transactions"},
		{"unknown type", mutate(func(b []byte) []byte { b[5] = 0x33; return b }), "unknown transaction type ID 51"},
		{"huge slice", mutate(func(b []byte) []byte { copy(b[42:46], []byte{0x7f, 0xff, 0xff, 0xff}); return b }), "cannot fit"},
	} {
		_, err := txs.Parse(c.raw)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// transfer returns a valid signed BaseTx spending one UTXO of amount in to
// two outputs, and its context.
func transfer(t *testing.T, in, out uint64) (*txs.BaseTx, txs.Context, *avax.PrivateKey) {
	t.Helper()
	key, err := avax.ParsePrivateKey(vectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	asset := ids.ID{0xaa}
	ctx := txs.Context{NetworkID: 12345, ChainID: ids.ID{1}, FeeAssetID: asset, TxFee: 1000}
	b := &txs.BaseTx{
		NetworkID: 12345, BlockchainID: ids.ID{1},
		Outs: []avax.TransferableOutput{
			{AssetID: asset, Out: avax.TransferOutput{Amt: out, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{{1}}}}},
		},
		Ins: []avax.TransferableInput{
			{UTXOID: avax.UTXOID{TxID: ids.ID{5}}, AssetID: asset, In: avax.TransferInput{Amt: in, SigIndices: []uint32{0}}},
		},
	}
	return b, ctx, key
}

// TestVerify: the structural rules, each broken once.
func TestVerify(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(b *txs.BaseTx, ctx *txs.Context) txs.Unsigned
		creds  int
		want   string
	}{
		{name: "valid", want: ""},
		{name: "fee exactly covered", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned { b.Outs[0].Out.Amt = 9000; return b }},
		{name: "fee not covered", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned { b.Outs[0].Out.Amt = 9001; return b }, want: "insufficient funds"},
		{name: "other network", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned { b.NetworkID = 1; return b }, want: "network 1"},
		{name: "other chain", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned { b.BlockchainID = ids.ID{2}; return b }, want: "is for chain"},
		{name: "long memo", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned { b.Memo = make([]byte, 257); return b }, want: "memo of 257"},
		{name: "zero output", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned { b.Outs[0].Out.Amt = 0; return b }, want: "no value"},
		{name: "unsorted outputs", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned {
			o := b.Outs[0]
			o.Out.Amt = 1
			b.Outs = append(b.Outs, o)
			return b
		}, want: "outputs not sorted"},
		{name: "duplicate inputs", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned {
			b.Ins = append(b.Ins, b.Ins[0])
			return b
		}, creds: 2, want: "inputs not sorted and unique"},
		{name: "unsorted signature indices", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned {
			b.Ins[0].In.SigIndices = []uint32{1, 0}
			return b
		}, want: "signature indices"},
		{name: "missing credential", creds: -1, want: "0 credentials for 1 inputs"},
		{name: "export without exported outputs", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned {
			return &txs.ExportTx{BaseTx: *b, Export: avax.Export{DestinationChain: ids.ID{3}}}
		}, want: "no exported outputs"},
		{name: "import without imported inputs", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned {
			return &txs.ImportTx{BaseTx: *b, Import: avax.Import{SourceChain: ids.ID{3}}}
		}, want: "no imported inputs"},
		{name: "create asset", change: func(b *txs.BaseTx, _ *txs.Context) txs.Unsigned {
			return &txs.CreateAssetTx{BaseTx: *b, Name: "x", Symbol: "X"}
		}, want: "not supported"},
	} {
		b, ctx, key := transfer(t, 10000, 5000)
		var u txs.Unsigned = b
		if c.change != nil {
			u = c.change(b, &ctx)
		}
		n := 1 + c.creds
		if c.creds > 0 {
			n = c.creds
		}
		keys := make([][]*avax.PrivateKey, n)
		for i := range keys {
			keys[i] = []*avax.PrivateKey{key}
		}
		err := txs.Verify(txs.Sign(u, keys), ctx)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestFlowBurns: what inputs give beyond outputs is burned, fee included.
func TestFlowBurns(t *testing.T) {
	b, ctx, _ := transfer(t, 10000, 5000)
	burned, err := txs.Flow(ctx.FeeAssetID, ctx.TxFee, [][]avax.TransferableInput{b.Ins}, [][]avax.TransferableOutput{b.Outs})
	if err != nil || burned[ctx.FeeAssetID] != 5000 {
		t.Fatalf("burned %v, %v; want 5000", burned, err)
	}
	_, err = txs.Flow(ctx.FeeAssetID, 6000, [][]avax.TransferableInput{b.Ins}, [][]avax.TransferableOutput{b.Outs})
	if !errors.Is(err, txs.ErrInsufficientFunds) {
		t.Fatalf("fee 6000: %v", err)
	}
}

// TestRoundTrip: every transaction type encodes and parses back to itself.
func TestRoundTrip(t *testing.T) {
	b, _, key := transfer(t, 10000, 5000)
	b.Memo = []byte("memo")
	imp := &txs.ImportTx{BaseTx: *b, Import: avax.Import{SourceChain: ids.ID{3}, ImportedIns: b.Ins}}
	exp := &txs.ExportTx{BaseTx: *b, Export: avax.Export{DestinationChain: ids.ID{4}, ExportedOuts: b.Outs}}
	for _, u := range []txs.Unsigned{b, imp, exp} {
		keys := make([][]*avax.PrivateKey, u.NumInputs())
		for i := range keys {
			keys[i] = []*avax.PrivateKey{key}
		}
		tx := txs.Sign(u, keys)
		back, err := txs.Parse(tx.Bytes())
		if err != nil {
			t.Fatalf("%T: %v", u, err)
		}
		if back.ID() != tx.ID() || hex.EncodeToString(back.Bytes()) != hex.EncodeToString(tx.Bytes()) {
			t.Fatalf("%T: round trip changed the tx", u)
		}
	}
}
