// Package indexer indexes every EVM chain of the node into the data API's
// store: it finds the chains in the host's chain registry (those running
// the EVM with its internal indexer handler, also the ones that start
// later) and follows each from its first block, then live
// (docs/data-api.md, "Indexing"). It indexes the external chains of its
// config the same way, through their standard JSON-RPC, following them by
// parent hash and rolling back what a reorganisation abandons
// (docs/data-api.md, "Indexing a chain of another node"), and so the
// chains of the node whose VM is not chainhost's EVM but that answer
// eth_chainId on their "rpc" handler, through the host's chain calls
// (docs/data-api.md, "Chains of avalanchego VM plugins").
package indexer

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/tokens"
	"github.com/chainhost/chainhost/sdk/follow"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures an Indexer.
type Options struct {
	// Host is where chains are found, followed and called.
	Host host.Services
	// Store receives the records.
	Store store.Store
	// Logger; nil discards.
	Logger hclog.Logger
	// Metrics takes the indexer's collectors; nil registers none.
	Metrics prometheus.Registerer
	// Tokens configures the reading of token metadata.
	Tokens tokens.Options
	// BlocksPerRequest is the most blocks one indexer_getBlocks asks for;
	// 0: 100.
	BlocksPerRequest int
	// InFlight is how many indexer_getBlocks requests run at once; 0: 4.
	InFlight int
	// RetryMin and RetryMax bound the pause before indexing starts over
	// after a failure; 0: follow.DefaultRetryMin and DefaultRetryMax.
	RetryMin, RetryMax time.Duration
	// External are the chains of other nodes to index by URL, with their
	// defaults set.
	External []evmremote.Chain
}

// Chain is an EVM chain the indexer knows, as the API shows it.
type Chain struct {
	// Info is the chain as the registry describes it.
	Info host.ChainInfo
	// EVMChainID is its EVM chain ID; 0 until known.
	EVMChainID uint64
	// Indexed says whether a block is indexed; Height is the last one.
	Indexed bool
	Height  uint64
	// Accepted is the highest block known accepted.
	Accepted uint64
	// Err is why indexing last stopped; nil while it runs.
	Err error
	// External is the config of a chain another node runs; nil for the
	// node's own chains.
	External *evmremote.Chain
	// ViaRPC is set for a chain read through its standard JSON-RPC
	// (evmremote): an external chain, or a chain of the node whose VM is
	// not chainhost's EVM.
	ViaRPC bool
	// Calls reaches the chain's JSON-RPC: the client of a chain read
	// through it; nil for the node's EVM chains (the host's chain calls).
	Calls host.ChainCaller
	// Upstream is the state of an external chain's node while it fails
	// (evmremote.Classify's, or "refused"); "" while it answers.
	Upstream string
	// Tracing is where the internal transactions of a chain read through
	// its JSON-RPC come from (evmremote.Tracing); "" until known, and for
	// the node's EVM chains, which always have them.
	Tracing string
	// Rate is the blocks indexed per second lately; ETA the time left to
	// reach Accepted at that rate, 0 when caught up or unknown.
	Rate float64
	ETA  time.Duration
}

// Indexer follows every EVM chain of the node.
type Indexer struct {
	opts    Options
	store   store.Store
	log     hclog.Logger
	metrics *metrics
	watch   *follow.Chains
	wg      sync.WaitGroup // the followers

	mu        sync.RWMutex
	states    map[ids.ID]store.ChainState // as stored at Start
	chains    map[ids.ID]*Chain
	followers map[ids.ID]*follower
	rates     map[ids.ID]*rate
	clients   []*evmremote.Client
	stop      context.CancelFunc // ends the external chains' followers and the progress log
	// probed holds the running chains of the node probed for eth_chainId
	// since they started (nodechains.go).
	probed map[ids.ID]bool
	// pchain follows the node's P-Chain (pchain.go); nil until seen.
	pchain *pFollower
}

// New returns an indexer; Start starts it.
func New(opts Options) (*Indexer, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.BlocksPerRequest <= 0 {
		opts.BlocksPerRequest = 100
	}
	opts.BlocksPerRequest = min(opts.BlocksPerRequest, evmapi.MaxBlocks)
	if opts.InFlight <= 0 {
		opts.InFlight = 4
	}
	m := newMetrics()
	if opts.Metrics != nil {
		if err := m.register(opts.Metrics); err != nil {
			return nil, fmt.Errorf("register indexer metrics: %w", err)
		}
	}
	return &Indexer{
		opts: opts, store: opts.Store, log: opts.Logger, metrics: m,
		watch:  &follow.Chains{Registry: opts.Host.Chains, Logger: opts.Logger},
		chains: map[ids.ID]*Chain{}, followers: map[ids.ID]*follower{}, rates: map[ids.ID]*rate{},
		probed: map[ids.ID]bool{},
	}, nil
}

