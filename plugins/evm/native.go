package evm

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// nativeMethods are the chain-native methods of SPEC A2, served under the
// prefixes "native." (SPEC's name) and "avax." (what existing clients call).
var nativeMethods = []string{"getUTXOs", "issueTx", "getAtomicTxStatus", "getAtomicTx"}

// newNativeHandler serves the chain-native methods; until the X-Chain
// exists every one answers a -32000 error saying so.
func newNativeHandler(prefix string, maxBatch int) http.Handler {
	s := jsonrpc.NewServer(jsonrpc.Options{MaxBatchSize: maxBatch})
	for _, m := range nativeMethods {
		name := prefix + "." + m
		s.Register(name, func(context.Context, json.RawMessage) (any, error) {
			return nil, jsonrpc.ServerError("%s is not available until the X-Chain exists: this node runs no X-Chain to exchange atomic transactions with", name)
		})
	}
	return s
}
