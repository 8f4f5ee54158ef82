package subnetevm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/chainhost/chainhost/compat/rpcchainvm/harness"
	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
)

// subnetEVMAlias is the alias the node config gives subnet-evm's VM ID.
const subnetEVMAlias = "subnetevm"

// subnetEVMConfig is the local network with the admin API on and a chain,
// "sevm", of subnet-evm (named by its alias) from the genesis file genesis.
func subnetEVMConfig(t *testing.T, genesis string) string {
	return harness.LocalNetwork(t, map[string][]string{constants.SubnetEVMID.String(): {subnetEVMAlias}},
		map[string]any{"alias": "sevm", "vm": subnetEVMAlias, "genesis-file": genesis})
}

// subnetEVMGenesis returns the path of the test's subnet-evm genesis.
func subnetEVMGenesis(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", "subnet-evm-genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSubnetEVM: avalanchego v1.14.2's subnet-evm plugin, copied into the
// plugin dir while the node runs, is hot-loaded by admin.loadVMs and its
// chain, waiting for it, starts; go-ethereum's client deploys a contract,
// calls it and reads its logs and sends transfers; eth_subscribe newHeads
// over the chain's WebSocket delivers every block; the index holds every
// accepted block in order; the data module serves the chain's transactions
// to the official SDK.
func TestSubnetEVM(t *testing.T) {
	plugins := harness.PluginDir(t)
	n := nodetest.Start(t, nodetest.Options{Config: subnetEVMConfig(t, subnetEVMGenesis(t)), PluginDir: plugins})

	harness.Install(t, plugins, harness.SubnetEVMBinary, constants.SubnetEVMID)
	reply := harness.LoadVMs(t, n)
	if got, want := reply.NewVMs[constants.SubnetEVMID.String()], []string{subnetEVMAlias}; !slices.Equal(got, want) {
		t.Fatalf("admin.loadVMs: newVMs[%s] = %q, want %q (whole answer %+v)", constants.SubnetEVMID, got, want, reply)
	}
	if len(reply.FailedVMs) != 0 {
		t.Fatalf("admin.loadVMs: failedVMs %v", reply.FailedVMs)
	}
	harness.WaitChainHealthy(t, n, "sevm")

	ctx := t.Context()
	c := dial(t, n, "sevm", "rpc")
	if id, err := c.ChainID(ctx); err != nil || id.Cmp(evmChainID) != 0 {
		t.Fatalf("eth_chainId = %v, %v; want %s", id, err, evmChainID)
	}
	// Subscribed before the first transaction, so that it sees block 1 on.
	ws := dial(t, n, "sevm", "ws")
	heads := make(chan head, 1024)
	sub, err := ws.Client().EthSubscribe(ctx, heads, "newHeads")
	if err != nil {
		t.Fatalf("eth_subscribe newHeads: %v", err)
	}
	defer sub.Unsubscribe()

	dev := devAccount(t, ctx, c)
	var sent []common.Hash
	creation, runtime := logContract()
	deploy, err := dev.send(ctx, c, nil, new(big.Int), 200_000, creation)
	if err != nil {
		t.Fatal(err)
	}
	sent = append(sent, deploy.Hash())
	contract := receipt(t, c, deploy.Hash()).ContractAddress
	if code, err := c.CodeAt(ctx, contract, nil); err != nil || !slices.Equal(code, runtime) {
		t.Fatalf("eth_getCode of the deployed contract = %x, %v; want %x", code, err, runtime)
	}

	t.Run("contract logs", func(t *testing.T) {
		var calls [][]byte
		for i := range 3 {
			data := fmt.Appendf(nil, "call %d", i)
			tx, err := dev.send(ctx, c, &contract, new(big.Int), 100_000, data)
			if err != nil {
				t.Fatal(err)
			}
			sent = append(sent, tx.Hash())
			calls = append(calls, data)
		}
		last := receipt(t, c, sent[len(sent)-1])
		logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: big.NewInt(0), ToBlock: last.BlockNumber,
			Addresses: []common.Address{contract}, Topics: [][]common.Hash{{logTopic}},
		})
		if err != nil {
			t.Fatalf("eth_getLogs: %v", err)
		}
		if len(logs) != len(calls) {
			t.Fatalf("eth_getLogs: %d logs, want %d: %+v", len(logs), len(calls), logs)
		}
		for i, l := range logs {
			if !slices.Equal(l.Data, calls[i]) || l.TxHash != sent[1+i] {
				t.Fatalf("log %d: data %q of tx %s, want %q of tx %s", i, l.Data, l.TxHash, calls[i], sent[1+i])
			}
		}
	})

	t.Run("transfers", func(t *testing.T) {
		var to []common.Address
		for i := range 5 {
			addr := common.BigToAddress(big.NewInt(int64(0xbeef00 + i)))
			tx, err := dev.send(ctx, c, &addr, big.NewInt(int64(1_000_000+i)), 21_000, nil)
			if err != nil {
				t.Fatal(err)
			}
			sent = append(sent, tx.Hash())
			to = append(to, addr)
		}
		receipt(t, c, sent[len(sent)-1])
		for i, addr := range to {
			if b, err := c.BalanceAt(ctx, addr, nil); err != nil || b.Int64() != int64(1_000_000+i) {
				t.Fatalf("eth_getBalance %s = %v, %v; want %d", addr, b, err, 1_000_000+i)
			}
		}
	})

	height, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatalf("eth_blockNumber: %v", err)
	}
	hashes := blockHashes(t, c, height)

	t.Run("newHeads delivers every block", func(t *testing.T) {
		var got []head
		for uint64(len(got)) < height {
			select {
			case h := <-heads:
				got = append(got, h)
			case err := <-sub.Err():
				t.Fatalf("newHeads subscription ended: %v", err)
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			}
		}
		for i, h := range got {
			if uint64(h.Number) != uint64(i+1) || h.Hash != hashes[i] {
				t.Fatalf("newHeads %d: block %d %s, want block %d %s", i, h.Number, h.Hash, i+1, hashes[i])
			}
		}
	})

	t.Run("index holds every accepted block in order", func(t *testing.T) {
		checkIndex(t, n, "sevm", hashes)
	})

	t.Run("data API through the official SDK", func(t *testing.T) {
		got := sdkTransactions(t, n, evmChainID, dev.addr, sent)
		if !sameSet(got.Transactions, sent) {
			t.Fatalf("the data API lists the transactions %v of %s, want %v", got.Transactions, dev.addr, sent)
		}
		if got.Chain.ChainID != evmChainID.String() || got.Chain.RPCURL == "" {
			t.Fatalf("the data API lists chain %s as %+v, want its chain ID and RPC URL", evmChainID, got.Chain)
		}
		viaEntry, err := ethclient.DialContext(ctx, got.Chain.RPCURL)
		if err != nil {
			t.Fatalf("dial the listed rpcUrl %s: %v", got.Chain.RPCURL, err)
		}
		defer viaEntry.Close()
		if id, err := viaEntry.ChainID(ctx); err != nil || id.Cmp(evmChainID) != 0 {
			t.Fatalf("the listed rpcUrl %s answers eth_chainId %v, %v; want %s", got.Chain.RPCURL, id, err, evmChainID)
		}
	})
}