// isEVM reports whether a chain is one the indexer follows: it runs the EVM
// and has its internal indexer handler.
func isEVM(c host.ChainInfo) bool {
	return c.VMName == evmapi.VMName && slices.Contains(c.InternalHandlers, evmapi.IndexerHandler)
}

// Start lists the chains, starts following the EVM chains and watches the
// registry for more, until Stop.
func (x *Indexer) Start(ctx context.Context) error {
	states, err := x.store.Chains(ctx)
	if err != nil {
		return fmt.Errorf("read indexed chains: %w", err)
	}
	x.states = states
	runCtx, stop := context.WithCancel(context.Background())
	x.stop = stop
	for _, cfg := range x.opts.External {
		if err := x.startExternal(runCtx, cfg); err != nil {
			x.Stop()
			return err
		}
	}
	x.wg.Go(func() { x.logProgress(runCtx) })
	if err := x.watch.Start(ctx, x.see); err != nil {
		x.Stop()
		return err
	}
	return nil
}

// startExternal starts following an external chain.
func (x *Indexer) startExternal(ctx context.Context, cfg evmremote.Chain) error {
	client, err := evmremote.Dial(ctx, evmremote.OptionsOf(cfg))
	if err != nil {
		return fmt.Errorf("external chain %s: %w", cfg.Name, err)
	}
	x.clients = append(x.clients, client)
	f := newRemoteFollower(x, cfg, client)
	c := &Chain{Info: externalInfo(cfg), External: &cfg, ViaRPC: true, Calls: client}
	if st, ok := x.states[f.chain]; ok {
		c.EVMChainID = st.EVMChainID
		c.Height, c.Indexed = st.Height()
	}
	x.mu.Lock()
	x.chains[f.chain], x.followers[f.chain] = c, f
	x.mu.Unlock()
	x.log.Info("indexing external EVM chain", "chain", cfg.Name, "id", f.chain, "url", cfg.RPCURL)
	x.wg.Go(func() { f.run(ctx) })
	return nil
}

// Stop stops the watch and every follower.
func (x *Indexer) Stop() {
	x.watch.Stop()
	if x.stop != nil {
		x.stop()
	}
	x.wg.Wait()
	for _, c := range x.clients {
		c.Close()
	}
	x.clients = nil
}

