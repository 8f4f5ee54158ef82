package evm_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// The well-known local-network key, funded in testGenesis.
const localKeyHex = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

func localKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(localKeyHex)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// testGenesis is a London+Shanghai+Cancun chain with the local key funded.
func testGenesis(chainID uint64) string {
	return fmt.Sprintf(`{
	"config": {"chainId": %d, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0, "eip158Block": 0,
		"byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
		"muirGlacierBlock": 0, "berlinBlock": 0, "londonBlock": 0, "shanghaiTime": 0, "cancunTime": 0,
		"terminalTotalDifficulty": 0},
	"gasLimit": "0x1c9c380", "difficulty": "0x0",
	"alloc": {"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": {"balance": "0x295be96e64066972000000"}}
}`, chainID)
}

// testChain is a started VM with clients on its handlers.
type testChain struct {
	h      *plugintest.Harness
	rpc    *rpc.Client
	client *ethclient.Client
}

// startChain runs the VM with the config JSON (merged into a small-cache
// default) behind the plugintest harness.
func startChain(t *testing.T, chainID uint64, config string) *testChain {
	t.Helper()
	cfg := map[string]any{"cache-mb": 16, "keystore-light-kdf": true, "log-level": "warn"}
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
	h := plugintest.Start(t, evm.New(), plugintest.Options{Name: "C", Genesis: []byte(testGenesis(chainID)), Config: raw})
	c, err := rpc.Dial(h.URL("rpc"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &testChain{h: h, rpc: c, client: ethclient.NewClient(c)}
}

// transfer signs and sends a value transfer from the local key.
func transfer(t *testing.T, ctx context.Context, c *ethclient.Client, key *ecdsa.PrivateKey, nonce uint64, to common.Address, value *big.Int) *types.Transaction {
	t.Helper()
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, To: &to, Value: value, Gas: 21000,
		GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(100e9),
	})
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("send tx %d: %v", nonce, err)
	}
	return tx
}

// waitReceipt polls for a transaction's receipt.
func waitReceipt(t *testing.T, ctx context.Context, c *ethclient.Client, hash common.Hash) *types.Receipt {
	t.Helper()
	var r *types.Receipt
	plugintest.Eventually(t, 30*time.Second, func() error {
		var err error
		if r, err = c.TransactionReceipt(ctx, hash); err != nil {
			return fmt.Errorf("no receipt for %s: %w", hash, err)
		}
		return nil
	})
	return r
}
