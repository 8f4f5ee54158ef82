// Package load drives a realistic mix of requests over every interface of
// a running node at a fixed rate, with vegeta as the pacer, and reads what
// the node's processes hold while it does: the load and soak runs of
// docs/benchmarks.md ("Load and soak"), in load_test.go.
package load

import (
	"encoding/json"
	"net/http"
	"strings"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The local network's funded accounts (public test values, README).
const (
	FundedEVM = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
	FundedX   = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
)

// Category is one part of the mix: requests to one interface, at a share
// of the total rate, taken in turn from Targets.
type Category struct {
	Name string
	// PerMille is the category's share of the total rate.
	PerMille int
	Targets  []vegeta.Target
	// JSONRPC marks answers in which an error object is a failure.
	JSONRPC bool
}

// TxPerMille is the share of the total rate sent as EVM transfers
// (eth_sendRawTransaction), by TxSender rather than by the mix.
const TxPerMille = 10

// call is a JSON-RPC POST to path.
func call(base, path, method string, params any) vegeta.Target {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		panic(err) // the params below are literals
	}
	return vegeta.Target{Method: http.MethodPost, URL: base + path, Body: body,
		Header: http.Header{"Content-Type": []string{"application/json"}}}
}

// get is a GET of path.
func get(base, path string) vegeta.Target {
	return vegeta.Target{Method: http.MethodGet, URL: base + path}
}

// Mix is the read mix over every interface of the default node: its
// shares and TxPerMille make 1000.
func Mix(base string) []Category {
	latest := []any{"latest"}
	return []Category{
		{Name: "EVM reads (C rpc)", PerMille: 400, JSONRPC: true, Targets: []vegeta.Target{
			call(base, "/ext/bc/C/rpc", "eth_blockNumber", []any{}),
			call(base, "/ext/bc/C/rpc", "eth_getBalance", append([]any{FundedEVM}, latest...)),
			call(base, "/ext/bc/C/rpc", "eth_chainId", []any{}),
			call(base, "/ext/bc/C/rpc", "eth_getBlockByNumber", []any{"latest", false}),
			call(base, "/ext/bc/C/rpc", "eth_call", []any{map[string]string{"to": FundedEVM, "data": "0x"}, "latest"}),
			call(base, "/ext/bc/C/rpc", "eth_getTransactionCount", append([]any{FundedEVM}, latest...)),
			call(base, "/ext/bc/C/rpc", "eth_gasPrice", []any{}),
		}},
		{Name: "X reads (avm.*)", PerMille: 150, JSONRPC: true, Targets: []vegeta.Target{
			call(base, "/ext/bc/X", "avm.getHeight", map[string]any{}),
			call(base, "/ext/bc/X", "avm.getBalance", map[string]any{"address": FundedX, "assetID": "AVAX"}),
			call(base, "/ext/bc/X", "avm.getUTXOs", map[string]any{"addresses": []string{FundedX}, "limit": 10}),
			call(base, "/ext/bc/X", "avm.getTxFee", map[string]any{}),
			call(base, "/ext/bc/X", "avm.getAssetDescription", map[string]any{"assetID": "AVAX"}),
		}},
		{Name: "index", PerMille: 100, JSONRPC: true, Targets: []vegeta.Target{
			call(base, "/ext/index/C/block", "index.getLastAccepted", map[string]any{"encoding": "hex"}),
			call(base, "/ext/index/C/block", "index.getContainerByIndex", map[string]any{"index": 0, "encoding": "hex"}),
			call(base, "/ext/index/C/block", "index.getContainerRange", map[string]any{"startIndex": 0, "numToFetch": 10, "encoding": "hex"}),
			call(base, "/ext/index/X/tx", "index.getLastAccepted", map[string]any{"encoding": "hex"}),
			call(base, "/ext/index/X/block", "index.getContainerByIndex", map[string]any{"index": 0, "encoding": "hex"}),
		}},
		{Name: "data API pages", PerMille: 150, Targets: []vegeta.Target{
			get(base, "/v1/chains/43112/addresses/"+FundedEVM+"/transactions?pageSize=10"),
			get(base, "/v1/chains/43112/addresses/"+FundedEVM+"/balances:listErc20"),
			get(base, "/v1/chains/43112/blocks/1"),
			get(base, "/v1/chains"),
			get(base, "/v1/address/"+FundedEVM+"/chains"),
		}},
		{Name: "metrics avg_tps", PerMille: 100, Targets: []vegeta.Target{
			get(base, "/v1/avg_tps/43112"),
			get(base, "/v1/avg_tps/X"),
		}},
		{Name: "health", PerMille: 50, Targets: []vegeta.Target{get(base, "/ext/health")}},
		{Name: "info", PerMille: 40, JSONRPC: true, Targets: []vegeta.Target{
			call(base, "/ext/info", "info.getNetworkID", map[string]any{}),
			call(base, "/ext/info", "info.getBlockchainID", map[string]any{"alias": "X"}),
		}},
	}
}

// failed reports why an answer of a category is a failure, or "" when it
// is not; rateLimited marks a 429, a rate-limit answer counted apart.
func (c Category) failed(r *vegeta.Result) (why string, rateLimited bool) {
	switch {
	case r.Error != "" && r.Code == 0:
		return r.Error, false
	case r.Code == http.StatusTooManyRequests:
		return "", true
	case r.Code < 200 || r.Code > 299:
		return http.StatusText(int(r.Code)), false
	case c.JSONRPC && strings.Contains(string(r.Body), `"error":`):
		return "JSON-RPC error: " + string(r.Body), false
	}
	return "", false
}
