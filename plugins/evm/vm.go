// Package evm is the EVM chain VM: a go-ethereum node embedded in a
// chainhost plugin, serving the standard JSON-RPC over HTTP and WebSocket
// (web3, net, eth, txpool, debug, personal), the EVM administration of
// docs/api/evm.md, the chain-native endpoint of atomic transactions (imports from
// and exports to other chains through shared memory), building its own
// blocks and reporting every accepted block to the host's index. The
// default config runs it as the C-Chain; every further EVM chain is
// another instance from its own genesis.
package evm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/version"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/evm/atomicvm"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/profile"
)

// Version is the plugin's version.
const Version = "0.1.0"

// VM is one EVM chain.
type VM struct {
	env *sdk.Env
	cfg config

	stack    *node.Node
	backend  *eth.Ethereum
	inner    *rpc.Server
	innerCli *rpc.Client
	indexer  *rpc.Server
	blocks   *blocksAPI
	public   *rpc.Server
	adminSrv *rpc.Server
	admin    *adminAPI
	producer *producer
	reporter *reporter
	frames   *frameStore
	atomic   *atomicvm.VM
}

// New returns an uninitialized VM.
func New() *VM { return &VM{} }

// Initialize opens the call frame store, starts go-ethereum on the chain's
// directory with the store's recorder and the atomic block processor
// attached, re-imports the accepted blocks it lost in a crash (see
// startNode), imports a chain file when configured, reports blocks the
// index lacks, and starts block production. Each step is a method below,
// in this order; a failed step shuts down what the earlier ones started.
func (vm *VM) Initialize(ctx context.Context, env *sdk.Env) (err error) {
	vm.env = env
	cfg, err := parseConfig(env.Config)
	if err != nil {
		return err
	}
	vm.cfg = cfg
	genesis, err := ParseGenesis(env.Genesis)
	if err != nil {
		return err
	}
	level := routeGethLogs(env.Logger, cfg.LogLevel)

	defer func() {
		if err != nil {
			_ = vm.Shutdown(context.Background())
		}
	}()
	store := atomicvm.NewStore(env.Host.DB)
	apis, err := vm.startGeth(ctx, genesis, store)
	if err != nil {
		return err
	}
	chain := vm.backend.BlockChain()
	if err := vm.importChainFile(); err != nil {
		return err
	}
	vm.atomic = atomicvm.New(env, atomicvm.Options{Store: store, Chain: chain, Fee: atomicvm.Fee(cfg.AtomicTxFee),
		AVAXAsset: cfg.avaxAsset(), NotProducing: cfg.notProducing(), Wake: func() { vm.producer.wake() }})
	var blocks *builder
	if cfg.BlockProduction != produceNone {
		blocks = newBuilder(chain, vm.backend.TxPool(), vm.atomic, genesis.GasLimit, env.Logger)
	}
	if err := vm.startReporter(ctx, store); err != nil {
		return err
	}
	if err := vm.serveIndexer(apis); err != nil {
		return err
	}
	vm.producer = newProducer(chain, vm.backend.TxPool(), vm.atomic, blocks, cfg.BlockProduction, time.Duration(cfg.BlockInterval), env.Logger)
	if err := vm.servePublic(apis); err != nil {
		return err
	}
	if err := vm.serveAdmin(level); err != nil {
		return err
	}
	head := chain.CurrentBlock()
	env.Logger.Info("EVM chain ready", "chainId", genesis.Config.ChainID, "head", head.Number, "hash", head.Hash(),
		"production", cfg.BlockProduction, "archival", !cfg.PruningEnabled)
	return nil
}

// routeGethLogs sends go-ethereum's logs to the chain's logger, at the
// level of the chain config (validated by parseConfig); admin_setLogLevel
// changes the returned level.
func routeGethLogs(out hclog.Logger, name string) *slog.LevelVar {
	level := new(slog.LevelVar)
	lv, _ := parseLevel(name)
	level.Set(lv)
	log.SetDefault(log.NewLogger(newLogHandler(out, level)))
	return level
}

// startGeth opens the call frame store, starts go-ethereum (startNode) and
// the in-process server of its APIs, and returns those APIs.
func (vm *VM) startGeth(ctx context.Context, genesis *core.Genesis, store *atomicvm.Store) ([]rpc.API, error) {
	var err error
	if vm.frames, err = openFrameStore(filepath.Join(vm.env.DataDir, framesDir), vm.env.Logger); err != nil {
		return nil, err
	}
	stack, backend, apis, err := startNode(ctx, vm.env, genesis, vm.cfg, vm.frames, store)
	if err != nil {
		return nil, err
	}
	vm.stack, vm.backend = stack, backend
	if vm.inner, err = newInnerServer(apis); err != nil {
		return nil, err
	}
	vm.innerCli = rpc.DialInProc(vm.inner)
	return apis, nil
}

