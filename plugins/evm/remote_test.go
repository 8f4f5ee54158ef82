package evm_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/chainhost/chainhost/avax/evmremote"
)

// TestRemoteBlocksAreIndexerBlocks: evmremote, reading the chain through
// its public JSON-RPC only (eth_getBlockByNumber, eth_getBlockReceipts,
// debug_traceBlockByHash's call tracer), answers the very bytes the
// indexer handler's indexer_getBlocks answers from the database and the
// recorded frames, for every kind of frame (buildCallsChain): the data
// module indexes a chain of another node as it indexes the node's own.
func TestRemoteBlocksAreIndexerBlocks(t *testing.T) {
	cc := buildCallsChain(t, "")
	c, err := evmremote.Dial(t.Context(), evmremote.Options{URL: cc.c.h.URL("rpc"), InFlight: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	count := int(cc.head) + 1
	remote, err := c.Blocks(t.Context(), 0, count)
	if err != nil {
		t.Fatalf("evmremote Blocks: %v", err)
	}
	if len(remote) != count || c.Tracing() != evmremote.TracingDebug {
		t.Fatalf("evmremote read %d blocks (tracing %q), want %d with the call tracer", len(remote), c.Tracing(), count)
	}
	got, err := json.Marshal(remote)
	if err != nil {
		t.Fatal(err)
	}
	want := getBlocksRaw(t, cc.ix, 0, uint64(count))
	if !bytes.Equal(got, want) {
		ix := getBlocks(t, cc.ix, 0, uint64(count))
		for i := range ix {
			for j := range ix[i].Transactions {
				if !jsonEqual(t, remote[i].Transactions[j], ix[i].Transactions[j]) {
					g, _ := json.Marshal(remote[i].Transactions[j])
					w, _ := json.Marshal(ix[i].Transactions[j])
					t.Fatalf("block %d transaction %d read by evmremote:\n%s\nindexer_getBlocks:\n%s", i, j, g, w)
				}
			}
		}
		t.Fatalf("evmremote's blocks:\n%s\nindexer_getBlocks:\n%s", got, want)
	}
}
