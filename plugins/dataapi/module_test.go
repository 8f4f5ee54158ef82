package dataapi_test

import (
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// scenarioEnv starts the module on chain C holding the scenario and waits
// until it is indexed.
func scenarioEnv(t *testing.T, extra int) (*testEnv, *fakeevm.Chain, *scenario) {
	t.Helper()
	c := fakeevm.New(43112)
	s := buildScenario(c, extra)
	e := startEnv(t, envOptions{infos: []host.ChainInfo{chainC, kvChain}, chains: map[ids.ID]*fakeevm.Chain{chainC.ID: c}})
	e.waitIndexed("C", c.Head())
	return e, c, s
}

// allTxs pages through an address's transactions with pageSize and the
// extra query, following nextPageToken to the end.
func allTxs(e *testEnv, addr common.Address, query string, pageSize int) []api.TransactionDetails {
	e.t.Helper()
	var out []api.TransactionDetails
	token := ""
	for page := 0; ; page++ {
		path := fmt.Sprintf("/v1/chains/43112/addresses/%s/transactions?pageSize=%d%s", addr.Hex(), pageSize, query)
		if token != "" {
			path += "&pageToken=" + url.QueryEscape(token)
		}
		var resp api.ListTransactionDetailsResponse
		e.getJSON(path, &resp)
		if len(resp.Transactions) > pageSize || (resp.NextPageToken != "" && len(resp.Transactions) != pageSize) {
			e.t.Fatalf("page %d of %s: %d items, next %q", page, path, len(resp.Transactions), resp.NextPageToken)
		}
		out = append(out, resp.Transactions...)
		if resp.NextPageToken == "" {
			return out
		}
		token = resp.NextPageToken
	}
}

// hashes returns the transaction hashes of a list.
func hashes(txs []api.TransactionDetails) []string {
	out := make([]string, len(txs))
	for i, tx := range txs {
		out[i] = tx.NativeTransaction.TxHash
	}
	return out
}

// named returns the hashes of the scenario's named transactions.
func (s *scenario) named(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = s.txs[n].Hex()
	}
	return out
}

// extraTxs returns the hashes of the transactions of the extra blocks,
// oldest first.
func extraTxs(c *fakeevm.Chain, from uint64) []string {
	var out []string
	for n := from; n <= c.Head(); n++ {
		for _, tx := range c.Block(n).Transactions {
			out = append(out, tx.Hash.Hex())
		}
	}
	return out
}

