package gethtest

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/ethclient"
)

// TestStart: the node answers on both URLs, as the dev chain (ID 1337).
func TestStart(t *testing.T) {
	rpcURL, wsURL := Start(t)
	for _, url := range []string{rpcURL, wsURL} {
		c, err := ethclient.Dial(url)
		if err != nil {
			t.Fatalf("dial %s: %v", url, err)
		}
		id, err := c.ChainID(context.Background())
		c.Close()
		if err != nil {
			t.Fatalf("%s: eth_chainId: %v", url, err)
		}
		if id.Uint64() != 1337 {
			t.Fatalf("%s: chain ID %d, want geth --dev's 1337", url, id)
		}
	}
}
