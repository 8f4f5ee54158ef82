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
		{"createAssetTx", txs.TypeCreateAssetTx},
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
	for _, name := range []string{"baseTx", "exportTx", "importTx", "createAssetTx"} {
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

// TestCreateAssetVector: chainhost builds avalanchego's CreateAssetTx
// from its fields (a mint output and a transfer output, sorted as
// avalanchego sorts them), and its UTXOs, numbered after the change, are
// avalanchego's bytes of the new asset, whose ID is the transaction's.
func TestCreateAssetVector(t *testing.T) {
	v := vectors.LoadX(t)
	key, err := avax.ParsePrivateKey(vectors.EwoqKey)
	if err != nil {
		t.Fatal(err)
	}
	spent, err := txs.Parse(v.Bytes(t, "baseTx"))
	if err != nil {
		t.Fatal(err)
	}
	in := spent.Unsigned.Base().Ins[0]
	owner := avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{key.Address()}}
	u := &txs.CreateAssetTx{
		BaseTx: txs.BaseTx{NetworkID: 12345, BlockchainID: spent.Unsigned.Base().BlockchainID, Memo: []byte("asset"),
			Ins:  []avax.TransferableInput{in},
			Outs: []avax.TransferableOutput{{AssetID: in.AssetID, Out: avax.TransferOutput{Amt: in.In.Amt - 1_000_000, OutputOwners: owner}}}},
		Name: "Test Token", Symbol: "TT", Denomination: 2,
		States: []txs.InitialState{{Outs: []txs.StateOutput{
			{Out: avax.TransferOutput{Amt: 1_000_000, OutputOwners: owner}},
			{Mint: &avax.MintOutput{OutputOwners: owner}},
		}}},
	}
	txs.SortState(u.States[0].Outs)
	tx := txs.Sign(u, [][]*avax.PrivateKey{{key}})
	if got, want := tx.Bytes(), v.Bytes(t, "createAssetTx"); !bytes.Equal(got, want) {
		t.Fatalf("CreateAssetTx bytes:\n got %x\nwant %x", got, want)
	}
	ctx := txs.Context{NetworkID: 12345, ChainID: u.BlockchainID, FeeAssetID: in.AssetID, TxFee: 1, CreateAssetTxFee: 1_000_000}
	if err := txs.Verify(tx, ctx); err != nil {
		t.Fatalf("avalanchego's CreateAssetTx is refused: %v", err)
	}
	utxos := u.UTXOs(tx.ID(), tx.ID())
	for i, name := range []string{"mintUTXO", "assetUTXO"} {
		if got, want := utxos[i].Bytes(), v.Bytes(t, name); !bytes.Equal(got, want) {
			t.Fatalf("%s: bytes %x, want %x", name, got, want)
		}
		if got, want := utxos[i].InputID().String(), v.String(t, name+"ID"); got != want {
			t.Fatalf("%s: ID %s, want %s", name, got, want)
		}
		back, err := avax.ParseUTXO(utxos[i].Bytes())
		if err != nil || !bytes.Equal(back.Bytes(), utxos[i].Bytes()) || (back.Mint != nil) != (name == "mintUTXO") {
			t.Fatalf("%s: parse: %+v, %v", name, back, err)
		}
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
		{"NFT output in an initial state", nftState(t, v.Bytes(t, "createAssetTx")), "output type ID 10 is not supported"},
	} {
		_, err := txs.Parse(c.raw)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// nftState returns a CreateAssetTx's bytes with its mint output's type ID
// (6) made the NFT fx's mint output's (10).
func nftState(t *testing.T, raw []byte) []byte {
	t.Helper()
	tx, err := txs.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := avax.NewPacker(nil)
	tx.Unsigned.(*txs.CreateAssetTx).States[0].Outs[0].Pack(p)
	i := bytes.Index(raw, p.Bytes())
	if i < 0 || p.Bytes()[3] != 6 {
		t.Fatal("no mint output in the CreateAssetTx")
	}
	out := append([]byte{}, raw...)
	out[i+3] = 10
	return out
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
		{name: "create asset", change: asset(nil)},
		{name: "create asset pays its own fee", change: func(b *txs.BaseTx, ctx *txs.Context) txs.Unsigned {
			ctx.CreateAssetTxFee = 5001
			return asset(nil)(b, ctx)
		}, want: "insufficient funds"},
		{name: "asset name empty", change: asset(func(a *txs.CreateAssetTx) { a.Name = "" }), want: "name is empty"},
		{name: "asset name 128", change: asset(func(a *txs.CreateAssetTx) { a.Name = strings.Repeat("a", 128) })},
		{name: "asset name 129", change: asset(func(a *txs.CreateAssetTx) { a.Name = strings.Repeat("a", 129) }), want: "129 bytes"},
		{name: "asset name with a dash", change: asset(func(a *txs.CreateAssetTx) { a.Name = "Test-Token" }), want: "only ASCII letters"},
		{name: "asset name not ASCII", change: asset(func(a *txs.CreateAssetTx) { a.Name = "Tést" }), want: "only ASCII letters"},
		{name: "asset name with outer space", change: asset(func(a *txs.CreateAssetTx) { a.Name = "Test " }), want: "white space"},
		{name: "asset symbol empty", change: asset(func(a *txs.CreateAssetTx) { a.Symbol = "" }), want: "symbol is empty"},
		{name: "asset symbol 5", change: asset(func(a *txs.CreateAssetTx) { a.Symbol = "ABCDE" }), want: "longer than 4"},
		{name: "asset symbol lower case", change: asset(func(a *txs.CreateAssetTx) { a.Symbol = "Tt" }), want: "capital letters"},
		{name: "asset denomination 32", change: asset(func(a *txs.CreateAssetTx) { a.Denomination = 32 })},
		{name: "asset denomination 33", change: asset(func(a *txs.CreateAssetTx) { a.Denomination = 33 }), want: "denomination 33"},
		{name: "asset without initial state", change: asset(func(a *txs.CreateAssetTx) { a.States = nil }), want: "no initial state"},
		{name: "asset state without outputs", change: asset(func(a *txs.CreateAssetTx) { a.States[0].Outs = nil })},
		{name: "asset NFT state", change: asset(func(a *txs.CreateAssetTx) { a.States[0].FxIndex = 1 }), want: "(NFT or property) is not supported"},
		{name: "asset unknown fx", change: asset(func(a *txs.CreateAssetTx) { a.States[0].FxIndex = 3 }), want: "unknown feature extension 3"},
		{name: "asset states twice", change: asset(func(a *txs.CreateAssetTx) { a.States = append(a.States, a.States[0]) }), want: "initial states not sorted and unique"},
		{name: "asset outputs unsorted", change: asset(func(a *txs.CreateAssetTx) {
			a.States[0].Outs[0], a.States[0].Outs[1] = a.States[0].Outs[1], a.States[0].Outs[0]
		}), want: "outputs not sorted"},
		{name: "asset zero output", change: asset(func(a *txs.CreateAssetTx) { a.States[0].Outs[1].Out.Amt = 0 }), want: "initial state 0 output 1: output has no value"},
		{name: "asset mint output unspendable", change: asset(func(a *txs.CreateAssetTx) { a.States[0].Outs[0].Mint.Threshold = 2 }), want: "initial state 0 output 0: output is unspendable"},
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

// asset returns a change of TestVerify's transfer into a valid
// CreateAssetTx (with a mint output and a transfer output), then changed
// by f when f is not nil.
func asset(f func(a *txs.CreateAssetTx)) func(b *txs.BaseTx, ctx *txs.Context) txs.Unsigned {
	return func(b *txs.BaseTx, ctx *txs.Context) txs.Unsigned {
		owner := avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{{1}}}
		a := &txs.CreateAssetTx{BaseTx: *b, Name: "Test Token 2", Symbol: "TT", Denomination: 2,
			States: []txs.InitialState{{Outs: []txs.StateOutput{{Mint: &avax.MintOutput{OutputOwners: owner}}, {Out: avax.TransferOutput{Amt: 7, OutputOwners: owner}}}}}}
		if ctx.CreateAssetTxFee == 0 {
			ctx.CreateAssetTxFee = ctx.TxFee
		}
		if f != nil {
			f(a)
		}
		return a
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
	create := asset(nil)(b, &txs.Context{})
	for _, u := range []txs.Unsigned{b, imp, exp, create} {
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