// TestAddressTransactions: an address's list holds every transaction it
// took part in, oldest last by default, each with only its own transfers
// and internal transactions.
func TestAddressTransactions(t *testing.T) {
	e, c, s := scenarioEnv(t, 2)
	bobTxs := allTxs(e, bob, "", 100)
	want := append(s.named("native", "sendA", "burnA", "mintNFT", "send1155", "factory"), extraTxs(c, 9)...)
	slices.Reverse(want)
	if got := hashes(bobTxs); !slices.Equal(got, want) {
		t.Fatalf("bob's transactions:\n%v\nwant\n%v", got, want)
	}
	byHash := map[string]api.TransactionDetails{}
	for _, tx := range bobTxs {
		byHash[tx.NativeTransaction.TxHash] = tx
	}
	native := byHash[s.txs["native"].Hex()]
	if m := native.NativeTransaction.Method; m == nil || m.CallType != "NATIVE_TRANSFER" || m.MethodName != "Native Transfer" ||
		native.NativeTransaction.Value != "1000000000000000000" || native.NativeTransaction.BlockNumber != "1" || native.NativeTransaction.ChainID != "43112" {
		t.Errorf("native transfer: %+v", native.NativeTransaction)
	}
	sendA := byHash[s.txs["sendA"].Hex()]
	if len(sendA.Erc20Transfers) != 1 || sendA.Erc20Transfers[0].Value != "100000000" || sendA.Erc20Transfers[0].Erc20Token.Symbol != "TKA" ||
		sendA.Erc20Transfers[0].Erc20Token.Decimals != 6 || sendA.NativeTransaction.Method.MethodName != "transfer(address,uint256)" {
		t.Errorf("sendA: %+v", sendA)
	}
	// Of the mint of two NFTs, bob's list shows only his.
	mint := byHash[s.txs["mintNFT"].Hex()]
	if len(mint.Erc721Transfers) != 1 || mint.Erc721Transfers[0].Erc721Token.TokenID != "2" ||
		mint.Erc721Transfers[0].Erc721Token.Metadata.IndexStatus != "UNINDEXED" || mint.Erc721Transfers[0].From.Address != zero.Hex() {
		t.Errorf("mintNFT in bob's list: %+v", mint.Erc721Transfers)
	}
	send1155 := byHash[s.txs["send1155"].Hex()]
	if len(send1155.Erc1155Transfers) != 2 || send1155.Erc1155Transfers[1].Erc1155Token.TokenID != "8" || send1155.Erc1155Transfers[1].Value != "5" {
		t.Errorf("send1155 in bob's list: %+v", send1155.Erc1155Transfers)
	}
	factoryTx := byHash[s.txs["factory"].Hex()]
	if len(factoryTx.InternalTransactions) != 1 || factoryTx.InternalTransactions[0].To.Address != bob.Hex() ||
		factoryTx.InternalTransactions[0].InternalTxType != "CALL" || factoryTx.NativeTransaction.Method.MethodHash != "0xdeadbeef" ||
		factoryTx.NativeTransaction.Method.MethodName != "" {
		t.Errorf("factory in bob's list: %+v %+v", factoryTx.InternalTransactions, factoryTx.NativeTransaction.Method)
	}

	// carol: received B and an NFT, the target of a reverted call, and the
	// sender of block 8's first transaction.
	carolTxs := hashes(allTxs(e, carol, "&sortOrder=asc", 100))
	if want := append(s.named("sendB", "sendNFT", "factory"), c.Block(8).Transactions[0].Hash.Hex()); !slices.Equal(carolTxs, want) {
		t.Errorf("carol's transactions %v, want %v", carolTxs, want)
	}
	// dave: below the reverted frame, the CALLCODE, and his own send; not
	// the failed transfer, which emitted nothing.
	if got, want := hashes(allTxs(e, dave, "&sortOrder=asc", 100)), s.named("factory", "daveSends"); !slices.Equal(got, want) {
		t.Errorf("dave's transactions %v, want %v", got, want)
	}
	// The creation of token A: to is the contract.
	aliceTxs := allTxs(e, alice, "&sortOrder=asc", 100)
	if m := aliceTxs[1].NativeTransaction; m.TxHash != s.txs["createA"].Hex() || m.Method.CallType != "CONTRACT_CREATION" ||
		m.Method.MethodName != "Contract Created" || m.To.Address != tokA.Hex() {
		t.Errorf("createA: %+v", m)
	}
	var failed api.TransactionDetails
	for _, tx := range aliceTxs {
		if tx.NativeTransaction.TxHash == s.txs["failed"].Hex() {
			failed = tx
		}
	}
	if failed.NativeTransaction.TxStatus != "0" || len(failed.Erc20Transfers) != 0 {
		t.Errorf("failed transaction: %+v", failed)
	}
}

