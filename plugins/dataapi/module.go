// Package dataapi is the chain data REST API module (docs/data-api.md): it
// indexes every EVM chain of the node into an embedded store in its data
// directory and serves the data API at /v1/chains, /v1/address and
// /v1/networks, in the shapes of the contract that @avalanche-sdk/chainkit
// validates.
//
// Its parts, one job each: indexer (finds and follows the chains), derive
// (blocks to records), tokens (token metadata through eth_call), evmrpc
// (calls to the EVM's internal indexer handler), store and store/kvstore
// (the storage interface and its embedded backend), api (the endpoints),
// price (the pluggable price source).
package dataapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/price"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/tokens"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Name is the module plugin's name.
const Name = "dataapi"

// Options configures a Module beyond its config.
type Options struct {
	// Prices gives token prices; nil (the default) leaves every price out.
	Prices price.Source
	// HTTPClient fetches NFT metadata documents when the config turns
	// fetching on; nil uses a client with the config's timeout.
	HTTPClient *http.Client
}

// Module is the data API module.
type Module struct {
	opts    Options
	cfg     Config
	store   *kvstore.Store
	indexer *indexer.Indexer
	handler http.Handler

	stopOnce sync.Once
	stopErr  error
}

// New returns an uninitialized module.
func New(opts Options) *Module { return &Module{opts: opts} }

// Initialize reads the config, opens the store in the data directory,
// starts indexing and builds the API.
func (m *Module) Initialize(ctx context.Context, env *sdk.Env) (err error) {
	if m.cfg, err = ParseConfig(env.Config); err != nil {
		return fmt.Errorf("module %s config: %w", env.Name, err)
	}
	cfg := m.cfg
	key, err := rest.LoadOrCreateKey(filepath.Join(env.DataDir, "pagetoken.key"))
	if err != nil {
		return err
	}
	pageTokens, err := rest.NewPageTokens(key, cfg.PageTokenTTL.D)
	if err != nil {
		return err
	}
	limiter, err := rest.NewLimiter(rest.LimiterOptions{Config: cfg.RateLimit, Logger: env.Logger})
	if err != nil {
		return fmt.Errorf("module %s config: rate-limit: %w", env.Name, err)
	}
	if m.store, err = kvstore.Open(filepath.Join(env.DataDir, "store"), kvstore.Options{Engine: cfg.Store.Engine, CacheMB: cfg.Store.CacheMB}); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			m.stop()
		}
	}()
	m.indexer, err = indexer.New(indexer.Options{
		Host: env.Host, Store: m.store, Logger: env.Logger, Metrics: env.Metrics,
		BlocksPerRequest: cfg.Indexer.BlocksPerRequest, InFlight: cfg.Indexer.RequestsInFlight,
		Tokens: tokens.Options{
			Parallel: cfg.NFTMetadata.Parallel,
			Fetch: tokens.FetchOptions{
				Enabled: cfg.NFTMetadata.Fetch, Timeout: cfg.NFTMetadata.Timeout.D,
				MaxBytes: cfg.NFTMetadata.MaxBytes, IPFSGateway: cfg.NFTMetadata.IPFSGateway, Client: m.opts.HTTPClient,
			},
		},
	})
	if err != nil {
		return err
	}
	if err = m.indexer.Start(ctx); err != nil {
		return err
	}
	network, err := rest.NodeNetwork(env.NetworkID, cfg.Network)
	if err != nil {
		return fmt.Errorf("module %s config: network: %w", env.Name, err)
	}
	server, err := api.New(api.Options{
		Store: m.store, Chains: m.indexer.Chains, Host: env.Host, Tokens: pageTokens, Prices: m.opts.Prices,
		Network: network, PublicURL: cfg.PublicURL, ChainConfig: cfg.Chains, Logger: env.Logger, Metrics: env.Metrics,
	})
	if err != nil {
		return fmt.Errorf("register API metrics: %w", err)
	}
	m.handler = limiter.Wrap(server.Handler())
	env.Logger.Info("data API ready", "store", cfg.Store.Engine, "mainnet", network.Mainnet, "nft_fetch", cfg.NFTMetadata.Fetch)
	return nil
}

// Handler serves the API behind the API keys and rate limits.
func (m *Module) Handler() http.Handler { return m.handler }

// Health is unhealthy while the chain watch fails.
func (m *Module) Health(context.Context) error {
	if m.indexer == nil {
		return errors.New("not initialized")
	}
	return m.indexer.Health()
}

// HealthDetails reports each chain's indexed height, accepted height and
// lag.
func (m *Module) HealthDetails(context.Context) map[string]any {
	if m.indexer == nil {
		return nil
	}
	d := m.indexer.HealthDetails()
	d["store"] = m.cfg.Store.Engine
	return d
}

// Shutdown stops indexing and closes the store.
func (m *Module) Shutdown(context.Context) error {
	return m.stop()
}

// stop stops the indexer, then closes the store, once.
func (m *Module) stop() error {
	m.stopOnce.Do(func() {
		if m.indexer != nil {
			m.indexer.Stop()
		}
		if m.store != nil {
			m.stopErr = m.store.Close()
		}
	})
	return m.stopErr
}
