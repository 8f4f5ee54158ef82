package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// dataConfig runs the default chains and the data API module without rate
// limits.
const dataConfig = `
modules:
  - name: data
    plugin: dataapi
    config:
      rate-limit: {anonymous: {per-second: 0}}
`

// forwarderCode deploys a contract that sends the value of every call on
// to the address in the first word of its input: an internal CALL.
// Runtime: PUSH1 0 x4, CALLVALUE, PUSH1 0, CALLDATALOAD, GAS, CALL, POP,
// STOP; the init code copies it and returns it.
var forwarderCode = common.FromHex("0x6010600c60003960106000f3" + "6000600060006000346000355af15000")

// dataGet GETs a path of the data API, which must answer 200, into out.
func dataGet(t *testing.T, n *nodetest.Node, path string, out any) {
	t.Helper()
	status, body := restGet(t, context.Background(), n.URL+path)
	if status != 200 {
		t.Fatalf("GET %s = %d %s", path, status, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// waitDataBlock waits until the data API has indexed block n of the
// C-Chain.
func waitDataBlock(t *testing.T, n *nodetest.Node, block uint64) api.Block {
	t.Helper()
	var b api.Block
	plugintest.Eventually(t, 60*time.Second, func() error {
		status, body := restGet(t, context.Background(), fmt.Sprintf("%s/v1/chains/43112/blocks/%d", n.URL, block))
		if status != 200 {
			return fmt.Errorf("block %d not indexed: %d %s", block, status, body)
		}
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatal(err)
		}
		return nil
	})
	return b
}

// TestDataAPI: the data API on the real node indexes the C-Chain's real
// transactions (a native transfer, ERC-20, ERC-721 and ERC-1155 contracts
// deployed and used, a value forwarded by an internal call) and serves
// them; after a restart it goes on without counting anything twice.
func TestDataAPI(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: dataConfig})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := evmDial(t, n, "C", "rpc")
	s := newSender(t, ctx, c, evmKey(t))
	sc := tokenScenario(t, ctx, s)
	bob, carol, native, send20, forward := sc.bob, sc.carol, sc.native, sc.send20, sc.forward
	supply, erc20 := sc.supply, sc.erc20
	head := forward.BlockNumber.Uint64()
	blk := waitDataBlock(t, n, head)
	if blk.BlockHash != forward.BlockHash.Hex() || blk.CumulativeTransactions != fmt.Sprint(head) {
		t.Errorf("head block %+v (one transaction per block)", blk)
	}

	var chains api.ListChainsResponse
	dataGet(t, n, "/v1/chains", &chains)
	if len(chains.Chains) != 1 || chains.Chains[0].ChainID != "43112" || chains.Chains[0].Status != "OK" || !strings.HasSuffix(chains.Chains[0].RPCURL, "/ext/bc/C/rpc") {
		t.Errorf("chains %+v", chains)
	}
	var tx api.GetTransactionResponse
	dataGet(t, n, "/v1/chains/43112/transactions/"+native.TxHash.Hex(), &tx)
	if nt := tx.NativeTransaction; nt.Value != "1000000000000000000" || nt.To.Address != bob.Hex() || nt.Method.CallType != "NATIVE_TRANSFER" || nt.TxStatus != "1" {
		t.Errorf("native transfer %+v", nt)
	}
	dataGet(t, n, "/v1/chains/43112/transactions/"+send20.TxHash.Hex(), &tx)
	if len(tx.Erc20Transfers) != 1 || tx.Erc20Transfers[0].Value != "250" || tx.Erc20Transfers[0].Erc20Token.Symbol != "TST" ||
		tx.Erc20Transfers[0].Erc20Token.Decimals != 18 || tx.NativeTransaction.Method.MethodName != "transfer(address,uint256)" {
		t.Errorf("ERC-20 transfer %+v", tx)
	}
	dataGet(t, n, "/v1/chains/43112/transactions/"+forward.TxHash.Hex(), &tx)
	if len(tx.InternalTransactions) != 1 || tx.InternalTransactions[0].To.Address != carol.Hex() || tx.InternalTransactions[0].Value != "1000" {
		t.Errorf("forwarded value %+v", tx.InternalTransactions)
	}

	var bal api.ListErc20BalancesResponse
	dataGet(t, n, "/v1/chains/43112/addresses/"+bob.Hex()+"/balances:listErc20", &bal)
	if len(bal.Erc20TokenBalances) != 1 || bal.Erc20TokenBalances[0].Balance != "250" || bal.NativeTokenBalance.Balance != "1000000000000000000" {
		t.Errorf("bob's balances %+v", bal)
	}
	dataGet(t, n, fmt.Sprintf("/v1/chains/43112/addresses/%s/balances:listErc20?blockNumber=%d", s.addr.Hex(), send20.BlockNumber.Uint64()-1), &bal)
	onChain, err := c.BalanceAt(ctx, s.addr, new(big.Int).Sub(send20.BlockNumber, big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(bal.Erc20TokenBalances) != 1 || bal.Erc20TokenBalances[0].Balance != supply.String() || bal.NativeTokenBalance.Balance != onChain.String() {
		t.Errorf("the sender's balances before the transfer %+v, native on chain %s", bal, onChain)
	}
	var coll struct {
		CollectibleBalances []map[string]any `json:"collectibleBalances"`
	}
	dataGet(t, n, "/v1/chains/43112/addresses/"+bob.Hex()+"/balances:listCollectibles", &coll)
	var got []string
	for _, b := range coll.CollectibleBalances {
		got = append(got, fmt.Sprintf("%v:%v", b["ercType"], b["tokenId"]))
	}
	if strings.Join(got, ",") != "ERC-721:7,ERC-1155:3" && strings.Join(got, ",") != "ERC-1155:3,ERC-721:7" {
		t.Errorf("bob's collectibles %v", got)
	}
	var deps api.ListContractsResponse
	dataGet(t, n, "/v1/chains/43112/contracts/"+s.addr.Hex()+"/deployments", &deps)
	got = nil
	for _, d := range deps.Contracts {
		got = append(got, d.ErcType)
	}
	if strings.Join(got, ",") != "ERC-20,ERC-721,ERC-1155,UNKNOWN" || deps.Contracts[0].Address != erc20.Hex() {
		t.Errorf("deployments %v %+v", got, deps)
	}
	var ac api.ListAddressChainsResponse
	dataGet(t, n, "/v1/address/"+carol.Hex()+"/chains", &ac)
	if len(ac.IndexedChains) != 1 {
		t.Errorf("carol's chains %+v", ac)
	}
	var list api.ListTransactionDetailsResponse
	dataGet(t, n, "/v1/chains/43112/addresses/"+bob.Hex()+"/transactions?pageSize=100", &list)
	bobTxs := len(list.Transactions)
	if bobTxs != 4 {
		t.Errorf("bob took part in %d transactions, want 4", bobTxs)
	}
	// The index shows a block a moment before the chain answers for it:
	// the indexer waits for the chain rather than failing.
	if _, metrics := restGet(t, ctx, n.URL+"/ext/metrics"); strings.Contains(string(metrics), `dataapi_indexer_errors_total{chain="C"`) {
		t.Errorf("indexing failed and started over:\n%s", n.Output())
	}
	status, body := restGet(t, ctx, n.URL+"/ext/health")
	if status != 200 || !strings.Contains(string(body), `"module/data"`) || !strings.Contains(string(body), fmt.Sprintf(`"height":%d`, head)) {
		t.Errorf("health %d %s", status, body)
	}

	// After a restart: nothing counted twice, and indexing goes on.
	n = n.Restart(t)
	c = evmDial(t, n, "C", "rpc")
	s = newSender(t, ctx, c, evmKey(t))
	more := s.send(ctx, &bob, big.NewInt(5), nil, 21000)
	blk = waitDataBlock(t, n, more.BlockNumber.Uint64())
	if blk.CumulativeTransactions != fmt.Sprint(more.BlockNumber.Uint64()) {
		t.Errorf("after the restart: block %+v", blk)
	}
	dataGet(t, n, "/v1/chains/43112/addresses/"+bob.Hex()+"/transactions?pageSize=100", &list)
	if len(list.Transactions) != bobTxs+1 {
		t.Errorf("after the restart bob has %d transactions, want %d", len(list.Transactions), bobTxs+1)
	}
}
