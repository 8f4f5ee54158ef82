package utxoapi_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// invalid fails unless err is an invalid-params error that says want.
func invalid(t *testing.T, err error, want string) {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, want) {
		t.Fatalf("error %v, want invalid params saying %q", err, want)
	}
}

// TestParams: IDs, transactions and address lists are read, and bad ones
// refused with a message that names the param.
func TestParams(t *testing.T) {
	id := ids.ID{7}
	if got, err := utxoapi.ParseID("txID", id.String()); err != nil || got != id {
		t.Fatalf("ParseID: %s, %v", got, err)
	}
	_, err := utxoapi.ParseID("txID", "")
	invalid(t, err, `"txID" is required`)
	_, err = utxoapi.ParseID("txID", "nope")
	invalid(t, err, `"txID":`)

	tx := []byte{0, 0, 1, 2, 3}
	if got, err := (utxoapi.IssueTxArgs{Tx: ids.HexWithChecksum(tx)}).TxBytes(); err != nil || string(got) != string(tx) {
		t.Fatalf("TxBytes: %x, %v", got, err)
	}
	_, err = utxoapi.IssueTxArgs{}.TxBytes()
	invalid(t, err, `"tx" is required`)
	_, err = utxoapi.IssueTxArgs{Tx: "0x00"}.TxBytes()
	invalid(t, err, `"tx":`)

	invalid(t, utxoapi.CheckAddressCount("addresses", nil), `"addresses" must name at least one address`)
	invalid(t, utxoapi.CheckAddressCount("addresses", make([]string, utxoapi.MaxAddrs+1)), "more than 1024")
	if err := utxoapi.CheckAddressCount("addresses", make([]string, utxoapi.MaxAddrs)); err != nil {
		t.Fatal(err)
	}

	// CB58 short IDs read without the chain; the list comes back sorted
	// and unique.
	var c utxoapi.Chain
	a, b := avax.ShortID{2}, avax.ShortID{1}
	got, err := c.ParseAddressList(context.Background(), "addresses", []string{a.String(), b.String(), a.String()})
	if err != nil || len(got) != 2 || got[0] != b || got[1] != a {
		t.Fatalf("ParseAddressList: %v, %v; want [%s %s]", got, err, b, a)
	}
}

// TestPage: no startIndex is the first page, the limit is capped, and the
// reply counts and encodes what it holds.
func TestPage(t *testing.T) {
	var c utxoapi.Chain
	ctx := context.Background()
	p, err := c.ParsePage(ctx, utxoapi.GetUTXOsArgs{})
	if err != nil || p.Limit != utxoapi.MaxPage || !p.StartAddr.IsZero() || p.StartUTXO != (ids.ID{}) {
		t.Fatalf("first page: %+v, %v", p, err)
	}
	start := utxoapi.Index{Address: avax.ShortID{3}.String(), UTXO: ids.ID{4}.String()}
	p, err = c.ParsePage(ctx, utxoapi.GetUTXOsArgs{Limit: 5000, StartIndex: start})
	if err != nil || p.Limit != utxoapi.MaxPage || p.StartAddr != (avax.ShortID{3}) || p.StartUTXO != (ids.ID{4}) {
		t.Fatalf("page after %+v: %+v, %v", start, p, err)
	}
	if p, err = c.ParsePage(ctx, utxoapi.GetUTXOsArgs{Limit: 3}); err != nil || p.Limit != 3 {
		t.Fatalf("limit 3: %+v, %v", p, err)
	}
	_, err = c.ParsePage(ctx, utxoapi.GetUTXOsArgs{StartIndex: utxoapi.Index{Address: start.Address}})
	invalid(t, err, `"startIndex.utxo" is required`)

	r := utxoapi.NewGetUTXOsReply(avax.EncHex, [][]byte{{1}, {2}}, "X-end", ids.ID{9})
	if r.NumFetched != 2 || len(r.UTXOs) != 2 || r.UTXOs[1] != ids.HexWithChecksum([]byte{2}) || r.EndIndex.Address != "X-end" || r.EndIndex.UTXO != (ids.ID{9}).String() || r.Encoding != avax.EncHex {
		t.Fatalf("reply %+v", r)
	}
}

// rawTx is a transaction of the test's chain.
type rawTx []byte

func (t rawTx) Bytes() []byte { return t }

// TestGetTx: an accepted transaction in hex and in JSON, a miss, and the
// three statuses.
func TestGetTx(t *testing.T) {
	ctx := context.Background()
	known := ids.ID{5}
	find := func(_ context.Context, id ids.ID) (rawTx, bool, error) { return rawTx{1, 2}, id == known, nil }
	asJSON := func(t rawTx) any { return map[string]int{"len": len(t)} }
	r, err := utxoapi.GetTx(ctx, utxoapi.GetTxArgs{TxID: known.String()}, find, asJSON)
	if err != nil || string(r.Tx) != `"`+ids.HexWithChecksum([]byte{1, 2})+`"` || r.Encoding != avax.EncHex {
		t.Fatalf("getTx hex: %s %s, %v", r.Tx, r.Encoding, err)
	}
	r, err = utxoapi.GetTx(ctx, utxoapi.GetTxArgs{TxID: known.String(), Encoding: "json"}, find, asJSON)
	if err != nil || string(r.Tx) != `{"len":2}` || r.Encoding != avax.EncJSON {
		t.Fatalf("getTx json: %s %s, %v", r.Tx, r.Encoding, err)
	}
	if _, err := utxoapi.GetTx(ctx, utxoapi.GetTxArgs{TxID: ids.ID{6}.String()}, find, asJSON); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("getTx of an unknown tx: %v", err)
	}
	_, err = utxoapi.GetTx(ctx, utxoapi.GetTxArgs{}, find, asJSON)
	invalid(t, err, `"txID" is required`)

	accepted := func(_ context.Context, id ids.ID) (bool, error) { return id == known, nil }
	waiting := func(id ids.ID) bool { return id == ids.ID{6} }
	for id, want := range map[ids.ID]string{known: "Committed", {6}: "Processing", {7}: "Unknown"} {
		r, err := utxoapi.GetTxStatus(ctx, utxoapi.GetTxStatusArgs{TxID: id.String()}, "Committed", accepted, waiting)
		if err != nil || r.Status != want {
			t.Fatalf("status of %s: %q, %v; want %q", id, r.Status, err, want)
		}
	}
}
