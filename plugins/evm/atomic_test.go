package evm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/evm"
	atx "github.com/chainhost/chainhost/plugins/evm/atomic"
	"github.com/chainhost/chainhost/plugins/evm/atomic/client"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The X-Chain of the atomic tests: its ID and the AVAX asset it answers
// for.
var (
	testXChain = ids.ID{0x58}
	testAVAX   = ids.ID{0xa1, 0xa1}
)

// atomicChain is a C-Chain in the plugintest harness beside an X-Chain
// that exists only in the chain registry (its shared memory is the
// harness's), with a wallet of the local key.
type atomicChain struct {
	*testChain
	wallet *client.Wallet
	key    *avax.PrivateKey
}

// startAtomicChain runs the VM as the C-Chain of network 12345 with the
// config JSON merged in; the AVAX asset comes from the X-Chain's
// avm.getAssetDescription, answered here.
func startAtomicChain(t *testing.T, config string) *atomicChain {
	t.Helper()
	cfg := map[string]any{"cache-mb": 16, "log-level": "warn", "dev-api-enabled": true}
	if config != "" {
		var extra map[string]any
		if err := json.Unmarshal([]byte(config), &extra); err != nil {
			t.Fatal(err)
		}
		for k, v := range extra {
			cfg[k] = v
		}
	}
	raw, _ := json.Marshal(cfg)
	h := plugintest.Start(t, evm.New(), plugintest.Options{Name: "C", NetworkID: 12345,
		Genesis: []byte(testGenesis(43112)), Config: raw,
		Chains: []host.ChainInfo{{ID: testXChain, Aliases: []string{"X"}, Running: true}},
		Call: func(_ context.Context, chain host.ChainInfo, handler string, body []byte) (int, []byte, error) {
			if chain.ID != testXChain || handler != "" || !strings.Contains(string(body), "avm.getAssetDescription") {
				return 0, nil, fmt.Errorf("unexpected call to %s/%s: %s", chain.ID, handler, body)
			}
			return 200, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"result":{"assetID":%q,"symbol":"AVAX","denomination":"9"}}`, testAVAX), nil
		}})
	c, err := rpc.Dial(h.URL("rpc"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	key, err := avax.ParsePrivateKey(localKeyHex)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewEndpoints(h.URL("avax"), h.URL("rpc"), h.URL("admin"), "C", nil)
	w := &client.Wallet{Client: cl, Key: key, Ctx: client.Context{NetworkID: 12345, ChainID: h.ChainID(), AVAXAssetID: testAVAX}}
	return &atomicChain{testChain: &testChain{h: h, rpc: c, client: ethclient.NewClient(c)}, wallet: w, key: key}
}

// exportFromX puts in shared memory, as the X-Chain's export would, a
// UTXO of amount nAVAX for owner, and returns it.
func (c *atomicChain) exportFromX(t *testing.T, n byte, amount uint64, owner avax.ShortID) avax.UTXO {
	t.Helper()
	u := avax.UTXO{UTXOID: avax.UTXOID{TxID: ids.ID{0xee, n}, OutputIndex: 1}, AssetID: testAVAX,
		Out: avax.TransferOutput{Amt: amount, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{owner}}}}
	id := u.InputID()
	if err := c.h.PutShared(testXChain, c.h.ChainID(), host.SharedElement{Key: id[:], Value: u.Bytes(), Traits: [][]byte{owner[:]}}); err != nil {
		t.Fatal(err)
	}
	return u
}

// native calls a chain-native method and decodes its result.
func (c *atomicChain) native(t *testing.T, method string, params, out any) error {
	t.Helper()
	return jsonrpc.Call(t.Context(), nil, c.h.URL("native"), "native."+method, params, out)
}

// issue issues tx and returns its ID, failing the test on an error.
func (c *atomicChain) issue(t *testing.T, tx *atx.Tx) ids.ID {
	t.Helper()
	id, err := c.wallet.Client.IssueTx(t.Context(), tx.Bytes())
	if err != nil {
		t.Fatalf("issue %s: %v", tx.ID(), err)
	}
	if id != tx.ID() {
		t.Fatalf("issueTx answered %s, the tx is %s", id, tx.ID())
	}
	return id
}

// accepted waits for tx to be accepted and returns the height of its
// block.
func (c *atomicChain) accepted(t *testing.T, id ids.ID) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h, err := c.wallet.Client.WaitAccepted(ctx, id)
	if err != nil {
		t.Fatalf("wait for %s: %v", id, err)
	}
	return h
}

func (c *atomicChain) balance(t *testing.T, addr common.Address, block *big.Int) *big.Int {
	t.Helper()
	b, err := c.client.BalanceAt(t.Context(), addr, block)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// nAVAX returns n nAVAX in wei.
func nAVAX(n uint64) *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(n), big.NewInt(atx.X2CRate))
}

// TestAtomicImportExport: an import credits the EVM balance with the
// amount less the fee, scaled exactly, consumes the UTXO from shared memory
// when its block is reported and is then Accepted at that block's height;
// an export debits the balance, advances the nonce and puts its UTXO in
// shared memory for the destination; both are read back with getAtomicTx;
// the blocks around them trace and answer balances at older heights.
func TestAtomicImportExport(t *testing.T) {
	c := startAtomicChain(t, `{"block-production": "auto"}`)
	ctx := t.Context()
	me := c.key.Address()
	recv, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := crypto.PubkeyToAddress(recv.PublicKey)
	u := c.exportFromX(t, 1, 10_000_000_000, me)

	// getUTXOs lists it for the key's C-Chain address.
	var page struct {
		NumFetched jsonrpc.Uint64 `json:"numFetched"`
		UTXOs      []string       `json:"utxos"`
		EndIndex   struct{ Address, UTXO string }
		Encoding   string `json:"encoding"`
	}
	if err := c.native(t, "getUTXOs", map[string]any{"addresses": []string{c.wallet.Address()}, "sourceChain": "X"}, &page); err != nil {
		t.Fatal(err)
	}
	if page.NumFetched != 1 || len(page.UTXOs) != 1 || page.Encoding != "hex" || page.EndIndex.Address != c.wallet.Address() ||
		page.EndIndex.UTXO != u.InputID().String() {
		t.Fatalf("getUTXOs = %+v", page)
	}
	if b, err := ids.DecodeHexWithChecksum(page.UTXOs[0]); err != nil || string(b) != string(u.Bytes()) {
		t.Fatalf("getUTXOs UTXO %s (%v), want the exported one", page.UTXOs[0], err)
	}

	imp, err := c.wallet.BuildImport(ctx, "X", testXChain, to)
	if err != nil {
		t.Fatal(err)
	}
	fee, err := atx.Burned(imp)
	if err != nil || fee == 0 {
		t.Fatalf("import burns %d (%v)", fee, err)
	}
	before, _ := c.client.BlockNumber(ctx)
	height := c.accepted(t, c.issue(t, imp))
	if got, want := c.balance(t, to, nil), nAVAX(10_000_000_000-fee); got.Cmp(want) != 0 {
		t.Fatalf("balance after the import %s wei, want exactly %s", got, want)
	}
	if left := c.h.Shared(testXChain, c.h.ChainID()); len(left) != 0 {
		t.Fatalf("shared memory holds %d values after the import, want none", len(left))
	}
	// The block that holds it commits to its batch and is in the index.
	blk, err := c.client.BlockByNumber(ctx, new(big.Int).SetUint64(height))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := common.BytesToHash(blk.Extra()), atx.BatchHash(atx.EncodeBatch([]*atx.Tx{imp})); got != want {
		t.Fatalf("block %d extra data %s, want the batch hash %s", height, got, want)
	}
	if cts := c.h.Containers(evm.Kind); uint64(len(cts)) < height || common.Hash(cts[height-1].ID) != blk.Hash() {
		t.Fatalf("index lacks block %d", height)
	}
	// getAtomicTx and the status say where.
	var got struct {
		Tx          string          `json:"tx"`
		Encoding    string          `json:"encoding"`
		BlockHeight *jsonrpc.Uint64 `json:"blockHeight"`
	}
	if err := c.native(t, "getAtomicTx", map[string]string{"txID": imp.ID().String()}, &got); err != nil {
		t.Fatal(err)
	}
	if raw, err := ids.DecodeHexWithChecksum(got.Tx); err != nil || string(raw) != string(imp.Bytes()) || got.BlockHeight == nil || uint64(*got.BlockHeight) != height {
		t.Fatalf("getAtomicTx = %+v (%v)", got, err)
	}
	// Balances at older heights stay as they were.
	if b := c.balance(t, to, new(big.Int).SetUint64(before)); b.Sign() != 0 {
		t.Fatalf("balance before the import's block %s, want 0", b)
	}

	// Export from the receiver: debit, nonce, shared memory for X.
	rk, err := avax.PrivateKeyFromBytes(crypto.FromECDSA(recv))
	if err != nil {
		t.Fatal(err)
	}
	rw := &client.Wallet{Client: c.wallet.Client, Key: rk, Ctx: c.wallet.Ctx}
	exp, err := rw.BuildExport(ctx, testXChain, 3_000_000_000, me)
	if err != nil {
		t.Fatal(err)
	}
	expFee, _ := atx.Burned(exp)
	eh := c.accepted(t, c.issue(t, exp))
	if got, want := c.balance(t, to, nil), nAVAX(10_000_000_000-fee-3_000_000_000-expFee); got.Cmp(want) != 0 {
		t.Fatalf("balance after the export %s wei, want exactly %s", got, want)
	}
	if n, err := c.client.NonceAt(ctx, to, nil); err != nil || n != 1 {
		t.Fatalf("nonce after the export %d (%v), want 1", n, err)
	}
	out := c.h.Shared(c.h.ChainID(), testXChain)
	want := exp.ExportedUTXOs()[0]
	if wid := want.InputID(); len(out) != 1 || string(out[0].Key) != string(wid[:]) || string(out[0].Value) != string(want.Bytes()) ||
		len(out[0].Traits) != 1 || string(out[0].Traits[0]) != string(me[:]) {
		t.Fatalf("shared memory for X: %+v, want the exported UTXO", out)
	}
	// The blocks around the atomic effects trace, and the chain built on
	// them keeps working.
	for _, n := range []uint64{height, eh} {
		var trace []json.RawMessage
		if err := c.rpc.CallContext(ctx, &trace, "debug_traceBlockByNumber", hexutil.EncodeUint64(n), map[string]string{"tracer": "callTracer"}); err != nil {
			t.Fatalf("debug_traceBlockByNumber %d: %v", n, err)
		}
	}
	tx := transfer(t, ctx, c.client, localKey(t), 0, to, big.NewInt(1))
	r := waitReceipt(t, ctx, c.client, tx.Hash())
	var trace []json.RawMessage
	if err := c.rpc.CallContext(ctx, &trace, "debug_traceBlockByNumber", hexutil.EncodeUint64(r.BlockNumber.Uint64()), map[string]string{"tracer": "prestateTracer"}); err != nil || len(trace) != 1 {
		t.Fatalf("trace of the block after: %d (%v)", len(trace), err)
	}

	// Each block lists its atomic transactions, as getAtomicTx writes
	// them: bytes, or their JSON, whose export outputs carry the
	// destination's alias.
	c.checkBlockTxs(t, height, imp)
	c.checkBlockTxs(t, eh, exp)
	c.checkBlockTxs(t, r.BlockNumber.Uint64())
	c.checkBlockTxs(t, 0)
	var impJSON struct {
		ID       ids.ID `json:"id"`
		Unsigned struct {
			SourceChain    ids.ID `json:"sourceChain"`
			ImportedInputs []struct {
				TxID        ids.ID `json:"txID"`
				OutputIndex uint32 `json:"outputIndex"`
				Input       struct{ Amount uint64 }
			} `json:"importedInputs"`
			Outputs []struct {
				Address common.Address
				Amount  uint64
				AssetID ids.ID
			} `json:"outputs"`
		} `json:"unsignedTx"`
		Credentials []struct{ Signatures []string } `json:"credentials"`
	}
	c.atomicTxJSON(t, imp.ID(), &impJSON)
	if u := impJSON.Unsigned; impJSON.ID != imp.ID() || u.SourceChain != testXChain || len(u.ImportedInputs) != 1 || u.ImportedInputs[0].TxID != (ids.ID{0xee, 1}) ||
		u.ImportedInputs[0].OutputIndex != 1 || u.ImportedInputs[0].Input.Amount != 10_000_000_000 ||
		len(u.Outputs) != 1 || u.Outputs[0].Address != to || u.Outputs[0].Amount != 10_000_000_000-fee || u.Outputs[0].AssetID != testAVAX ||
		len(impJSON.Credentials) != 1 || len(impJSON.Credentials[0].Signatures) != 1 {
		t.Errorf("getAtomicTx of the import in JSON = %+v", impJSON)
	}
	var expJSON struct {
		Unsigned struct {
			DestinationChain ids.ID `json:"destinationChain"`
			Inputs           []struct {
				Address common.Address
				Amount  uint64
				Nonce   uint64
			} `json:"inputs"`
			ExportedOutputs []struct {
				Output struct {
					Addresses []string
					Amount    uint64
				}
			} `json:"exportedOutputs"`
		} `json:"unsignedTx"`
	}
	c.atomicTxJSON(t, exp.ID(), &expJSON)
	if u := expJSON.Unsigned; u.DestinationChain != testXChain || len(u.Inputs) != 1 || u.Inputs[0].Address != to ||
		u.Inputs[0].Amount != 3_000_000_000+expFee || u.Inputs[0].Nonce != 0 || len(u.ExportedOutputs) != 1 ||
		u.ExportedOutputs[0].Output.Amount != 3_000_000_000 || len(u.ExportedOutputs[0].Output.Addresses) != 1 ||
		u.ExportedOutputs[0].Output.Addresses[0] != strings.Replace(c.wallet.Address(), "C-", "X-", 1) {
		t.Errorf("getAtomicTx of the export in JSON = %+v", expJSON)
	}
	// Bad params name the param; a block the chain lacks says how far it goes.
	head, _ := c.client.BlockNumber(ctx)
	for _, bad := range []struct {
		params any
		code   int
		msg    string
	}{
		{map[string]any{}, -32602, `"blockHeight" is required`},
		{map[string]any{"blockHeight": 1, "encoding": "cb58"}, -32602, `"encoding" must be hex, hexc, hexnc or json, got "cb58"`},
		{map[string]any{"blockHeight": -1}, -32602, `blockHeight`},
		{map[string]any{"blockHeight": head + 1}, -32000, fmt.Sprintf("block %d not found: the chain's last block is %d", head+1, head)},
	} {
		var rpcErr *jsonrpc.Error
		if err := c.native(t, "getBlockAtomicTxs", bad.params, nil); !errors.As(err, &rpcErr) || rpcErr.Code != bad.code || !strings.Contains(rpcErr.Message, bad.msg) {
			t.Errorf("getBlockAtomicTxs %v = %v, want %d %q", bad.params, err, bad.code, bad.msg)
		}
	}
}

// checkBlockTxs checks that getBlockAtomicTxs lists want at height, in
// hex (the bytes) and in JSON (as getAtomicTx writes each).
func (c *atomicChain) checkBlockTxs(t *testing.T, height uint64, want ...*atx.Tx) {
	t.Helper()
	var hexed, asJSON struct {
		Txs      []json.RawMessage `json:"txs"`
		Encoding string            `json:"encoding"`
	}
	if err := c.native(t, "getBlockAtomicTxs", map[string]any{"blockHeight": height}, &hexed); err != nil {
		t.Fatalf("getBlockAtomicTxs %d: %v", height, err)
	}
	if err := c.native(t, "getBlockAtomicTxs", map[string]any{"blockHeight": fmt.Sprint(height), "encoding": "json"}, &asJSON); err != nil {
		t.Fatalf("getBlockAtomicTxs %d json: %v", height, err)
	}
	if hexed.Encoding != "hex" || asJSON.Encoding != "json" || len(hexed.Txs) != len(want) || len(asJSON.Txs) != len(want) {
		t.Fatalf("getBlockAtomicTxs %d = %s / %s, want %d transactions", height, hexed.Txs, asJSON.Txs, len(want))
	}
	for i, tx := range want {
		var s string
		if err := json.Unmarshal(hexed.Txs[i], &s); err != nil {
			t.Fatal(err)
		}
		if b, err := ids.DecodeHexWithChecksum(s); err != nil || string(b) != string(tx.Bytes()) {
			t.Errorf("getBlockAtomicTxs %d tx %d = %s (%v), want the bytes of %s", height, i, s, err, tx.ID())
		}
		var one struct {
			Tx json.RawMessage `json:"tx"`
		}
		if err := c.native(t, "getAtomicTx", map[string]string{"txID": tx.ID().String(), "encoding": "json"}, &one); err != nil {
			t.Fatal(err)
		}
		if string(one.Tx) != string(asJSON.Txs[i]) {
			t.Errorf("getBlockAtomicTxs %d tx %d in JSON = %s, getAtomicTx = %s", height, i, asJSON.Txs[i], one.Tx)
		}
	}
}

// atomicTxJSON reads getAtomicTx's JSON of id into out.
func (c *atomicChain) atomicTxJSON(t *testing.T, id ids.ID, out any) {
	t.Helper()
	var got struct {
		Tx       json.RawMessage `json:"tx"`
		Encoding string          `json:"encoding"`
	}
	if err := c.native(t, "getAtomicTx", map[string]string{"txID": id.String(), "encoding": "json"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Encoding != "json" {
		t.Fatalf("getAtomicTx %s json: encoding %q", id, got.Encoding)
	}
	if err := json.Unmarshal(got.Tx, out); err != nil {
		t.Fatalf("getAtomicTx %s json: %v: %s", id, err, got.Tx)
	}
}

// TestAtomicRefused: imports and exports that cannot apply are refused at
// issue with an error that says why, and change nothing.
func TestAtomicRefused(t *testing.T) {
	c := startAtomicChain(t, `{"block-production": "auto"}`)
	ctx := t.Context()
	me := c.key.Address()
	c.exportFromX(t, 1, 5_000_000_000, me)
	imp, err := c.wallet.BuildImport(ctx, "X", testXChain, localAddr)
	if err != nil {
		t.Fatal(err)
	}
	c.accepted(t, c.issue(t, imp))
	sign := func(u atx.Unsigned, k *avax.PrivateKey) *atx.Tx { return atx.Sign(u, [][]*avax.PrivateKey{{k}}) }
	other, _ := avax.ParsePrivateKey("0x0000000000000000000000000000000000000000000000000000000000000002")
	tests := []struct {
		name string
		tx   func(t *testing.T) *atx.Tx
		want string
	}{
		{"double import", func(*testing.T) *atx.Tx { return imp }, "it is accepted already"},
		{"UTXO imported by another tx", func(t *testing.T) *atx.Tx {
			u := *imp.Unsigned.(*atx.ImportTx)
			u.Outs = []atx.EVMOutput{{Address: localAddr, Amount: u.Outs[0].Amount - 1, AssetID: testAVAX}}
			return sign(&u, c.key)
		}, "was imported already, by tx " + imp.ID().String()},
		{"UTXO never exported", func(t *testing.T) *atx.Tx {
			u := *imp.Unsigned.(*atx.ImportTx)
			u.ImportedIns = []avax.TransferableInput{u.ImportedIns[0]}
			u.ImportedIns[0].OutputIndex = 9
			return sign(&u, c.key)
		}, "is not in shared memory"},
		{"credential of another key", func(t *testing.T) *atx.Tx {
			u := c.exportFromX(t, 2, 5_000_000_000, me)
			tx, err := c.wallet.BuildImport(ctx, "X", testXChain, localAddr)
			if err != nil || tx.Unsigned.(*atx.ImportTx).ImportedIns[0].UTXOID != u.UTXOID {
				t.Fatalf("build: %v", err)
			}
			return sign(tx.Unsigned, other)
		}, "not by the UTXO's owner"},
		{"amounts do not balance after the fee", func(t *testing.T) *atx.Tx {
			tx, err := c.wallet.BuildImport(ctx, "X", testXChain, localAddr)
			if err != nil {
				t.Fatal(err)
			}
			u := *tx.Unsigned.(*atx.ImportTx)
			u.Outs = []atx.EVMOutput{{Address: localAddr, Amount: 5_000_000_000, AssetID: testAVAX}}
			return sign(&u, c.key)
		}, "insufficient funds"},
		{"export over the balance", func(t *testing.T) *atx.Tx {
			rk, _ := avax.ParsePrivateKey("0x0000000000000000000000000000000000000000000000000000000000000003")
			u := &atx.ExportTx{NetworkID: 12345, BlockchainID: c.h.ChainID(), DestinationChain: testXChain,
				Ins: []atx.EVMInput{{Address: client.EVMAddress(rk), Amount: 2_000_000, AssetID: testAVAX}},
				ExportedOuts: []avax.TransferableOutput{{AssetID: testAVAX, Out: avax.TransferOutput{Amt: 1_000_000,
					OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{me}}}}}}
			return sign(u, rk)
		}, "holds 0 wei, the input takes 2000000000000000"},
		{"export at a wrong nonce", func(t *testing.T) *atx.Tx {
			u := &atx.ExportTx{NetworkID: 12345, BlockchainID: c.h.ChainID(), DestinationChain: testXChain,
				Ins: []atx.EVMInput{{Address: localAddr, Amount: 2_000_000, AssetID: testAVAX, Nonce: 7}},
				ExportedOuts: []avax.TransferableOutput{{AssetID: testAVAX, Out: avax.TransferOutput{Amt: 1_000_000,
					OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{me}}}}}}
			return sign(u, c.key)
		}, "is at nonce 0, the input is for nonce 7"},
		{"export signed by another key", func(t *testing.T) *atx.Tx {
			tx, err := c.wallet.BuildExport(ctx, testXChain, 1_000_000, me)
			if err != nil {
				t.Fatal(err)
			}
			return sign(tx.Unsigned, other)
		}, "not by the account"},
		{"export to an unknown chain", func(t *testing.T) *atx.Tx {
			tx, err := c.wallet.BuildExport(ctx, ids.ID{0x77}, 1_000_000, me)
			if err != nil {
				t.Fatal(err)
			}
			return tx
		}, "is not a chain of this node"},
		{"wrong network", func(t *testing.T) *atx.Tx {
			tx, err := c.wallet.BuildExport(ctx, testXChain, 1_000_000, me)
			if err != nil {
				t.Fatal(err)
			}
			u := *tx.Unsigned.(*atx.ExportTx)
			u.NetworkID = 1
			return sign(&u, c.key)
		}, "tx is for network 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := tt.tx(t)
			head, _ := c.client.BlockNumber(ctx)
			_, err := c.wallet.Client.IssueTx(ctx, tx.Bytes())
			var rpcErr *jsonrpc.Error
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeServerError {
				t.Fatalf("issueTx: %v, want a -32000 error containing %q", err, tt.want)
			}
			if now, _ := c.client.BlockNumber(ctx); now != head {
				t.Fatalf("a refused transaction built block %d", now)
			}
			var st struct{ Status string }
			if err := c.native(t, "getAtomicTxStatus", map[string]string{"txID": tx.ID().String()}, &st); err != nil || (st.Status != "Unknown" && tx != imp) {
				t.Fatalf("status of the refused tx: %+v (%v)", st, err)
			}
		})
	}
}

// TestAtomicDropped: an export waits as Processing until a block; when the
// block's EVM transactions spend its account's nonce first, it no longer
// applies and is Dropped, still readable; while it waits, an empty block
// at a set time is refused.
func TestAtomicDropped(t *testing.T) {
	c := startAtomicChain(t, `{"block-production": "manual"}`)
	ctx := t.Context()
	exp, err := c.wallet.BuildExport(ctx, testXChain, 1_000_000, c.key.Address())
	if err != nil {
		t.Fatal(err)
	}
	id := c.issue(t, exp)
	status := func() string {
		t.Helper()
		s, err := c.wallet.Client.GetAtomicTxStatus(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return s.Status
	}
	if s := status(); s != "Processing" {
		t.Fatalf("status before a block %s, want Processing", s)
	}
	var hash common.Hash
	if err := c.rpc.CallContext(ctx, &hash, "evm_mine", time.Now().Unix()+100); err == nil || !strings.Contains(err.Error(), "executable transactions") {
		t.Fatalf("evm_mine at a time with an atomic tx waiting: %v, want a refusal", err)
	}
	transfer(t, ctx, c.client, localKey(t), 0, common.HexToAddress("0x05"), big.NewInt(1))
	mine(t, c.rpc)
	if s := status(); s != "Dropped" {
		t.Fatalf("status after a block spent its nonce %s, want Dropped", s)
	}
	if raw, err := c.wallet.Client.GetAtomicTx(ctx, id); err != nil || string(raw) != string(exp.Bytes()) {
		t.Fatalf("getAtomicTx of the dropped tx: %v", err)
	}
	if left := c.h.Shared(c.h.ChainID(), testXChain); len(left) != 0 {
		t.Fatalf("a dropped export put %d values in shared memory", len(left))
	}
	if _, err := c.wallet.Client.IssueTx(ctx, exp.Bytes()); err == nil || !strings.Contains(err.Error(), "is at nonce 1, the input is for nonce 0") {
		t.Fatalf("issuing the dropped export again: %v", err)
	}
	// Built again at the new nonce, it goes through.
	again, err := c.wallet.BuildExport(ctx, testXChain, 1_000_000, c.key.Address())
	if err != nil {
		t.Fatal(err)
	}
	c.issue(t, again)
	mine(t, c.rpc)
	if h := c.accepted(t, again.ID()); h != 2 {
		t.Fatalf("export accepted at %d, want 2", h)
	}
}