// TestGetTransaction: the single-transaction answer is complete.
func TestGetTransaction(t *testing.T) {
	e, _, s := scenarioEnv(t, 0)
	var tx api.GetTransactionResponse
	e.getJSON("/v1/chains/43112/transactions/"+s.txs["factory"].Hex(), &tx)
	var types []string
	for _, it := range tx.InternalTransactions {
		types = append(types, fmt.Sprintf("%s:%s>%s:%v", it.InternalTxType, it.From.Address[:6], it.To.Address[:6], it.IsReverted))
	}
	f, ca, da := factory.Hex()[:6], carol.Hex()[:6], dave.Hex()[:6]
	want := []string{
		"CALL:" + f + ">" + bob.Hex()[:6] + ":false", "CREATE:" + f + ">" + child1.Hex()[:6] + ":false",
		"CREATE2:" + f + ">" + proxy.Hex()[:6] + ":false", "CREATE3:" + proxy.Hex()[:6] + ">" + child2.Hex()[:6] + ":false",
		"CALL:" + f + ">" + ca + ":true", "CALL:" + ca + ">" + da + ":true", "CALLCODE:" + f + ">" + da + ":false",
	}
	if !slices.Equal(types, want) {
		t.Errorf("internal transactions:\n%v\nwant\n%v", types, want)
	}
	n := tx.NativeTransaction
	if n.Input != "0xdeadbeef" || n.BaseFeePerGas != "25000000000" || n.MaxFeePerGas != "50000000000" || n.MaxPriorityFeePerGas != "1000000000" ||
		n.Value != "3000000000000000000" || n.BlockNumber != "6" || tx.NetworkTokenDetails.NetworkToken.Symbol != "AVAX" {
		t.Errorf("factory transaction: %+v %+v", n, tx.NetworkTokenDetails)
	}
	if tx.NetworkTokenDetails.CurrentPrice != nil || tx.NetworkTokenDetails.HistoricalPrice != nil {
		t.Error("prices without a price source")
	}
	e.getJSON("/v1/chains/43112/transactions/0X"+strings.ToUpper(s.txs["sendB"].Hex()[2:]), &tx)
	if len(tx.Erc20Transfers) != 2 || tx.Erc20Transfers[0].From.Address != zero.Hex() || tx.Erc20Transfers[1].To.Address != carol.Hex() {
		t.Errorf("sendB (hash in another case): %+v", tx.Erc20Transfers)
	}
	e.getJSON("/v1/chains/"+chainC.ID.String()+"/transactions/"+s.txs["mintNFT"].Hex(), &tx)
	if len(tx.Erc721Transfers) != 2 {
		t.Fatalf("mintNFT by blockchain ID: %+v", tx.Erc721Transfers)
	}
	md := tx.Erc721Transfers[0].Erc721Token.Metadata
	if md.IndexStatus != "INDEXED" || md.Name != "Thing #1" || md.ImageURI != "ipfs://img/1" || md.Attributes != `[{"trait_type":"n","value":1}]` ||
		md.MetadataLastUpdatedTimestamp == nil || tx.Erc721Transfers[0].Erc721Token.Name != "Things" {
		t.Errorf("NFT 1 metadata: %+v", tx.Erc721Transfers[0].Erc721Token)
	}
}

// TestTransferLists: the ERC-721, ERC-1155 and internal transaction lists.
func TestTransferLists(t *testing.T) {
	e, _, s := scenarioEnv(t, 0)
	var l721 api.ListErc721TransactionsResponse
	e.getJSON("/v1/chains/43112/addresses/"+carol.Hex()+"/transactions:listErc721", &l721)
	if len(l721.Transactions) != 1 || l721.Transactions[0].TxHash != s.txs["sendNFT"].Hex() || l721.Transactions[0].BlockNumber != "4" ||
		l721.Transactions[0].Erc721Token.TokenID != "1" || l721.Transactions[0].LogIndex != 2 {
		t.Errorf("carol's ERC-721 transfers: %+v", l721)
	}
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/transactions:listErc721?sortOrder=asc", &l721)
	if len(l721.Transactions) != 2 || l721.Transactions[0].To.Address != alice.Hex() || l721.Transactions[1].From.Address != alice.Hex() {
		t.Errorf("alice's ERC-721 transfers: %+v", l721)
	}
	var l1155 api.ListErc1155TransactionsResponse
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/transactions:listErc1155?sortOrder=asc", &l1155)
	var got []string
	for _, x := range l1155.Transactions {
		got = append(got, fmt.Sprintf("%d:%s:%s", x.LogIndex, x.Erc1155Token.TokenID, x.Value))
	}
	if want := []string{"0:7:10", "1:7:5", "1:8:5", "2:7:3", "2:8:5"}; !slices.Equal(got, want) {
		t.Errorf("alice's ERC-1155 transfers %v, want %v", got, want)
	}
	if md := l1155.Transactions[0].Erc1155Token.Metadata; md.IndexStatus != "INDEXED" || md.Name != "Multi {id}" || md.Decimals == nil || *md.Decimals != 0 {
		t.Errorf("ERC-1155 metadata: %+v", md)
	}
	var internal api.ListInternalTransactionsResponse
	e.getJSON("/v1/chains/43112/addresses/"+dave.Hex()+"/transactions:listInternals", &internal)
	got = nil
	for _, x := range internal.Transactions {
		got = append(got, fmt.Sprintf("%s:%v:%s", x.InternalTxType, x.IsReverted, x.Value))
	}
	if want := []string{"CALLCODE:false:5", "CALL:true:1"}; !slices.Equal(got, want) {
		t.Errorf("dave's internal transactions %v, want %v", got, want)
	}
	e.getJSON("/v1/chains/43112/addresses/"+factory.Hex()+"/transactions:listInternals?pageSize=100", &internal)
	if len(internal.Transactions) != 5 {
		t.Errorf("the factory's internal transactions: %d, want 5 (not the CREATE3, which the proxy ran)", len(internal.Transactions))
	}
}

