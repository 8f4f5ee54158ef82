package dataapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxoclient"
	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/plugins/pvm/client"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The P-Chain of these tests: the ewoq key funded at genesis, one
// genesis validator, a manual clock.
const (
	pT0       = 1_767_225_600
	ewoqKey   = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
	ewoqAddr  = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	avaxAsset = "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"
	pConfig   = `{"clock":"manual","dev-api-enabled":true}`
)

func pGenesis() string {
	return fmt.Sprintf(`{"avaxAssetID":%q,"timestamp":%d,"allocations":[{"address":%q,"amount":"300000000000000000"}],
		"validators":[{"nodeID":%q,"weight":"2000000000000","endTime":%d,"rewardAddress":%q}]}`,
		avaxAsset, pT0, ewoqAddr, avax.NodeID{0xee, 1}, pT0+30*86400, ewoqAddr)
}

// xInfo is a primary-network chain of the module's registry beside the
// P-Chain: the blockchains list shows it as made by the genesis.
var xInfo = host.ChainInfo{ID: ids.ID{0xa}, VMID: ids.ID{'a', 'v', 'm'}, VMName: "avm", Aliases: []string{"X"}, Running: true}

// TestPChainIndexed: the module follows a real P-Chain VM (its blocks
// given to the module's index as the node would) and its block, subnet
// and blockchain endpoints answer what the chain's own platform methods
// say, in the contract's shapes, each list paged to its end each way.
func TestPChainIndexed(t *testing.T) {
	ctx := context.Background()
	ph := plugintest.Start(t, pvm.New(), plugintest.Options{
		Name: "P", NetworkID: avax.LocalID, Genesis: []byte(pGenesis()), Config: []byte(pConfig),
	})
	key, err := avax.ParsePrivateKey(ewoqKey)
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewEndpoint(ph.URL(""), "P", nil)
	cfg, err := cl.GetConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := &client.Wallet{Client: cl, Account: utxoclient.Account{Key: key, NetworkID: avax.LocalID, ChainID: ph.ChainID()}, Config: cfg}
	var subnets []ids.ID
	for range 3 {
		sn, err := w.CreateSubnet(ctx)
		if err != nil {
			t.Fatal(err)
		}
		subnets = append(subnets, sn)
	}
	// The chains and the conversion come later than the subnets.
	if _, err := cl.SetTime(ctx, pT0+100); err != nil {
		t.Fatal(err)
	}
	manager, err := w.CreateChain(ctx, subnets[0], "manager", ids.ID{'e', 'v', 'm'}, []byte(`{"config":{"chainId":777}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CreateChain(ctx, subnets[0], "other", ids.ID{'x', 's', 'v', 'm'}, []byte{0xff, 0x00}); err != nil {
		t.Fatal(err)
	}
	conversion, _, err := w.ConvertSubnet(ctx, subnets[0], manager, []byte{0xab, 0xcd},
		[]client.NewL1Validator{{NodeID: avax.NodeID{0x11}, Weight: 100, Balance: 1_000_000_000}})
	if err != nil {
		t.Fatal(err)
	}

	pInfo := host.ChainInfo{ID: ph.ChainID(), VMID: pvmapi.VMID, VMName: pvmapi.VMName, Aliases: []string{"P"}, IndexKinds: []string{"block"},
		InternalHandlers: ph.InternalHandlers(), Running: true}
	e := &testEnv{t: t, contract: loadContract(t)}
	e.h = plugintest.StartModule(t, dataapi.New(dataapi.Options{Now: fixedClock}), plugintest.Options{
		Name: "data", Config: []byte(noLimits), NetworkID: 12345, Prefixes: []string{"/v1/networks"},
		Chains: []host.ChainInfo{pInfo, xInfo},
		Call: func(ctx context.Context, chain host.ChainInfo, handler string, body []byte) (int, []byte, error) {
			if chain.ID != pInfo.ID {
				return 0, nil, fmt.Errorf("call %s/%s: %w", chain.ID, handler, host.ErrNotFound)
			}
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			ph.Handler(handler).ServeHTTP(rec, req)
			return rec.Code, rec.Body.Bytes(), nil
		},
	})
	blocks := ph.Containers("block")
	for _, c := range blocks {
		e.h.AppendContainer(pInfo.ID, "block", c.ID, c.Bytes)
	}
	last := uint64(len(blocks))
	plugintest.Eventually(t, 20*time.Second, func() error {
		d, err := e.h.HealthDetails(ctx)
		if err != nil {
			return err
		}
		if p, _ := d["pChain"].(map[string]any); p["height"] != float64(last) {
			return fmt.Errorf("the P-Chain is not indexed to %d: %v", last, p)
		}
		return nil
	})

	// The blocks, against platform.getBlockByHeight.
	const base = "/v1/networks/fuji/blockchains/"
	var want []api.PrimaryNetworkBlock
	for h := uint64(0); h <= last; h++ {
		var got struct {
			Block struct {
				ID       ids.ID `json:"id"`
				ParentID ids.ID `json:"parentID"`
				Time     uint64 `json:"time"`
				Txs      []struct {
					ID ids.ID `json:"id"`
				} `json:"txs"`
			} `json:"block"`
		}
		if err := jsonrpc.Call(ctx, nil, ph.URL(""), "platform.getBlockByHeight", map[string]any{"height": fmt.Sprint(h), "encoding": "json"}, &got); err != nil {
			t.Fatal(err)
		}
		b := got.Block
		blk := api.PrimaryNetworkBlock{BlockNumber: strconv.FormatUint(h, 10), BlockHash: b.ID.String(), ParentHash: b.ParentID.String(),
			BlockTimestamp: b.Time, BlockType: "BanffStandardBlock", TxCount: len(b.Txs), Transactions: []string{}}
		for _, tx := range b.Txs {
			blk.Transactions = append(blk.Transactions, tx.ID.String())
		}
		var one api.PrimaryNetworkBlock
		e.getJSON(base+"p-chain/blocks/"+b.ID.String(), &one)
		blk.BlockSizeBytes = one.BlockSizeBytes
		if one.BlockSizeBytes == 0 || fmt.Sprint(one) != fmt.Sprint(blk) {
			t.Fatalf("block %d:\n got  %+v\n want %+v", h, one, blk)
		}
		want = append(want, blk)
	}
	slices.Reverse(want)
	for _, size := range []int{1, 2, 100} {
		got := listAll[api.PrimaryNetworkBlock](e, base+pInfo.ID.String()+"/blocks?pageSize="+strconv.Itoa(size), "blocks")
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("blocks by %d:\n got  %+v\n want %+v", size, got, want)
		}
	}
	// Within times: the subnets' blocks are at pT0, the others at pT0+100.
	var later []api.PrimaryNetworkBlock
	for _, b := range want {
		if b.BlockTimestamp >= pT0+100 {
			later = append(later, b)
		}
	}
	if len(later) != 3 {
		t.Fatalf("%d blocks at pT0+100: %+v", len(later), want)
	}
	got := listAll[api.PrimaryNetworkBlock](e, base+"p-chain/blocks?startTimestamp="+strconv.Itoa(pT0+1)+"&pageSize=2", "blocks")
	if fmt.Sprint(got) != fmt.Sprint(later) {
		t.Fatalf("blocks after pT0: %+v", got)
	}
	got = listAll[api.PrimaryNetworkBlock](e, base+"p-chain/blocks?startTimestamp=0&endTimestamp="+strconv.Itoa(pT0+99)+"&pageSize=3", "blocks")
	if fmt.Sprint(got) != fmt.Sprint(want[len(later):]) {
		t.Fatalf("blocks until pT0+99: %+v", got)
	}
	if got := listAll[api.PrimaryNetworkBlock](e, base+"p-chain/blocks?endTimestamp="+strconv.Itoa(pT0-1), "blocks"); len(got) != 0 {
		t.Fatalf("blocks before genesis: %+v", got)
	}
	if got := listAll[api.PrimaryNetworkBlock](e, base+"p-chain/nodes/NodeID-111111111111111111116DBWJs/blocks", "blocks"); len(got) != 0 {
		t.Fatalf("blocks of a proposer: %+v", got)
	}

	// The blockchains, against platform.getBlockchains and the genesis's
	// X-Chain.
	var chains struct{ Blockchains []pvmapi.Blockchain }
	if err := jsonrpc.Call(ctx, nil, ph.URL(""), "platform.getBlockchains", struct{}{}, &chains); err != nil {
		t.Fatal(err)
	}
	// The chains in order of creation: platform.getBlockchains lists them
	// by ID.
	wantChains := []string{fmt.Sprint(xInfo.ID, " avm ", ids.ID{}, " X")}
	for _, name := range []string{"manager", "other"} {
		for _, c := range chains.Blockchains {
			if c.Name == name && c.SubnetID == subnets[0] {
				wantChains = append(wantChains, fmt.Sprint(c.ID, " ", vmName(c.VMID.String()), " ", c.SubnetID, " ", c.Name))
			}
		}
	}
	if len(wantChains) != 3 {
		t.Fatalf("platform.getBlockchains: %+v", chains)
	}
	for _, order := range []string{"asc", "desc"} {
		for _, size := range []int{1, 100} {
			got := listAll[api.Blockchain](e, fmt.Sprintf("/v1/networks/fuji/blockchains?sortOrder=%s&pageSize=%d", order, size), "blockchains")
			var names []string
			for _, c := range got {
				names = append(names, fmt.Sprint(c.BlockchainID, " ", vmName(c.VMID), " ", c.SubnetID, " ", c.BlockchainName))
			}
			w := slices.Clone(wantChains)
			if order == "desc" {
				slices.Reverse(w)
			}
			if !slices.Equal(names, w) {
				t.Fatalf("blockchains %s by %d:\n got  %v\n want %v", order, size, names, w)
			}
		}
	}
	var mc api.Blockchain
	e.getJSON("/v1/networks/fuji/blockchains/"+manager.String(), &mc)
	if mc.EVMChainID == nil || *mc.EVMChainID != 777 || mc.CreateBlockNumber != "4" || mc.GenesisData == nil {
		t.Fatalf("the manager chain: %+v", mc)
	}

	// The subnets, against platform.getSubnets and platform.getSubnet.
	var list struct {
		Subnets []struct {
			ID          ids.ID   `json:"id"`
			ControlKeys []string `json:"controlKeys"`
		} `json:"subnets"`
	}
	if err := jsonrpc.Call(ctx, nil, ph.URL(""), "platform.getSubnets", struct{}{}, &list); err != nil {
		t.Fatal(err)
	}
	var wantSubnets []string
	for _, sn := range list.Subnets {
		wantSubnets = append(wantSubnets, fmt.Sprint(sn.ID, " ", sn.ControlKeys))
	}
	for _, order := range []string{"asc", "desc"} {
		got := listAll[api.Subnet](e, "/v1/networks/fuji/subnets?pageSize=1&sortOrder="+order, "subnets")
		var names []string
		for _, sn := range got {
			names = append(names, fmt.Sprint(sn.SubnetID, " ", sn.SubnetOwnershipInfo.Addresses))
		}
		slices.Sort(names)
		w := slices.Clone(wantSubnets)
		slices.Sort(w)
		if !slices.Equal(names, w) {
			t.Fatalf("subnets %s:\n got  %v\n want %v", order, names, w)
		}
	}
	var l1 api.Subnet
	e.getJSON("/v1/networks/fuji/subnets/"+subnets[0].String(), &l1)
	var sn pvmapi.Subnet
	if err := jsonrpc.Call(ctx, nil, ph.URL(""), "platform.getSubnet", map[string]any{"subnetID": subnets[0].String()}, &sn); err != nil {
		t.Fatal(err)
	}
	if !l1.IsL1 || l1.L1ConversionTransactionHash != conversion.String() || l1.L1ValidatorManagerDetails == nil ||
		l1.L1ValidatorManagerDetails.BlockchainID != sn.ManagerChainID.String() || l1.L1ValidatorManagerDetails.ContractAddress != "0xabcd" ||
		len(l1.Blockchains) != 2 || l1.Blockchains[0].BlockchainID != manager.String() || l1.CreateBlockIndex != "1" {
		t.Fatalf("the L1: %+v, platform.getSubnet says %+v", l1, sn)
	}
	var primary api.Subnet
	e.getJSON("/v1/networks/fuji/subnets/11111111111111111111111111111111LpoYY", &primary)
	if len(primary.Blockchains) != 1 || primary.Blockchains[0].BlockchainName != "X" || primary.CreateBlockTimestamp != pT0 {
		t.Fatalf("the primary network: %+v", primary)
	}

	// Bad input and unknown IDs.
	e.wantError(base+"p-chain/blocks/nope", 400, `blockId: must be a block ID (CB58), got "nope"`)
	e.wantError(base+"p-chain/blocks/"+ids.ID{9}.String(), 404, "block "+ids.ID{9}.String()+" not found on the P-Chain")
	e.wantError(base+"x-chain/blocks", 404, `blockchain "x-chain": only the P-Chain's blocks and transactions are served yet (p-chain or `+pInfo.ID.String()+`)`)
	e.wantError(base+"p-chain/blocks?startTimestamp=5&endTimestamp=4", 400, "endTimestamp: must not be before startTimestamp (5), got 4")
	e.wantError(base+"p-chain/nodes/nope/blocks", 400, `nodeId: must be a node ID, NodeID- and a CB58 ID, got "nope"`)
	e.wantError("/v1/networks/fuji/subnets/"+ids.ID{9}.String(), 404, "subnet "+ids.ID{9}.String()+" not found")
	e.wantError("/v1/networks/fuji/blockchains/"+ids.ID{9}.String(), 404, "blockchain "+ids.ID{9}.String()+" not found")
	var page api.ListSubnetsResponse
	e.getJSON("/v1/networks/fuji/subnets?pageSize=1", &page)
	e.wantError(base+"p-chain/blocks?pageToken="+url.QueryEscape(page.NextPageToken), 400, "pageToken: not a valid page token for this request")
}

// vmName names the test's VM IDs.
func vmName(id string) string {
	for _, n := range []string{"avm", "evm", "xsvm"} {
		var v ids.ID
		copy(v[:], n)
		if v.String() == id {
			return n
		}
	}
	return id
}

// listAll follows a list to its end and returns its items under field.
func listAll[T any](e *testEnv, path, field string) []T {
	e.t.Helper()
	var all []T
	token := ""
	for {
		p := path
		if token != "" {
			p += "&pageToken=" + url.QueryEscape(token)
		}
		var page map[string]json.RawMessage
		e.getJSON(p, &page)
		var items []T
		if err := json.Unmarshal(page[field], &items); err != nil {
			e.t.Fatal(err)
		}
		all = append(all, items...)
		raw, ok := page["nextPageToken"]
		if !ok {
			return all
		}
		if err := json.Unmarshal(raw, &token); err != nil || token == "" {
			e.t.Fatalf("GET %s: nextPageToken %s", p, raw)
		}
	}
}