// sameSet reports whether a and b hold the same hashes, in any order.
func sameSet(a, b []common.Hash) bool {
	as, bs := slices.Clone(a), slices.Clone(b)
	cmp := func(x, y common.Hash) int { return x.Cmp(y) }
	slices.SortFunc(as, cmp)
	slices.SortFunc(bs, cmp)
	return slices.Equal(as, bs)
}

// TestSubnetEVMCrashes: a SIGKILL of the subnet-evm plugin while
// transactions stream in loses no accepted block, and the chain goes on in
// a new plugin process from its database; a SIGKILL of the host leaves no
// plugin process behind.
func TestSubnetEVMCrashes(t *testing.T) {
	plugins := harness.PluginDir(t)
	harness.Install(t, plugins, harness.SubnetEVMBinary, constants.SubnetEVMID)
	n := nodetest.Start(t, nodetest.Options{Config: subnetEVMConfig(t, subnetEVMGenesis(t)), PluginDir: plugins})
	harness.WaitChainHealthy(t, n, "sevm")
	ctx := t.Context()
	c := dial(t, n, "sevm", "rpc")
	vm := constants.SubnetEVMID.String()

	l := startLoad(t, c, devAccount(t, ctx, c))
	before := waitHead(t, c, 3)
	accepted := blockHashes(t, c, before)
	pid := nodetest.PluginPID(t, n, vm)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the plugin %d: %v", pid, err)
	}
	n.WaitNewPlugin(t, vm, pid)
	harness.WaitChainHealthy(t, n, "sevm")
	waitHead(t, c, before+3) // the load's transactions make blocks again
	l.stop()

	height, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatalf("eth_blockNumber: %v", err)
	}
	hashes := blockHashes(t, c, height)
	if !slices.Equal(hashes[:len(accepted)], accepted) {
		t.Fatalf("blocks 1 to %d accepted before the kill are %v, now %v", before, accepted, hashes[:len(accepted)])
	}
	checkIndex(t, n, "sevm", hashes)

	t.Run("host SIGKILL leaves no plugin process", func(t *testing.T) {
		children := n.ChildPIDs()
		if len(n.PluginPIDs(vm)) == 0 {
			t.Fatalf("no %s plugin process among the host's children %v", vm, children)
		}
		n.Kill()
		nodetest.WaitGone(t, harness.StartTimeout, children)
	})
}

