package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// tokensJSON holds the ABI and bytecode of testdata/evm/Tokens.sol.
//
//go:embed testdata/evm/tokens.json
var tokensJSON []byte

// evmGenesis is a London+Shanghai+Cancun genesis funding the local key.
func evmGenesis(chainID uint64) string {
	return fmt.Sprintf(`{"config": {"chainId": %d, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0,
 "eip158Block": 0, "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
 "muirGlacierBlock": 0, "berlinBlock": 0, "londonBlock": 0, "shanghaiTime": 0, "cancunTime": 0,
 "terminalTotalDifficulty": 0}, "gasLimit": "0x1c9c380", "difficulty": "0x0",
 "alloc": {"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": {"balance": "0x295be96e64066972000000"}}}`, chainID)
}

// evmTwoChains runs C (archival, proof window 5 blocks) and L1, a second
// EVM chain with its own chain ID that prunes state.
func evmTwoChains() string {
	return fmt.Sprintf(`
chains:
  - alias: C
    vm: evm
    genesis: %s
    config:
      historical-proof-query-window: 5
      api-max-batch-size: 40
      personal-api-enabled: true
      keystore-light-kdf: true
      dev-api-enabled: true
      cache-mb: 32
  - alias: L1
    vm: evm
    genesis: %s
    config:
      pruning-enabled: true
      dev-api-enabled: true
      debug-api-enabled: false
      cache-mb: 32
`, evmGenesis(evmChainID), evmGenesis(99999))
}

// evmSender signs transactions from one key with its own nonce.
type evmSender struct {
	t       *testing.T
	c       *ethclient.Client
	key     *ecdsa.PrivateKey
	addr    common.Address
	chainID *big.Int
	nonce   uint64
}

func newSender(t *testing.T, ctx context.Context, c *ethclient.Client, key *ecdsa.PrivateKey) *evmSender {
	t.Helper()
	addr := crypto.PubkeyToAddress(key.PublicKey)
	id, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := c.PendingNonceAt(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	return &evmSender{t: t, c: c, key: key, addr: addr, chainID: id, nonce: nonce}
}

// send signs and sends a transaction and waits for its receipt.
func (s *evmSender) send(ctx context.Context, to *common.Address, value *big.Int, data []byte, gas uint64) *types.Receipt {
	s.t.Helper()
	if value == nil {
		value = new(big.Int)
	}
	tx := types.MustSignNewTx(s.key, types.LatestSignerForChainID(s.chainID), &types.DynamicFeeTx{
		ChainID: s.chainID, Nonce: s.nonce, To: to, Value: value, Gas: gas, Data: data,
		GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9),
	})
	if err := s.c.SendTransaction(ctx, tx); err != nil {
		s.t.Fatalf("send: %v", err)
	}
	s.nonce++
	r := evmReceipt(s.t, ctx, s.c, tx.Hash())
	if r.Status != types.ReceiptStatusSuccessful {
		s.t.Fatalf("transaction %s failed", tx.Hash())
	}
	return r
}

// contract is a compiled test contract.
type contract struct {
	abi abi.ABI
	bin []byte
}

func loadContracts(t *testing.T) map[string]contract {
	t.Helper()
	var raw map[string]struct {
		ABI json.RawMessage `json:"abi"`
		Bin string          `json:"bin"`
	}
	if err := json.Unmarshal(tokensJSON, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string]contract{}
	for name, r := range raw {
		a, err := abi.JSON(bytes.NewReader(r.ABI))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = contract{abi: a, bin: hexutil.MustDecode(r.Bin)}
	}
	return out
}

func (c contract) pack(t *testing.T, method string, args ...any) []byte {
	t.Helper()
	b, err := c.abi.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs eth_call and unpacks the one result.
func (c contract) call(t *testing.T, ctx context.Context, cl *ethclient.Client, at common.Address, method string, args ...any) any {
	t.Helper()
	out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &at, Data: c.pack(t, method, args...)}, nil)
	if err != nil {
		t.Fatalf("eth_call %s: %v", method, err)
	}
	vals, err := c.abi.Unpack(method, out)
	if err != nil || len(vals) != 1 {
		t.Fatalf("unpack %s: %v, %v", method, vals, err)
	}
	return vals[0]
}