// TestBalancesAtEveryBlock: the ERC-20 and ERC-1155 balances of every
// holder at every block, and the native balances, are what the chain
// answers at that block, through mints, burns, batches and a token that
// changed a balance without an event.
func TestBalancesAtEveryBlock(t *testing.T) {
	e, c, _ := scenarioEnv(t, 3)
	head := c.Head()
	for _, h := range c.Holders() {
		for n := uint64(0); n <= head; n++ {
			want := c.BalanceOf(h.Token, h.Holder, h.ID, n)
			got := new(big.Int)
			if h.ID == nil {
				var resp api.ListErc20BalancesResponse
				e.getJSON(fmt.Sprintf("/v1/chains/43112/addresses/%s/balances:listErc20?blockNumber=%d&contractAddresses=%s", h.Holder.Hex(), n, h.Token.Hex()), &resp)
				if len(resp.Erc20TokenBalances) > 1 {
					t.Fatalf("filter by one contract: %+v", resp)
				}
				if len(resp.Erc20TokenBalances) == 1 {
					got.SetString(resp.Erc20TokenBalances[0].Balance, 10)
				}
				if native := c.NativeBalance(h.Holder, n).String(); resp.NativeTokenBalance.Balance != native {
					t.Errorf("native balance of %s at %d = %s, want %s", h.Holder.Hex()[:6], n, resp.NativeTokenBalance.Balance, native)
				}
			} else {
				var resp api.ListErc1155BalancesResponse
				e.getJSON(fmt.Sprintf("/v1/chains/43112/addresses/%s/balances:listErc1155?blockNumber=%d&contractAddress=%s&pageSize=500", h.Holder.Hex(), n, h.Token.Hex()), &resp)
				for _, b := range resp.Erc1155TokenBalances {
					if b.TokenID == h.ID.String() {
						got.SetString(b.Balance, 10)
					}
				}
			}
			if got.Cmp(want) != 0 {
				t.Errorf("balance of %s in %s (id %v) at block %d = %s, want %s", h.Holder.Hex()[:6], h.Token.Hex()[:6], h.ID, n, got, want)
			}
		}
	}
	// Latest: every non-zero balance, by token address.
	var resp api.ListErc20BalancesResponse
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20", &resp)
	var got []string
	for _, b := range resp.Erc20TokenBalances {
		got = append(got, b.Symbol+"="+b.Balance)
		if b.TokenReputation != nil || b.Price != nil || b.BalanceValue != nil {
			t.Errorf("%s: reputation or prices without a source", b.Symbol)
		}
	}
	wantA := c.BalanceOf(tokA, alice, nil, head)
	if want := []string{"TKA=" + wantA.String(), "TKB=45000000000000000000"}; !slices.Equal(got, want) {
		t.Errorf("alice's ERC-20 balances %v, want %v", got, want)
	}
	if resp.NativeTokenBalance.Balance != c.NativeBalance(alice, head).String() || resp.NativeTokenBalance.Symbol != "AVAX" {
		t.Errorf("alice's native balance: %+v", resp.NativeTokenBalance)
	}
	// bob burnt some A and received some; his B is zero: not listed.
	e.getJSON("/v1/chains/43112/addresses/"+bob.Hex()+"/balances:listErc20", &resp)
	if len(resp.Erc20TokenBalances) != 1 || resp.Erc20TokenBalances[0].Balance != c.BalanceOf(tokA, bob, nil, head).String() {
		t.Errorf("bob's ERC-20 balances: %+v", resp.Erc20TokenBalances)
	}
	// dave: the events say -20, the token says 30.
	e.getJSON("/v1/chains/43112/addresses/"+dave.Hex()+"/balances:listErc20?blockNumber=8", &resp)
	if len(resp.Erc20TokenBalances) != 1 || resp.Erc20TokenBalances[0].Balance != "30" {
		t.Errorf("dave's balance after the silent mint: %+v", resp.Erc20TokenBalances)
	}
}