// load sends transfers of the dev account to itself, a few at a time,
// until stopped: the stream of transactions a crash test kills a plugin
// in.
type load struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// loadBatch is how many transactions load sends before it waits for them.
const loadBatch = 4

func startLoad(t *testing.T, c *ethclient.Client, dev *evmAccount) *load {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	l := &load{cancel: cancel, done: make(chan struct{})}
	go func() { l.run(ctx, c, dev); close(l.done) }()
	t.Cleanup(cancel)
	return l
}

// run sends batches and waits until the last of each is accepted. A send
// that fails (the plugin is down) or a transaction the node no longer
// knows (it was pending in the killed plugin's pool) starts again from
// the account's nonce on the chain.
func (l *load) run(ctx context.Context, c *ethclient.Client, dev *evmAccount) {
	for ctx.Err() == nil {
		last, err := sendBatch(ctx, c, dev)
		if err == nil {
			err = awaitKnown(ctx, c, last)
		}
		if err != nil {
			if dev.nonce, err = c.NonceAt(ctx, dev.addr, nil); err != nil && ctx.Err() == nil {
				time.Sleep(loadRetry)
			}
		}
	}
}

// loadRetry paces the load's retries while the chain does not answer.
const loadRetry = 20 * time.Millisecond

// sendBatch sends loadBatch transactions and returns the last one's hash.
func sendBatch(ctx context.Context, c *ethclient.Client, dev *evmAccount) (common.Hash, error) {
	var last common.Hash
	for range loadBatch {
		tx, err := dev.send(ctx, c, &dev.addr, big.NewInt(1), 21_000, nil)
		if err != nil {
			return last, err
		}
		last = tx.Hash()
	}
	return last, nil
}

// errLost is a transaction the node no longer knows without having
// accepted it.
var errLost = errors.New("transaction lost")

// awaitKnown waits until tx is accepted (nil) or the node no longer knows
// it (errLost).
func awaitKnown(ctx context.Context, c *ethclient.Client, tx common.Hash) error {
	for ctx.Err() == nil {
		if _, err := c.TransactionReceipt(ctx, tx); err == nil {
			return nil
		}
		if _, _, err := c.TransactionByHash(ctx, tx); errors.Is(err, ethereum.NotFound) {
			if _, err := c.TransactionReceipt(ctx, tx); err == nil {
				return nil // accepted between the two calls
			}
			return errLost
		}
		time.Sleep(loadRetry)
	}
	return ctx.Err()
}

// stop ends the load and waits for it.
func (l *load) stop() {
	l.cancel()
	<-l.done
}

// waitHead waits until the chain's head is at least height and returns it.
func waitHead(t *testing.T, c *ethclient.Client, height uint64) uint64 {
	t.Helper()
	var got uint64
	plugintest.Eventually(t, txTimeout, func() error {
		var err error
		if got, err = c.BlockNumber(t.Context()); err != nil {
			return err
		}
		if got < height {
			return fmt.Errorf("head %d, waiting for %d", got, height)
		}
		return nil
	})
	return got
}
