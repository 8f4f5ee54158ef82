// Package metricsapi is the metrics REST API module (docs/metrics-api.md):
// it follows the block index of every chain whose blocks it reads, and the
// blocks of the external EVM chains of its config through their nodes'
// JSON-RPC, keeps per-day throughput and the P-Chain's hourly staking
// totals in a store of its own in its data directory, and serves them at
// /v1/avg_tps and /v2/networks, with the P-Chain's L1 validator fees at
// /v2/validation and /v2/validators, the chains it keeps at /v2/chains,
// in the shapes of the contracts the official client SDK validates.
//
// Its parts, one job each: series (finds and follows the chains, counts
// their blocks, keeps the staking totals), store (the series and the page
// tokens on disk), pchain (the P-Chain's read methods), api (the
// endpoints).
package metricsapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/metricsapi/api"
	"github.com/chainhost/chainhost/plugins/metricsapi/series"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Name is the module plugin's name.
const Name = "metricsapi"

// sweepEvery is how often expired page tokens are deleted; a token is
// kept for a day after it expired, so that its refusal says "expired".
const (
	sweepEvery = 10 * time.Minute
	sweepGrace = 24 * time.Hour
)

// Options configures a Module beyond its config.
type Options struct {
	// Clock is the module's clock (page token expiry, lastRun); nil is
	// time.Now. Tests move it.
	Clock func() time.Time
	// RetryMin and RetryMax bound the pause before a chain's reading
	// starts over after a failure; 0: the defaults of series.Options.
	RetryMin, RetryMax time.Duration
}

// Module is the metrics API module.
type Module struct {
	opts    Options
	store   *store.Store
	series  *series.Follower
	handler http.Handler

	stopSweep context.CancelFunc
	sweeping  sync.WaitGroup
	stopOnce  sync.Once
	stopErr   error
}

// New returns an uninitialized module.
func New(opts Options) *Module {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Module{opts: opts}
}

// Initialize reads the config, opens the store, starts following the
// chains and builds the API.
func (m *Module) Initialize(ctx context.Context, env *sdk.Env) (err error) {
	cfg, err := ParseConfig(env.Config)
	if err != nil {
		return fmt.Errorf("module %s config: %w", env.Name, err)
	}
	limiter, err := rest.NewLimiter(rest.LimiterOptions{Config: cfg.RateLimit, Logger: env.Logger, ErrorWriter: api.ErrorWriter})
	if err != nil {
		return fmt.Errorf("module %s config: rate-limit: %w", env.Name, err)
	}
	if m.store, err = store.Open(filepath.Join(env.DataDir, "store")); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = m.stop()
		}
	}()
	m.series = series.New(series.Options{
		Host: env.Host, Store: m.store, Clock: m.opts.Clock, Logger: env.Logger,
		External: cfg.ExternalChains, RetryMin: m.opts.RetryMin, RetryMax: m.opts.RetryMax,
	})
	if err = m.series.Start(ctx); err != nil {
		return err
	}
	network, err := rest.NodeNetwork(env.NetworkID, cfg.Network)
	if err != nil {
		return fmt.Errorf("module %s config: network: %w", env.Name, err)
	}
	server, err := api.New(api.Options{
		Store: m.store, Chains: m.series.Chains, Host: env.Host, Network: network, TokenTTL: cfg.PageTokenTTL.D(),
		Clock: m.opts.Clock, Logger: env.Logger, Metrics: env.Metrics,
	})
	if err != nil {
		return fmt.Errorf("register API metrics: %w", err)
	}
	m.handler = limiter.Wrap(server.Handler())
	sweepCtx, stop := context.WithCancel(context.Background())
	m.stopSweep = stop
	m.sweeping.Go(func() { m.sweep(sweepCtx, env) })
	env.Logger.Info("metrics API ready", "mainnet", network.Mainnet)
	return nil
}

// sweep deletes expired page tokens until ctx ends.
func (m *Module) sweep(ctx context.Context, env *sdk.Env) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		if n, err := m.store.DeleteExpired(m.opts.Clock().Add(-sweepGrace).Unix()); err != nil {
			env.Logger.Warn("sweeping page tokens failed", "error", err)
		} else if n > 0 {
			env.Logger.Debug("expired page tokens deleted", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Handler serves the API behind the rate limits.
func (m *Module) Handler() http.Handler { return m.handler }

// Health is unhealthy while the chain watch fails.
func (m *Module) Health(context.Context) error {
	if m.series == nil {
		return errors.New("not initialized")
	}
	return m.series.Health()
}

// HealthDetails reports, per chain, the blocks counted, the blocks its
// index holds as far as seen, and the lag between them; for the P-Chain
// also the blocks whose staking totals are read, and their lag; for an
// external chain also its URL, how far its counts trail its head, and
// whether reading it fails. An external chain that fails leaves the
// module healthy: the node's own chains and the other external chains
// are still counted and served.
func (m *Module) HealthDetails(context.Context) map[string]any {
	if m.series == nil {
		return nil
	}
	chains := map[string]any{}
	for _, c := range m.series.Chains() {
		d := map[string]any{
			"chainId": c.Info.ID.String(), "counted": c.Counted, "accepted": c.Seen, "lag": c.Seen - min(c.Counted, c.Seen),
		}
		if c.Err != nil {
			d["error"] = c.Err.Error()
		}
		if c.Staking {
			d["stakingRead"], d["stakingLag"] = c.StakingRead, c.Seen-min(c.StakingRead, c.Seen)
			if c.StakingErr != nil {
				d["stakingError"] = c.StakingErr.Error()
			}
			d["validationsRead"], d["validationsLag"] = c.ValidationsRead, c.Seen-min(c.ValidationsRead, c.Seen)
			if c.ValidationsErr != nil {
				d["validationsError"] = c.ValidationsErr.Error()
			}
		}
		if e := c.External; e != nil {
			ext := map[string]any{"evmChainId": e.ChainID, "trail": c.Trail}
			if c.Node {
				ext["handler"] = evmremote.RPCHandler
			} else {
				ext["rpcUrl"] = e.RPCURL
			}
			d["external"] = ext
			d["status"] = "following"
			if c.Err != nil {
				d["status"] = "failing"
			}
		}
		name := c.Info.ID.String()
		if len(c.Info.Aliases) > 0 {
			name = c.Info.Aliases[0]
		}
		if _, taken := chains[name]; taken {
			name = c.Info.ID.String()
		}
		chains[name] = d
	}
	return map[string]any{"chains": chains}
}

// Shutdown stops following and closes the store.
func (m *Module) Shutdown(context.Context) error { return m.stop() }

// stop stops the sweep and the series, then closes the store, once.
func (m *Module) stop() error {
	m.stopOnce.Do(func() {
		if m.stopSweep != nil {
			m.stopSweep()
			m.sweeping.Wait()
		}
		if m.series != nil {
			m.series.Stop()
		}
		if m.store != nil {
			m.stopErr = m.store.Close()
		}
	})
	return m.stopErr
}