// importChainFile imports the chain file of the config, if any.
func (vm *VM) importChainFile() error {
	path := vm.cfg.ImportChainFile
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(vm.env.DataDir, path)
	}
	var head common.Hash
	if vm.cfg.ImportHead != "" {
		head = common.HexToHash(vm.cfg.ImportHead)
	}
	chain := vm.backend.BlockChain()
	n, err := importChain(chain, path, head)
	if err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	vm.env.Logger.Info("imported chain file", "file", path, "inserted", n, "head", chain.CurrentBlock().Number)
	return nil
}

// startReporter reports to the host's index the accepted blocks it lacks,
// then keeps reporting new ones.
func (vm *VM) startReporter(ctx context.Context, store *atomicvm.Store) error {
	var err error
	if vm.reporter, err = newReporter(ctx, vm.backend.BlockChain(), vm.env.Host, store, vm.atomic.Reported, vm.env.Logger); err != nil {
		return err
	}
	if err := vm.reporter.report(ctx); err != nil {
		return fmt.Errorf("report accepted blocks to the index: %w", err)
	}
	vm.reporter.start()
	return nil
}

// serveIndexer makes the internal indexer handler: go-ethereum's APIs and
// the bulk read of accepted blocks, with its metric.
func (vm *VM) serveIndexer(apis []rpc.API) error {
	vm.blocks = &blocksAPI{db: vm.backend.ChainDb(), frames: vm.frames, reported: vm.reporter.reportedHeight,
		inner: vm.innerCli, log: vm.env.Logger}
	if vm.env.Metrics != nil {
		vm.blocks.reexecuted = prometheus.NewCounter(prometheus.CounterOpts{
			Name: "evm_indexer_reexecuted_blocks_total",
			Help: "Blocks " + evmapi.GetBlocksMethod + " re-executed for their call frames, not recorded at insertion.",
		})
		if err := vm.env.Metrics.Register(vm.blocks.reexecuted); err != nil {
			return fmt.Errorf("register metrics: %w", err)
		}
	}
	var err error
	vm.indexer, err = newIndexerServer(apis, vm.blocks)
	return err
}

// servePublic makes the public JSON-RPC server: go-ethereum's APIs and
// chainhost's own (web3, the chain config, the refused debug methods,
// testing, personal when on, the proof windows, the dev methods and, with
// them, debug_setHead).
func (vm *VM) servePublic(apis []rpc.API) error {
	clientVersion := fmt.Sprintf("chainhost-evm/v%s/go-ethereum-v%d.%d.%d", Version, version.Major, version.Minor, version.Patch)
	chain := vm.backend.BlockChain()
	extra := []rpc.API{
		{Namespace: nsWeb3, Service: web3API{version: clientVersion}},
		{Namespace: nsEth, Service: chainConfigAPI{config: chain.Config()}},
		{Namespace: nsDebug, Service: refusedDebugAPI{}},
		{Namespace: nsTesting, Service: testingAPI{eth: vm.backend}},
	}
	if vm.cfg.PersonalAPIEnabled {
		n, p := keystore.StandardScryptN, keystore.StandardScryptP
		if vm.cfg.KeystoreLightKDF {
			n, p = keystore.LightScryptN, keystore.LightScryptP
		}
		ks := keystore.NewKeyStore(vm.stack.KeyStoreDir(), n, p)
		vm.stack.AccountManager().AddBackend(ks)
		extra = append(extra, rpc.API{Namespace: nsPersonal, Service: personalAPI{ks: ks, inner: vm.innerCli}})
	}
	extra = append(extra,
		rpc.API{Namespace: nsEth, Service: proofAPI{
			chain: chain, inner: vm.innerCli, pruning: vm.cfg.PruningEnabled, window: vm.cfg.HistoricalProofQueryWindow,
		}},
		rpc.API{Namespace: nsDev, Service: devAPI{p: vm.producer, chain: chain}},
	)
	if vm.cfg.DevAPIEnabled {
		extra = append(extra, rpc.API{Namespace: nsDebug, Service: setHeadAPI{
			chain: chain, db: vm.backend.ChainDb(), p: vm.producer, r: vm.reporter, index: vm.env.Host.Index, log: vm.env.Logger,
		}})
	}
	limits, err := limitedAPIs(vm.cfg, apis, vm.innerCli)
	if err != nil {
		return err
	}
	extra = append(extra, limits...)
	vm.public, err = newPublicServer(vm.cfg, apis, extra)
	return err
}

