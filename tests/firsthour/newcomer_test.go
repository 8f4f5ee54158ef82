package firsthour

import (
	"context"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"

	"github.com/chainhost/chainhost/core/nodetest"
)

// The well-known local key and its address (README, "The C-Chain").
const (
	newcomerKey    = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
	newcomerFunded = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
)

// newcomerChainID is the local C-Chain's EVM chain ID (README, "The C-Chain").
const newcomerChainID = 43112

// newcomerScripts holds the newcomer's JavaScript scripts, beside the
// conformance suite whose npm packages (chainkit, viem) they use.
const newcomerScripts = "../dataapi-sdk"

// newcomerTimeout bounds each client's script; each takes a few seconds.
const newcomerTimeout = 2 * time.Minute

// TestNewcomer: a node started as a user starts it (`make run`: the
// embedded default config, port 9650, nothing overridden) answers the
// first script a newcomer writes with each official client, run at full
// speed with retries off: go-ethereum's ethclient on the C-Chain over HTTP
// and WebSocket; viem on the C-Chain (tests/dataapi-sdk/newcomer-viem.mjs);
// chainkit on the data and metrics APIs (tests/dataapi-sdk/newcomer.mjs,
// over fifty requests to each in a few seconds, so that a rate limit a
// single user reaches fails it). avalanchego's wallets on X and P are compat/avalanchego's
// TestNewcomerWallet. The clients share the node, one after the other.
func TestNewcomer(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{AsUser: true})
	n.WaitHealthy(t)
	t.Run("ethclient", func(t *testing.T) { newcomerEthclient(t, n.URL) })
	t.Run("viem", func(t *testing.T) { newcomerScript(t, n.URL, "newcomer-viem.mjs") })
	t.Run("chainkit", func(t *testing.T) { newcomerScript(t, n.URL, "newcomer.mjs") })
}

// newcomerEthclient reads the chain ID and the funded balance over HTTP,
// subscribes to new heads over WebSocket, sends 1 AVAX to a new address
// and sees the head of its block announced.
func newcomerEthclient(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), newcomerTimeout)
	defer cancel()
	c, err := ethclient.DialContext(ctx, url+"/ext/bc/C/rpc")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	chainID, err := c.ChainID(ctx)
	if err != nil || chainID.Int64() != newcomerChainID {
		t.Fatalf("chain ID %v, %v; want %d", chainID, err, newcomerChainID)
	}
	key, err := crypto.HexToECDSA(newcomerKey)
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	if from != common.HexToAddress(newcomerFunded) {
		t.Fatalf("the well-known key's address is %s, the README says %s", from, newcomerFunded)
	}
	before, err := c.BalanceAt(ctx, from, nil)
	if err != nil || before.Sign() <= 0 {
		t.Fatalf("funded balance %v, %v", before, err)
	}

	ws, err := ethclient.DialContext(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ext/bc/C/ws")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if id, err := ws.ChainID(ctx); err != nil || id.Cmp(chainID) != 0 {
		t.Fatalf("chain ID over WebSocket %v, %v", id, err)
	}
	heads := make(chan *types.Header, 16)
	sub, err := ws.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatalf("subscribe newHeads: %v", err)
	}
	defer sub.Unsubscribe()

	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := crypto.PubkeyToAddress(fresh.PublicKey)
	value := big.NewInt(params.Ether)
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas: params.TxGas, To: &to, Value: value,
	})
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("send: %v", err)
	}

	// Each announced head: the receipt is there once its block is.
	var receipt *types.Receipt
	for receipt == nil {
		select {
		case h := <-heads:
			r, err := c.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				continue
			}
			if r.BlockNumber.Cmp(h.Number) != 0 || r.BlockHash != h.Hash() {
				t.Fatalf("head %d (%s) announced, the transaction is in block %d (%s)", h.Number, h.Hash(), r.BlockNumber, r.BlockHash)
			}
			receipt = r
		case err := <-sub.Err():
			t.Fatalf("newHeads subscription: %v", err)
		case <-ctx.Done():
			t.Fatal("no head announced with the transaction's block")
		}
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transfer failed: %+v", receipt)
	}
	if got, err := c.BalanceAt(ctx, to, receipt.BlockNumber); err != nil || got.Cmp(value) != 0 {
		t.Fatalf("recipient's balance %v, %v; want %v", got, err, value)
	}
	after, err := c.BalanceAt(ctx, from, receipt.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	paid := new(big.Int).Add(value, new(big.Int).Mul(new(big.Int).SetUint64(receipt.GasUsed), receipt.EffectiveGasPrice))
	if spent := new(big.Int).Sub(before, after); spent.Cmp(paid) != 0 {
		t.Fatalf("the sender spent %v, the transfer and its fee are %v", spent, paid)
	}
}

// newcomerScript runs one of the newcomer's JavaScript scripts with node
// against the node at url, failing with its output.
func newcomerScript(t *testing.T, url, script string) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the newcomer's scripts run in Node.js 20 or later, with the npm packages make sdk-deps installs: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), newcomerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = newcomerScripts
	cmd.Env = append(os.Environ(), "NODE_URL="+url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s (in tests/dataapi-sdk, after make sdk-deps): %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}
