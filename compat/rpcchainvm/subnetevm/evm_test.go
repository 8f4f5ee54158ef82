package subnetevm

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/chainhost/chainhost/compat/rpcchainvm/harness"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// The funded dev key of avalanchego's local network, which
// testdata/subnet-evm-genesis.json funds.
const devKeyHex = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// evmChainID is the chain ID of testdata/subnet-evm-genesis.json.
var evmChainID = big.NewInt(99999)

// Fees far above the genesis's minimum base fee (1 gwei), so that every
// transaction is included at once.
var (
	gasFeeCap = big.NewInt(100_000_000_000)
	gasTipCap = big.NewInt(1_000_000_000)
)

// txTimeout bounds a transaction's way into an accepted block.
const txTimeout = time.Minute

// logTopic is the topic the contract of logContract logs with.
var logTopic = crypto.Keccak256Hash([]byte("Logged(bytes)"))

// logContract returns the creation code of a contract, written in EVM
// assembly so that the test needs no compiler, whose every call logs its
// call data under logTopic (LOG1) and returns nothing; and its runtime code.
func logContract() (creation, runtime []byte) {
	runtime = append([]byte{0x36, 0x60, 0x00, 0x60, 0x00, 0x37, 0x7f}, logTopic.Bytes()...) // CALLDATASIZE PUSH1 0 PUSH1 0 CALLDATACOPY PUSH32 topic
	runtime = append(runtime, 0x36, 0x60, 0x00, 0xa1, 0x00)                                 // CALLDATASIZE PUSH1 0 LOG1 STOP
	// PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN: the 11 bytes
	// that copy the runtime code after them to memory and return it.
	creation = []byte{0x60, byte(len(runtime)), 0x80, 0x60, 0x0b, 0x60, 0x00, 0x39, 0x60, 0x00, 0xf3}
	return append(creation, runtime...), runtime
}

// evmAccount signs the dev key's transactions with consecutive nonces.
type evmAccount struct {
	key   *ecdsa.PrivateKey
	addr  common.Address
	nonce uint64
}

func devAccount(t *testing.T, ctx context.Context, c *ethclient.Client) *evmAccount {
	t.Helper()
	key, err := crypto.HexToECDSA(devKeyHex)
	if err != nil {
		t.Fatal(err)
	}
	a := &evmAccount{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
	if a.nonce, err = c.PendingNonceAt(ctx, a.addr); err != nil {
		t.Fatalf("eth_getTransactionCount: %v", err)
	}
	return a
}

// send signs and sends a transaction of the account's next nonce.
func (a *evmAccount) send(ctx context.Context, c *ethclient.Client, to *common.Address, value *big.Int, gas uint64, data []byte) (*types.Transaction, error) {
	tx, err := types.SignNewTx(a.key, types.LatestSignerForChainID(evmChainID), &types.DynamicFeeTx{
		ChainID: evmChainID, Nonce: a.nonce, GasTipCap: gasTipCap, GasFeeCap: gasFeeCap,
		Gas: gas, To: to, Value: value, Data: data,
	})
	if err != nil {
		return nil, err
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("eth_sendRawTransaction nonce %d: %w", a.nonce, err)
	}
	a.nonce++
	return tx, nil
}

// receipt waits until the transaction tx is in an accepted block and
// returns its receipt, failing t unless it succeeded. One account's
// transactions are accepted in nonce order: the receipt of its last one
// says that all of them are in.
func receipt(t *testing.T, c *ethclient.Client, tx common.Hash) *types.Receipt {
	t.Helper()
	var r *types.Receipt
	plugintest.Eventually(t, txTimeout, func() error {
		var err error
		r, err = c.TransactionReceipt(t.Context(), tx)
		return err
	})
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction %s failed: %+v", tx, r)
	}
	return r
}

// head is a block header as the chain's JSON-RPC gives it: its hash as
// the chain computes it. go-ethereum's types.Header recomputes a hash from
// the fields it knows, which subnet-evm's headers outnumber.
type head struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
}

// blockHashes returns the hashes of the chain's blocks 1 to height, by
// eth_getBlockByNumber.
func blockHashes(t *testing.T, c *ethclient.Client, height uint64) []common.Hash {
	t.Helper()
	hashes := make([]common.Hash, 0, height)
	for n := uint64(1); n <= height; n++ {
		var h head
		if err := c.Client().CallContext(t.Context(), &h, "eth_getBlockByNumber", hexutil.Uint64(n), false); err != nil {
			t.Fatalf("eth_getBlockByNumber %d: %v", n, err)
		}
		if uint64(h.Number) != n {
			t.Fatalf("eth_getBlockByNumber %d answered block %d", n, h.Number)
		}
		hashes = append(hashes, h.Hash)
	}
	return hashes
}

// checkIndex waits until the chain's block index holds head blocks and
// checks that they are blocks 1 to head of hashes, in order: a subnet-evm
// block's ID is its hash.
func checkIndex(t *testing.T, n *nodetest.Node, alias string, hashes []common.Hash) {
	t.Helper()
	var got []harness.Container
	plugintest.Eventually(t, txTimeout, func() error {
		var err error
		if got, err = harness.Index(t.Context(), n, alias); err != nil {
			return err
		}
		if len(got) < len(hashes) {
			return fmt.Errorf("the index holds %d blocks, the chain %d", len(got), len(hashes))
		}
		return nil
	})
	if len(got) != len(hashes) {
		t.Fatalf("the index holds %d blocks, the chain %d", len(got), len(hashes))
	}
	for i, c := range got {
		if want := ids.ID(hashes[i]); c.ID != want || c.Index != fmt.Sprint(i) {
			t.Fatalf("index container %d: ID %s index %s, want block %d: %s (hash %s)", i, c.ID, c.Index, i+1, want, hashes[i])
		}
	}
}

// dial connects go-ethereum's client to the chain's JSON-RPC handler
// (prefix "rpc") or WebSocket one ("ws").
func dial(t *testing.T, n *nodetest.Node, alias, prefix string) *ethclient.Client {
	t.Helper()
	url := n.URL + "/ext/bc/" + alias + "/" + prefix
	if prefix == "ws" {
		url = "ws" + url[len("http"):]
	}
	c, err := ethclient.DialContext(t.Context(), url)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(c.Close)
	return c
}