// checkLog checks a receipt's one log: emitter, event and topics.
func checkLog(t *testing.T, r *types.Receipt, i int, at common.Address, c contract, event string, topics ...common.Hash) *types.Log {
	t.Helper()
	if len(r.Logs) <= i {
		t.Fatalf("receipt has %d logs, want log %d (%s)", len(r.Logs), i, event)
	}
	l := r.Logs[i]
	want := append([]common.Hash{c.abi.Events[event].ID}, topics...)
	if l.Address != at || len(l.Topics) != len(want) {
		t.Fatalf("log %s: address %s topics %v", event, l.Address, l.Topics)
	}
	for k := range want {
		if l.Topics[k] != want[k] {
			t.Fatalf("log %s topic %d = %s, want %s", event, k, l.Topics[k], want[k])
		}
	}
	return l
}

func addrTopic(a common.Address) common.Hash { return common.BytesToHash(a.Bytes()) }

func intTopic(n int64) common.Hash { return common.BigToHash(big.NewInt(n)) }

// TestEVMChainAPIs drives the EVM chains through the host with go-ethereum's
// clients: token contracts with receipts, logs, eth_call, eth_estimateGas,
// traces and subscriptions; proofs and their windows; batch limits;
// personal accounts; dev methods; the administration and chain-native
// endpoints; and a second EVM chain with its own ID, endpoints and index.
func TestEVMChainAPIs(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: evmTwoChains()})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := evmDial(t, n, "C", "rpc")
	raw, err := rpc.DialContext(ctx, n.URL+"/ext/bc/C/rpc")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	me := newSender(t, ctx, c, evmKey(t))
	bob := common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	tokens := loadContracts(t)

	t.Run("ERC20", func(t *testing.T) {
		tok := tokens["Token20"]
		ws := evmDial(t, n, "C", "ws")
		supply := new(big.Int).Mul(big.NewInt(1e6), big.NewInt(1e18))
		ctor, err := tok.abi.Pack("", supply)
		if err != nil {
			t.Fatal(err)
		}
		r := me.send(ctx, nil, nil, append(append([]byte(nil), tok.bin...), ctor...), 2_000_000)
		at := r.ContractAddress
		if code, err := c.CodeAt(ctx, at, nil); err != nil || len(code) == 0 {
			t.Fatalf("no code at %s: %v", at, err)
		}
		checkLog(t, r, 0, at, tok, "Transfer", addrTopic(common.Address{}), addrTopic(me.addr))

		logs := make(chan types.Log, 4)
		sub, err := ws.SubscribeFilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{at}}, logs)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()

		data := tok.pack(t, "transfer", bob, big.NewInt(1000))
		gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: me.addr, To: &at, Data: data})
		if err != nil || gas <= 21000 || gas > 100_000 {
			t.Fatalf("eth_estimateGas = %d, %v", gas, err)
		}
		r = me.send(ctx, &at, nil, data, gas)
		l := checkLog(t, r, 0, at, tok, "Transfer", addrTopic(me.addr), addrTopic(bob))
		if new(big.Int).SetBytes(l.Data).Int64() != 1000 {
			t.Fatalf("Transfer value %x", l.Data)
		}
		if got := tok.call(t, ctx, c, at, "balanceOf", bob).(*big.Int); got.Int64() != 1000 {
			t.Fatalf("balanceOf(bob) = %v", got)
		}
		select {
		case l := <-logs:
			if l.TxHash != r.TxHash {
				t.Fatalf("logs subscription sent a log of %s, want %s", l.TxHash, r.TxHash)
			}
		case err := <-sub.Err():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatal("no log notification")
		}
		got, err := c.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{at}, FromBlock: big.NewInt(0)})
		if err != nil || len(got) != 2 {
			t.Fatalf("eth_getLogs: %d logs, %v", len(got), err)
		}

		var trace struct {
			Type  string         `json:"type"`
			From  common.Address `json:"from"`
			To    common.Address `json:"to"`
			Input hexutil.Bytes  `json:"input"`
			Calls []any          `json:"calls"`
		}
		if err := raw.CallContext(ctx, &trace, "debug_traceTransaction", r.TxHash, map[string]any{"tracer": "callTracer"}); err != nil {
			t.Fatal(err)
		}
		if trace.Type != "CALL" || trace.From != me.addr || trace.To != at || !bytes.Equal(trace.Input, data) {
			t.Fatalf("callTracer: %+v", trace)
		}
	})

	t.Run("ERC721", func(t *testing.T) {
		tok := tokens["Token721"]
		r := me.send(ctx, nil, nil, tok.bin, 2_000_000)
		at := r.ContractAddress
		r = me.send(ctx, &at, nil, tok.pack(t, "mint", me.addr, big.NewInt(7)), 200_000)
		checkLog(t, r, 0, at, tok, "Transfer", addrTopic(common.Address{}), addrTopic(me.addr), intTopic(7))
		r = me.send(ctx, &at, nil, tok.pack(t, "transferFrom", me.addr, bob, big.NewInt(7)), 200_000)
		checkLog(t, r, 0, at, tok, "Transfer", addrTopic(me.addr), addrTopic(bob), intTopic(7))
		if owner := tok.call(t, ctx, c, at, "ownerOf", big.NewInt(7)).(common.Address); owner != bob {
			t.Fatalf("ownerOf(7) = %s", owner)
		}
	})

	t.Run("ERC1155", func(t *testing.T) {
		tok := tokens["Token1155"]
		r := me.send(ctx, nil, nil, tok.bin, 2_000_000)
		at := r.ContractAddress
		r = me.send(ctx, &at, nil, tok.pack(t, "mint", me.addr, big.NewInt(3), big.NewInt(50)), 200_000)
		checkLog(t, r, 0, at, tok, "TransferSingle", addrTopic(me.addr), addrTopic(common.Address{}), addrTopic(me.addr))
		r = me.send(ctx, &at, nil, tok.pack(t, "safeTransferFrom", me.addr, bob, big.NewInt(3), big.NewInt(20), []byte{}), 200_000)
		l := checkLog(t, r, 0, at, tok, "TransferSingle", addrTopic(me.addr), addrTopic(me.addr), addrTopic(bob))
		vals, err := tok.abi.Events["TransferSingle"].Inputs.NonIndexed().Unpack(l.Data)
		if err != nil || vals[0].(*big.Int).Int64() != 3 || vals[1].(*big.Int).Int64() != 20 {
			t.Fatalf("TransferSingle data %v, %v", vals, err)
		}
		if got := tok.call(t, ctx, c, at, "balanceOf", big.NewInt(3), bob).(*big.Int); got.Int64() != 20 {
			t.Fatalf("balanceOf(3, bob) = %v", got)
		}
	})

	t.Run("AddedMethods", func(t *testing.T) {
		var cfg struct {
			ChainID *big.Int `json:"chainId"`
			Cancun  *uint64  `json:"cancunTime"`
		}
		if err := raw.CallContext(ctx, &cfg, "eth_getChainConfig"); err != nil || cfg.ChainID.Uint64() != evmChainID || cfg.Cancun == nil {
			t.Fatalf("eth_getChainConfig: %+v, %v", cfg, err)
		}
		for _, m := range []string{"eth_baseFee", "eth_maxPriorityFeePerGas"} {
			var v hexutil.Big
			if err := raw.CallContext(ctx, &v, m); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
		}
		var version, netVersion string
		var sha hexutil.Bytes
		if err := raw.CallContext(ctx, &version, "web3_clientVersion"); err != nil || !strings.Contains(version, "go-ethereum") {
			t.Fatalf("web3_clientVersion %q, %v", version, err)
		}
		if err := raw.CallContext(ctx, &sha, "web3_sha3", "0x"); err != nil || common.BytesToHash(sha) != crypto.Keccak256Hash(nil) {
			t.Fatalf("web3_sha3 %x, %v", sha, err)
		}
		if err := raw.CallContext(ctx, &netVersion, "net_version"); err != nil || netVersion != "43112" {
			t.Fatalf("net_version %q, %v", netVersion, err)
		}
		var status map[string]hexutil.Uint
		if err := raw.CallContext(ctx, &status, "txpool_status"); err != nil {
			t.Fatalf("txpool_status: %v", err)
		}
		// Namespaces outside the allow-list do not exist; methods that rewind
		// the chain or touch server files are refused.
		for _, m := range []string{"admin_nodeInfo", "miner_setExtra", "engine_forkchoiceUpdatedV3", "dev_setFeeRecipient", "testing_buildBlockV1"} {
			if err := raw.CallContext(ctx, nil, m); rpcErrorCode(err) != -32601 {
				t.Errorf("%s: %v, want method not found", m, err)
			}
		}
		for _, m := range []string{"debug_setHead", "debug_traceBlockFromFile", "debug_standardTraceBlockToFile"} {
			if err := raw.CallContext(ctx, nil, m, "0x1"); err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("%s: %v, want a refusal", m, err)
			}
		}
	})

	t.Run("BatchLimit", func(t *testing.T) {
		batch := func(k int) string {
			items := make([]string, k)
			for i := range items {
				items[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_blockNumber","params":[]}`, i+1)
			}
			return "[" + strings.Join(items, ",") + "]"
		}
		var ok []map[string]any
		_, body := postJSON(t, n.URL+"/ext/bc/C/rpc", batch(40))
		if err := json.Unmarshal([]byte(body), &ok); err != nil || len(ok) != 40 || ok[39]["result"] == nil {
			t.Fatalf("batch of 40: %d answers, %v", len(ok), err)
		}
		_, body = postJSON(t, n.URL+"/ext/bc/C/rpc", batch(41))
		var refused []struct {
			ID    int `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &refused); err != nil || len(refused) != 1 || refused[0].Error.Code != -32600 ||
			!strings.Contains(refused[0].Error.Message, "limit is 40") {
			t.Fatalf("batch of 41: %s (%v)", body, err)
		}
		// go-ethereum's client sees the refusal too.
		elems := make([]rpc.BatchElem, 41)
		for i := range elems {
			elems[i] = rpc.BatchElem{Method: "eth_blockNumber", Result: new(hexutil.Uint64)}
		}
		err := raw.BatchCallContext(ctx, elems)
		if err == nil {
			refusedAny := false
			for _, e := range elems {
				refusedAny = refusedAny || e.Error != nil
			}
			if !refusedAny {
				t.Fatal("go-ethereum client: batch of 41 was not refused")
			}
		}
	})

	t.Run("Personal", func(t *testing.T) {
		var acct common.Address
		if err := raw.CallContext(ctx, &acct, "personal_newAccount", "s3cret"); err != nil {
			t.Fatal(err)
		}
		var list []common.Address
		if err := raw.CallContext(ctx, &list, "personal_listAccounts"); err != nil || len(list) != 1 || list[0] != acct {
			t.Fatalf("personal_listAccounts %v, %v", list, err)
		}
		me.send(ctx, &acct, big.NewInt(1e18), nil, 21000)
		var unlocked bool
		if err := raw.CallContext(ctx, &unlocked, "personal_unlockAccount", acct, "wrong", 60); err == nil {
			t.Fatal("unlock with a wrong password succeeded")
		}
		if err := raw.CallContext(ctx, &unlocked, "personal_unlockAccount", acct, "s3cret", 60); err != nil || !unlocked {
			t.Fatalf("personal_unlockAccount: %v, %v", unlocked, err)
		}
		var hash common.Hash
		tx := map[string]any{"from": acct, "to": bob, "value": "0x10", "gas": "0x5208"}
		if err := raw.CallContext(ctx, &hash, "eth_sendTransaction", tx); err != nil {
			t.Fatalf("eth_sendTransaction from the unlocked account: %v", err)
		}
		evmReceipt(t, ctx, c, hash)
		if err := raw.CallContext(ctx, nil, "personal_lockAccount", acct); err != nil {
			t.Fatal(err)
		}
		if err := raw.CallContext(ctx, &hash, "personal_sendTransaction", tx, "s3cret"); err != nil {
			t.Fatalf("personal_sendTransaction: %v", err)
		}
		if r := evmReceipt(t, ctx, c, hash); r.Status != types.ReceiptStatusSuccessful {
			t.Fatal("personal_sendTransaction failed")
		}
		if err := raw.CallContext(ctx, &hash, "personal_sendTransaction", tx, "wrong"); err == nil {
			t.Fatal("personal_sendTransaction with a wrong password succeeded")
		}
	})

	t.Run("DevMethods", func(t *testing.T) {
		if err := raw.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
			t.Fatal(err)
		}
		tx := evmTransfer(me.key, evmChainID, me.nonce, bob, 1)
		me.nonce++
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if _, err := c.TransactionReceipt(ctx, tx.Hash()); err == nil {
			t.Fatal("a block was built with automine off")
		}
		if err := raw.CallContext(ctx, nil, "evm_mine"); err != nil {
			t.Fatal(err)
		}
		evmReceipt(t, ctx, c, tx.Hash())
		if err := raw.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
			t.Fatal(err)
		}
		before, _ := c.HeaderByNumber(ctx, nil)
		if err := raw.CallContext(ctx, nil, "evm_increaseTime", 3600); err != nil {
			t.Fatal(err)
		}
		after, _ := c.HeaderByNumber(ctx, nil)
		if after.Time < uint64(time.Now().Unix())+3590 || after.Number.Uint64() != before.Number.Uint64()+1 {
			t.Fatalf("evm_increaseTime: head %d at %d, now %d", after.Number, after.Time, time.Now().Unix())
		}
		if err := raw.CallContext(ctx, nil, "evm_setNextBlockTimestamp", after.Time+100); err != nil {
			t.Fatal(err)
		}
		if h, _ := c.HeaderByNumber(ctx, nil); h.Time != after.Time+100 {
			t.Fatalf("evm_setNextBlockTimestamp: head time %d, want %d", h.Time, after.Time+100)
		}
		if err := raw.CallContext(ctx, nil, "evm_setIntervalMining", 1000); err != nil {
			t.Fatal(err)
		}
		start, _ := c.BlockNumber(ctx)
		plugintest.Eventually(t, 10*time.Second, func() error {
			if now, _ := c.BlockNumber(ctx); now < start+2 {
				return fmt.Errorf("interval mining built no blocks: head %d, %d before", now, start)
			}
			return nil
		})
		if err := raw.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ProofWindows", func(t *testing.T) {
		// C is archival with a window of 5 blocks before the last accepted.
		for i := 0; i < 8; i++ {
			if err := raw.CallContext(ctx, nil, "evm_mine"); err != nil {
				t.Fatal(err)
			}
		}
		head, err := c.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		proof := func(cl *rpc.Client, block uint64) error {
			var out map[string]any
			return cl.CallContext(ctx, &out, "eth_getProof", me.addr, []string{}, hexutil.EncodeUint64(block))
		}
		if err := proof(raw, head-5); err != nil {
			t.Fatalf("proof 5 blocks back: %v", err)
		}
		if err := proof(raw, head-6); err == nil || !strings.Contains(err.Error(), "historical-proof-query-window") {
			t.Fatalf("proof 6 blocks back: %v, want the window error", err)
		}
		// L1 prunes: the last 32 blocks only.
		l1, err := rpc.DialContext(ctx, n.URL+"/ext/bc/L1/rpc")
		if err != nil {
			t.Fatal(err)
		}
		defer l1.Close()
		for i := 0; i < 40; i++ {
			if err := l1.CallContext(ctx, nil, "evm_mine"); err != nil {
				t.Fatal(err)
			}
		}
		var l1head hexutil.Uint64
		if err := l1.CallContext(ctx, &l1head, "eth_blockNumber"); err != nil {
			t.Fatal(err)
		}
		if err := proof(l1, uint64(l1head)-32); err != nil {
			t.Fatalf("L1 proof 32 blocks back: %v", err)
		}
		if err := proof(l1, uint64(l1head)-33); err == nil || !strings.Contains(err.Error(), "pruning") {
			t.Fatalf("L1 proof 33 blocks back: %v, want the pruning window error", err)
		}
	})

	t.Run("SecondChain", func(t *testing.T) {
		l1 := evmDial(t, n, "L1", "rpc")
		id, err := l1.ChainID(ctx)
		if err != nil || id.Uint64() != 99999 {
			t.Fatalf("L1 chain id %v, %v", id, err)
		}
		s := newSender(t, ctx, l1, evmKey(t))
		r := s.send(ctx, &bob, big.NewInt(5), nil, 21000)
		if bal, _ := l1.BalanceAt(ctx, bob, nil); bal.Int64() != 5 {
			t.Fatalf("L1 balance %v", bal)
		}
		var trace any
		l1raw, _ := rpc.DialContext(ctx, n.URL+"/ext/bc/L1/rpc")
		defer l1raw.Close()
		if err := l1raw.CallContext(ctx, &trace, "debug_traceTransaction", r.TxHash); rpcErrorCode(err) != -32601 {
			t.Fatalf("debug_ on L1 (debug-api-enabled false): %v, want method not found", err)
		}
		head, _ := l1.BlockNumber(ctx)
		evmCheckIndex(t, ctx, n, "L1", l1, head)
		chead, _ := c.BlockNumber(ctx)
		evmCheckIndex(t, ctx, n, "C", c, chead)
	})

	t.Run("Admin", func(t *testing.T) {
		adm, err := rpc.DialContext(ctx, n.URL+"/ext/bc/C/admin")
		if err != nil {
			t.Fatal(err)
		}
		defer adm.Close()
		var empty map[string]any
		for _, m := range []string{"admin_startCPUProfiler", "admin_stopCPUProfiler", "admin_memoryProfile", "admin_lockProfile"} {
			if err := adm.CallContext(ctx, &empty, m); err != nil || empty == nil || len(empty) != 0 {
				t.Fatalf("%s: %v, %v", m, empty, err)
			}
		}
		if err := adm.CallContext(ctx, &empty, "admin_setLogLevel", map[string]string{"level": "debug"}); err != nil {
			t.Fatal(err)
		}
		if err := adm.CallContext(ctx, &empty, "admin_setLogLevel", map[string]string{"level": "loud"}); err == nil {
			t.Fatal("admin_setLogLevel accepted an unknown level")
		}
		var cfg struct {
			Config map[string]any `json:"config"`
		}
		if err := adm.CallContext(ctx, &cfg, "admin_getVMConfig"); err != nil || cfg.Config["historical-proof-query-window"] != float64(5) {
			t.Fatalf("admin_getVMConfig: %v, %v", cfg, err)
		}
		id := chainIDOf(t, n, "C")
		for _, f := range []string{"cpu.profile", "mem.profile", "lock.profile"} {
			if _, err := os.Stat(filepath.Join(n.DataDir, "chains", id, "profiles", f)); err != nil {
				t.Errorf("profile: %v", err)
			}
		}
	})

	t.Run("Native", func(t *testing.T) {
		// The atomic API answers under both names; a request without its
		// required param is -32602 naming it (TestAtomicXC moves funds).
		want := map[string]string{
			"getUTXOs":          `"addresses" must name at least one address`,
			"issueTx":           `"tx" is required`,
			"getAtomicTxStatus": `"txID" is required`,
			"getAtomicTx":       `"txID" is required`,
		}
		for _, path := range []string{"/ext/bc/C/native", "/ext/bc/C/avax"} {
			prefix := strings.TrimPrefix(path, "/ext/bc/C/")
			for m, msg := range want {
				_, body := postJSON(t, n.URL+path, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"%s.%s","params":[{}]}`, prefix, m))
				var resp struct {
					Error struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(body), &resp); err != nil || resp.Error.Code != -32602 || !strings.Contains(resp.Error.Message, msg) {
					t.Errorf("%s.%s: %s", prefix, m, body)
				}
			}
		}
	})
}