// serveAdmin makes the EVM administration server; its admin_setLogLevel
// sets level.
func (vm *VM) serveAdmin(level *slog.LevelVar) error {
	vm.admin = &adminAPI{prof: profile.New(filepath.Join(vm.env.DataDir, "profiles")), level: level, config: vm.cfg}
	vm.adminSrv = rpc.NewServer()
	vm.adminSrv.SetBatchLimits(vm.cfg.APIMaxBatchSize, vm.cfg.APIMaxBatchResponseSize)
	if err := vm.adminSrv.RegisterName("admin", vm.admin); err != nil {
		return fmt.Errorf("register admin API: %w", err)
	}
	return nil
}

// Handlers serves JSON-RPC at rpc, the same over WebSocket at ws, the EVM
// administration at admin, and the chain-native methods at native and avax.
func (vm *VM) Handlers() map[string]http.Handler {
	return map[string]http.Handler{
		"rpc":    batchLimit{next: jsonRefusals{vm.public}, max: vm.cfg.APIMaxBatchSize, maxBytes: int64(vm.cfg.APIMaxRequestSize)},
		"ws":     vm.public.WebsocketHandler([]string{"*"}),
		"admin":  batchLimit{next: jsonRefusals{vm.adminSrv}, max: vm.cfg.APIMaxBatchSize, maxBytes: int64(vm.cfg.APIMaxRequestSize)},
		"native": vm.atomic.Handler("native", vm.cfg.APIMaxBatchSize),
		"avax":   vm.atomic.Handler("avax", vm.cfg.APIMaxBatchSize),
	}
}

// InternalHandlers serves the indexer handler, which only host chain calls
// reach.
func (vm *VM) InternalHandlers() map[string]http.Handler {
	return map[string]http.Handler{evmapi.IndexerHandler: vm.indexer}
}

// Shutdown stops block production and reporting, then go-ethereum, which
// flushes its state to disk, then closes the call frame store.
func (vm *VM) Shutdown(context.Context) error {
	if vm.producer != nil {
		vm.producer.Stop()
	}
	if vm.reporter != nil {
		vm.reporter.Stop()
	}
	if vm.admin != nil {
		vm.admin.stop()
	}
	for _, s := range []*rpc.Server{vm.public, vm.adminSrv, vm.inner, vm.indexer} {
		if s != nil {
			s.Stop()
		}
	}
	if vm.innerCli != nil {
		vm.innerCli.Close()
	}
	if vm.stack != nil {
		if err := vm.stack.Close(); err != nil && !errors.Is(err, node.ErrNodeStopped) {
			return fmt.Errorf("stop go-ethereum: %w", err)
		}
	}
	if vm.frames != nil {
		if err := vm.frames.Close(); err != nil {
			return fmt.Errorf("close the call frame store: %w", err)
		}
	}
	return nil
}

// Health reports the chain unhealthy when go-ethereum has no head block.
func (vm *VM) Health(context.Context) error {
	if vm.backend == nil || vm.backend.BlockChain().CurrentBlock() == nil {
		return errors.New("go-ethereum is not running")
	}
	return nil
}

// UnsafeAPIs declares the dev methods (evm_*) and the personal_ keystore
// unsafe in public when the chain config turns them on: the node serves
// them beyond loopback only with the operator's leave.
func (vm *VM) UnsafeAPIs() []string {
	var apis []string
	if vm.cfg.DevAPIEnabled {
		apis = append(apis, sdk.UnsafeAPIDev)
	}
	if vm.cfg.PersonalAPIEnabled {
		apis = append(apis, sdk.UnsafeAPIPersonal)
	}
	return apis
}

// IndexKinds makes the VM a container source for the host index.
func (vm *VM) IndexKinds() []string { return []string{Kind} }

// AcceptedCount is the number of blocks reported to the index (every
// block after genesis up to the head, once caught up).
func (vm *VM) AcceptedCount(context.Context, string) (uint64, error) {
	return vm.reporter.count(), nil
}

// GetAccepted returns the block at index position pos: height pos+1.
func (vm *VM) GetAccepted(_ context.Context, _ string, pos uint64) (host.Container, error) {
	return containerAt(vm.backend.BlockChain(), pos)
}
