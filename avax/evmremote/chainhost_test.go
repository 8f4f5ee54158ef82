package evmremote_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/chainhost/chainhost/core/nodetest"
)

// localKey is the local network's funded key on the C-Chain (a public
// test value).
const localKey = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// TestChainhostCChain reads the C-Chain of a real chainhost node (the
// embedded default config) through /ext/bc/C/rpc after every kind of call
// frame, and checks it as TestGeth checks geth's. (That these blocks are
// the very bytes of the EVM's own indexer_getBlocks is
// plugins/evm's TestRemoteBlocksAreIndexerBlocks.)
func TestChainhostCChain(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{})
	n.WaitHealthy(t)
	key, err := crypto.HexToECDSA(localKey)
	if err != nil {
		t.Fatal(err)
	}
	url := n.URL + "/ext/bc/C/rpc"
	checkChain(t, url, activity(t, url, crypto.PubkeyToAddress(key.PublicKey), key))
}