// see records a chain of the registry, starting a follower for a new EVM
// chain and waking the follower of one that started.
func (x *Indexer) see(ctx context.Context, info host.ChainInfo) {
	if isPChain(info) {
		x.mu.Lock()
		defer x.mu.Unlock()
		x.seePChainLocked(ctx, info)
		return
	}
	if !isEVM(info) {
		x.seeRPC(ctx, info)
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	c, known := x.chains[info.ID]
	if known && c.External != nil {
		x.log.Warn("a chain of the node has the blockchain ID of an external chain: only the external chain is indexed",
			"chain", info.ID, "external", c.External.Name)
		return
	}
	if !known {
		c = &Chain{}
		if st, ok := x.states[info.ID]; ok {
			c.EVMChainID = st.EVMChainID
			c.Height, c.Indexed = st.Height()
		}
		x.chains[info.ID] = c
	}
	c.Info = info
	if f, ok := x.followers[info.ID]; ok {
		if info.Running {
			f.restarted()
		}
		return
	}
	f := newFollower(x, info)
	x.followers[info.ID] = f
	x.log.Info("indexing EVM chain", "chain", f.name, "id", info.ID)
	x.wg.Go(func() { f.run(ctx) })
}

// setProgress records a chain's indexed state.
func (x *Indexer) setProgress(chain ids.ID, st store.ChainState) {
	x.update(chain, func(c *Chain) {
		c.EVMChainID = st.EVMChainID
		c.Height, c.Indexed = st.Height()
		c.Err = nil
		if f := x.followers[chain]; f != nil && f.remote != nil {
			was := c.Tracing
			c.Tracing = string(f.remote.client.Tracing())
			if c.Tracing != was && c.Tracing == string(evmremote.TracingNone) {
				x.log.Warn("the chain's node offers no call tracer (debug_traceBlockByNumber, trace_block): "+
					"indexing it without internal transactions", "chain", f.name)
			}
		}
	})
}

// setRunning records whether the upstream of a chain read through its
// JSON-RPC answers.
func (x *Indexer) setRunning(chain ids.ID, running bool) {
	x.update(chain, func(c *Chain) { c.Info.Running = running })
}

// height returns a chain's last indexed block, and whether there is one.
func (x *Indexer) height(chain ids.ID) (uint64, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if c := x.chains[chain]; c != nil {
		return c.Height, c.Indexed
	}
	return 0, false
}

// setAccepted records a chain's accepted height (the head of a chain read
// through its JSON-RPC may also go down, after a rollback).
func (x *Indexer) setAccepted(chain ids.ID, accepted uint64) {
	x.update(chain, func(c *Chain) {
		if c.ViaRPC {
			c.Accepted = accepted
			return
		}
		c.Accepted = max(c.Accepted, accepted)
	})
}

// update changes a known chain's record with change and sets its gauges.
func (x *Indexer) update(chain ids.ID, change func(*Chain)) {
	x.mu.Lock()
	c := x.chains[chain]
	if c == nil {
		x.mu.Unlock()
		return
	}
	change(c)
	r := x.rates[chain]
	if r == nil {
		r = &rate{}
		x.rates[chain] = r
	}
	c.Rate, c.ETA = r.observe(time.Now(), c.Height, c.Accepted)
	name, height, acc, rate, eta := x.nameLocked(c), c.Height, c.Accepted, c.Rate, c.ETA
	x.mu.Unlock()
	x.metrics.rate.WithLabelValues(name).Set(rate)
	x.metrics.eta.WithLabelValues(name).Set(eta.Seconds())
	x.metrics.height.WithLabelValues(name).Set(float64(height))
	x.metrics.accepted.WithLabelValues(name).Set(float64(acc))
	x.metrics.lag.WithLabelValues(name).Set(float64(acc - min(acc, height)))
}

// setError records why indexing a chain stopped.
func (x *Indexer) setError(chain ids.ID, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c := x.chains[chain]; c != nil {
		c.Err = err
	}
}

// nameLocked returns a chain's primary alias; x.mu is held.
func (x *Indexer) nameLocked(c *Chain) string {
	if len(c.Info.Aliases) > 0 {
		return c.Info.Aliases[0]
	}
	return c.Info.ID.String()
}

// Chains returns the EVM chains the indexer knows, by primary alias.
func (x *Indexer) Chains() []Chain {
	x.mu.RLock()
	out := make([]Chain, 0, len(x.chains))
	for _, c := range x.chains {
		out = append(out, *c)
	}
	x.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Info.ID.Compare(out[j].Info.ID) < 0 })
	sort.SliceStable(out, func(i, j int) bool { return alias(out[i]) < alias(out[j]) })
	return out
}

// alias returns a chain's primary alias, "" when it has none.
func alias(c Chain) string {
	if len(c.Info.Aliases) > 0 {
		return c.Info.Aliases[0]
	}
	return ""
}

// Health is unhealthy while the chain watch is failing.
func (x *Indexer) Health() error { return x.watch.Err() }

// HealthDetails reports each chain's indexed height, accepted height and
// lag, by primary alias.
func (x *Indexer) HealthDetails() map[string]any {
	chains := map[string]any{}
	for _, c := range x.Chains() {
		d := map[string]any{
			"chainId":    c.Info.ID.String(),
			"evmChainId": c.EVMChainID,
			"running":    c.Info.Running,
			"accepted":   c.Accepted,
			"lag":        c.Accepted - min(c.Accepted, c.Height),
		}
		if c.Indexed {
			d["height"] = c.Height
		}
		if c.Err != nil {
			d["error"] = c.Err.Error()
		}
		if c.Rate > 0 {
			d["blocksPerSecond"] = c.Rate
		}
		if c.ETA > 0 {
			d["etaSeconds"] = int64(c.ETA.Seconds())
		}
		if c.External != nil {
			d["external"] = true
		}
		if c.ViaRPC {
			d["status"] = externalStatus(c)
			if c.Upstream != "" {
				d["upstream"] = c.Upstream
			}
			if c.Tracing != "" {
				d["internalTransactions"] = c.Tracing
			}
		}
		name := alias(c)
		if name == "" {
			name = c.Info.ID.String()
		}
		chains[name] = d
	}
	out := map[string]any{"chains": chains}
	if p, ok := x.PChain(); ok {
		d := map[string]any{"chainId": p.ID.String(), "accepted": p.Accepted, "lag": p.Accepted - min(p.Accepted, p.Height)}
		if p.Indexed {
			d["height"] = p.Height
		}
		if p.Err != nil {
			d["error"] = p.Err.Error()
		}
		out["pChain"] = d
	}
	return out
}