// TestCollectibles: what each address owns now.
func TestCollectibles(t *testing.T) {
	e, _, _ := scenarioEnv(t, 0)
	for _, tc := range []struct {
		holder common.Address
		query  string
		want   []string
	}{
		{bob, "", []string{"ERC-1155:7:3", "ERC-1155:8:5", "ERC-721:2:"}},
		{carol, "", []string{"ERC-721:1:"}},
		{alice, "", []string{"ERC-1155:7:12"}},
		{bob, "&contractAddress=" + nft.Hex(), []string{"ERC-721:2:"}},
		{dave, "", nil},
	} {
		var resp struct {
			CollectibleBalances []map[string]any `json:"collectibleBalances"`
		}
		e.getJSON("/v1/chains/43112/addresses/"+tc.holder.Hex()+"/balances:listCollectibles?pageSize=10"+tc.query, &resp)
		var got []string
		for _, b := range resp.CollectibleBalances {
			bal, _ := b["balance"].(string)
			got = append(got, fmt.Sprintf("%s:%s:%s", b["ercType"], b["tokenId"], bal))
			if b["ercType"] == "ERC-721" && b["ownerAddress"] != tc.holder.Hex() {
				t.Errorf("ownerAddress %v", b["ownerAddress"])
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("collectibles of %s%s: %v, want %v", tc.holder.Hex()[:6], tc.query, got, tc.want)
		}
	}
}

// TestChainsBlocksDeployments: /v1/chains, blocks, deployments, address
// chains and vertices.
func TestChainsBlocksDeployments(t *testing.T) {
	e, c, s := scenarioEnv(t, 0)
	var chains api.ListChainsResponse
	e.getJSON("/v1/chains", &chains)
	if len(chains.Chains) != 1 {
		t.Fatalf("chains: %+v", chains)
	}
	ci := chains.Chains[0]
	// Without public-url, the URLs are on the host the request went to.
	host := strings.TrimPrefix(e.h.ModuleURL(), "http://")
	if ci.ChainID != "43112" || ci.Status != "OK" || ci.ChainName != "C-Chain" || ci.VMName != "EVM" || !ci.IsTestnet ||
		ci.RPCURL != "http://"+host+"/ext/bc/C/rpc" || ci.WSURL != "ws://"+host+"/ext/bc/C/ws" ||
		ci.PlatformChainID != chainC.ID.String() || ci.NetworkToken.Symbol != "AVAX" {
		t.Errorf("chain: %+v", ci)
	}
	for _, q := range []string{"?network=mainnet", "?feature=webhooks"} {
		e.getJSON("/v1/chains"+q, &chains)
		if len(chains.Chains) != 0 {
			t.Errorf("/v1/chains%s: %+v", q, chains)
		}
	}
	for _, q := range []string{"?network=fuji", "?network=testnet"} {
		e.getJSON("/v1/chains"+q, &chains)
		if len(chains.Chains) != 1 {
			t.Errorf("/v1/chains%s: %+v", q, chains)
		}
	}

	var blk api.Block
	e.getJSON("/v1/chains/43112/blocks/2", &blk)
	b2 := c.Block(2)
	if blk.BlockHash != b2.Hash.Hex() || blk.ParentHash != c.Block(1).Hash.Hex() || blk.TxCount != 2 || blk.CumulativeTransactions != "4" ||
		blk.FeesSpent != "1050000000000000" || blk.GasUsed != "42000" || blk.BaseFee != "25000000000" || blk.BlockTimestamp != uint64(b2.Timestamp) {
		t.Errorf("block 2: %+v", blk)
	}
	var byHash api.Block
	e.getJSON("/v1/chains/43112/blocks/"+b2.Hash.Hex(), &byHash)
	if byHash != blk {
		t.Errorf("block 2 by hash: %+v", byHash)
	}
	e.getJSON("/v1/chains/43112/blocks/0", &blk)
	if blk.BlockNumber != "0" || blk.TxCount != 0 || blk.CumulativeTransactions != "0" {
		t.Errorf("genesis: %+v", blk)
	}

	var deps api.ListContractsResponse
	e.getJSON("/v1/chains/43112/contracts/"+alice.Hex()+"/deployments", &deps)
	var got []string
	for _, d := range deps.Contracts {
		got = append(got, fmt.Sprintf("%s:%s:%s", d.Address[:6], d.ErcType, d.DeploymentDetails.DeployerContractAddress))
	}
	want := []string{"0x70ca:ERC-20:", "0xc41D:UNKNOWN:" + factory.Hex(), "0x9d0c:UNKNOWN:" + factory.Hex(), "0xc41D:ERC-721:" + proxy.Hex()}
	if !slices.Equal(got, want) {
		t.Errorf("alice's deployments %v, want %v", got, want)
	}
	if d := deps.Contracts[0]; d.Name != "Token A" || d.Symbol != "TKA" || d.Decimals == nil || *d.Decimals != 6 || d.DeploymentDetails.TxHash != s.txs["createA"].Hex() {
		t.Errorf("token A's deployment: %+v", d)
	}
	e.getJSON("/v1/chains/43112/contracts/"+proxy.Hex()+"/deployments", &deps)
	if len(deps.Contracts) != 1 || deps.Contracts[0].Address != child2.Hex() || deps.Contracts[0].Name != "Child" {
		t.Errorf("the proxy's deployments: %+v", deps)
	}

	var ac api.ListAddressChainsResponse
	e.getJSON("/v1/address/"+strings.ToLower(carol.Hex())+"/chains", &ac)
	if len(ac.IndexedChains) != 1 || ac.IndexedChains[0].ChainID != "43112" || len(ac.UnindexedChains) != 0 {
		t.Errorf("carol's chains: %+v", ac)
	}
	e.getJSON("/v1/address/0x00000000000000000000000000000000000000aa/chains", &ac)
	if len(ac.IndexedChains) != 0 {
		t.Errorf("a stranger's chains: %+v", ac)
	}
	e.wantError("/v1/networks/fuji/blockchains/x-chain/vertices/2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM", 404,
		"vertices are not available: this node runs no X-Chain")
}

// TestPagination: every list pages to the end in both orders and within
// block windows, with the same items as one big page.
func TestPagination(t *testing.T) {
	e, c, _ := scenarioEnv(t, 30)
	full := hashes(allTxs(e, alice, "&sortOrder=asc", 100))
	if len(full) != 12+60 {
		t.Fatalf("alice has %d transactions, want 72", len(full))
	}
	for _, size := range []int{1, 7, 72, 100} {
		if got := hashes(allTxs(e, alice, "&sortOrder=asc", size)); !slices.Equal(got, full) {
			t.Errorf("asc in pages of %d: %d items, differ", size, len(got))
		}
		got := hashes(allTxs(e, alice, "", size))
		slices.Reverse(got)
		if !slices.Equal(got, full) {
			t.Errorf("desc (default) in pages of %d: %d items, differ", size, len(got))
		}
	}
	blockOf := map[string]uint64{}
	for n := uint64(0); n <= c.Head(); n++ {
		for _, tx := range c.Block(n).Transactions {
			blockOf[tx.Hash.Hex()] = n
		}
	}
	for _, w := range []struct {
		query    string
		from, to uint64
	}{
		{"&startBlock=5&endBlock=20", 5, 20},
		{"&startBlock=30", 30, 1 << 62},
		{"&endBlock=4", 0, 4},
		{"&startBlock=38&endBlock=39", 38, 39},
		{"&startBlock=100", 100, 1 << 62},
	} {
		var want []string
		for _, h := range full {
			if n := blockOf[h]; n >= w.from && n < w.to {
				want = append(want, h)
			}
		}
		for _, order := range []string{"asc", "desc"} {
			got := hashes(allTxs(e, alice, w.query+"&sortOrder="+order, 4))
			if order == "desc" {
				slices.Reverse(got)
			}
			if !slices.Equal(got, want) {
				t.Errorf("window %s %s: %d items, want %d", w.query, order, len(got), len(want))
			}
		}
	}
	// Balances page by token; deployments and transfers by position.
	var token string
	var symbols []string
	for {
		var resp api.ListErc20BalancesResponse
		path := "/v1/chains/43112/addresses/" + alice.Hex() + "/balances:listErc20?pageSize=1"
		if token != "" {
			path += "&pageToken=" + token
		}
		e.getJSON(path, &resp)
		for _, b := range resp.Erc20TokenBalances {
			symbols = append(symbols, b.Symbol)
		}
		if token = resp.NextPageToken; token == "" {
			break
		}
	}
	if !slices.Equal(symbols, []string{"TKA", "TKB"}) {
		t.Errorf("alice's balances in pages of 1: %v", symbols)
	}
	var addrs []string
	token = ""
	for {
		var resp api.ListContractsResponse
		path := "/v1/chains/43112/contracts/" + alice.Hex() + "/deployments?pageSize=1"
		if token != "" {
			path += "&pageToken=" + token
		}
		e.getJSON(path, &resp)
		for _, d := range resp.Contracts {
			addrs = append(addrs, d.Address)
		}
		if token = resp.NextPageToken; token == "" {
			break
		}
	}
	if len(addrs) != 4 || addrs[0] != tokA.Hex() || addrs[3] != child2.Hex() {
		t.Errorf("alice's deployments in pages of 1: %v", addrs)
	}
}

// TestBalancePagesKeepTheirBlock: the pages of a balance list without
// blockNumber all read the block the first page read, however far the
// chain moves meanwhile.
func TestBalancePagesKeepTheirBlock(t *testing.T) {
	e, c, _ := scenarioEnv(t, 0)
	var first api.ListErc20BalancesResponse
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20?pageSize=1", &first)
	if first.NextPageToken == "" || first.Erc20TokenBalances[0].Symbol != "TKA" {
		t.Fatalf("first page: %+v", first)
	}
	before := c.Head()
	b := c.NewBlock()
	b.Tx(alice, &tokB, nil, nil).ERC20(tokB, alice, bob, e18(40))
	b.Commit()
	e.sync(chainC.ID)
	e.waitIndexed("C", c.Head())
	var second api.ListErc20BalancesResponse
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20?pageSize=1&pageToken="+first.NextPageToken, &second)
	if len(second.Erc20TokenBalances) != 1 || second.Erc20TokenBalances[0].Balance != c.BalanceOf(tokB, alice, nil, before).String() {
		t.Errorf("second page: %+v, want B at block %d", second.Erc20TokenBalances, before)
	}
	var now api.ListErc20BalancesResponse
	e.getJSON("/v1/chains/43112/addresses/"+alice.Hex()+"/balances:listErc20?contractAddresses="+tokB.Hex(), &now)
	if len(now.Erc20TokenBalances) != 1 || now.Erc20TokenBalances[0].Balance != "5000000000000000000" {
		t.Errorf("B now: %+v", now.Erc20TokenBalances)
	}
}
