package evm

import (
	"context"
	"fmt"
	"math/big"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"

	// Registers the native tracers (callTracer, prestateTracer, ...).
	_ "github.com/ethereum/go-ethereum/eth/tracers/native"

	"github.com/chainhost/chainhost/plugins/evm/atomicvm"
	"github.com/chainhost/chainhost/sdk"
)

// gethDir is the directory under the chain's data dir that go-ethereum owns.
const gethDir = "geth"

// minerTip is the least priority fee per gas, in wei, of a transaction the
// chain's blocks take.
const minerTip = 1

// chainDB is the name of go-ethereum's chain database in its directory (the
// one eth.New opens).
const chainDB = "chaindata"

// newStack makes the in-process go-ethereum node: no HTTP, WebSocket or
// IPC listener and no peer-to-peer networking, with its database (leveldb)
// in the chain's own directory. Services are attached by attachEth.
func newStack(dataDir, version string, cfg config) (*node.Node, error) {
	nodeCfg := node.DefaultConfig
	nodeCfg.Name = "chainhost-evm"
	nodeCfg.Version = version
	nodeCfg.DataDir = filepath.Join(dataDir, gethDir)
	nodeCfg.KeyStoreDir = filepath.Join(dataDir, "keystore")
	nodeCfg.DBEngine = "leveldb"
	nodeCfg.IPCPath = ""
	nodeCfg.HTTPHost = ""
	nodeCfg.WSHost = ""
	nodeCfg.AuthPort = 0
	nodeCfg.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""}
	nodeCfg.UseLightweightKDF = cfg.KeystoreLightKDF
	nodeCfg.AllowUnprotectedTxs = cfg.AllowUnprotectedTxs
	stack, err := node.New(&nodeCfg)
	if err != nil {
		return nil, fmt.Errorf("create geth node in %s: %w", nodeCfg.DataDir, err)
	}
	return stack, nil
}

// attachEth registers the eth service on stack, which opens the chain (and
// repairs it after a crash), with the recorder of frames attached as
// go-ethereum's live tracer, and the block processor that applies the
// atomic transactions of store's blocks. It returns the service and the
// APIs to serve: eth's own, the filters and the tracers, which geth's
// command line would otherwise add.
func attachEth(stack *node.Node, genesis *core.Genesis, cfg config, frames *frameStore, store *atomicvm.Store) (*eth.Ethereum, []rpc.API, error) {
	ec := ethconfig.Defaults
	ec.Genesis = genesis
	ec.NetworkId = genesis.Config.ChainID.Uint64()
	ec.SyncMode = ethconfig.FullSync
	if cfg.PruningEnabled {
		ec.StateScheme = rawdb.PathScheme
		ec.NoPruning = false
	} else {
		ec.StateScheme = rawdb.HashScheme
		ec.NoPruning = true
	}
	ec.DatabaseCache = cfg.CacheMB / 2
	ec.TrieCleanCache = cfg.CacheMB / 4
	ec.TrieDirtyCache = cfg.CacheMB / 4
	ec.SnapshotCache = 0
	ec.TrieTimeout = time.Minute
	ec.TxPool.NoLocals = true
	ec.TxPool.Journal = ""
	ec.TxPool.PriceLimit = 1
	ec.TxPool.GlobalSlots = cfg.TxPoolGlobalSlots
	ec.TxPool.AccountSlots = cfg.TxPoolAccountSlots
	ec.TxPool.GlobalQueue = cfg.TxPoolGlobalQueue
	ec.TxPool.AccountQueue = cfg.TxPoolAccountQueue
	ec.Miner.GasCeil = genesis.GasLimit
	ec.Miner.GasPrice = big.NewInt(minerTip)
	ec.RPCGasCap = cfg.RPCGasCap
	ec.RPCTxFeeCap = cfg.RPCTxFeeCap
	ec.RPCEVMTimeout = time.Duration(cfg.RPCEVMTimeout)
	ec.VMTrace = liveTracerName
	ec.VMTraceJsonConfig = frames.tracerConfig()
	backend, err := eth.New(stack, &ec)
	if err != nil {
		return nil, nil, fmt.Errorf("start go-ethereum: %w", err)
	}
	// Before anything inserts a block: go-ethereum's one hook on every
	// execution of a block (docs/evm.md, Atomic transactions).
	chain := backend.BlockChain()
	chain.SetBlockValidatorAndProcessorForTesting(chain.Validator(), &atomicvm.Processor{Processor: chain.Processor(), Store: store})
	filterSystem := filters.NewFilterSystem(backend.APIBackend, filters.Config{
		LogQueryLimit: cfg.RPCLogsQueryLimit, RangeLimit: cfg.RPCLogsBlockRange,
	})
	apis := backend.APIs()
	apis = append(apis, rpc.API{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)})
	apis = append(apis, tracers.APIs(backend.APIBackend)...)
	return backend, apis, nil
}

// startNode starts go-ethereum on the chain's directory and recovers the
// accepted blocks it lost in a crash (recoverAccepted). It records call
// frames into frames, the re-imported blocks' included, and applies the
// atomic transactions store holds for the blocks it executes.
func startNode(ctx context.Context, env *sdk.Env, genesis *core.Genesis, cfg config, frames *frameStore, store *atomicvm.Store) (*node.Node, *eth.Ethereum, []rpc.API, error) {
	reported, err := readReported(ctx, env.Host.DB)
	if err != nil {
		return nil, nil, nil, err
	}
	stack, err := newStack(env.DataDir, Version, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	rescued, err := rescueUnreported(stack, reported)
	if err != nil {
		_ = stack.Close()
		return nil, nil, nil, err
	}
	backend, apis, err := attachEth(stack, genesis, cfg, frames, store)
	if err != nil {
		_ = stack.Close()
		return nil, nil, nil, err
	}
	if err := stack.Start(); err != nil {
		_ = stack.Close()
		return nil, nil, nil, fmt.Errorf("start go-ethereum node: %w", err)
	}
	if err := recoverAccepted(ctx, backend.BlockChain(), env.Host.Index, reported, rescued, env.Logger); err != nil {
		_ = stack.Close()
		return nil, nil, nil, fmt.Errorf("recover accepted blocks: %w", err)
	}
	return stack, backend, apis, nil
}
