// Package dataapi is the chain data REST API module (docs/data-api.md): it
// indexes every EVM chain of the node into an embedded store in its data
// directory, or into PostgreSQL, and serves the data API at /v1/chains,
// /v1/address and /v1/networks, in the shapes of the contract that
// @avalanche-sdk/chainkit validates. On PostgreSQL, instances in the API
// role serve the same database without indexing (docs/data-api.md,
// "Scaling out").
//
// Its parts, one job each: indexer (finds and follows the chains), derive
// (blocks to records), tokens (token metadata through eth_call), evmrpc
// (calls to the EVM's internal indexer handler), store, store/kvstore and
// store/pgstore (the storage interface and its embedded and PostgreSQL
// backends), api (the endpoints), price (the pluggable price source).
package dataapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/evmrpc"
	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/price"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/plugins/dataapi/tokens"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/ids"
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
	// Now is the clock of the NFT metadata's update times; nil: time.Now.
	Now func() time.Time
}

// Module is the data API module.
type Module struct {
	opts    Options
	cfg     Config
	store   store.Store
	pg      *pgstore.Store // the store, when it is PostgreSQL
	indexer *indexer.Indexer
	replica *replicaChains // the chains of an API-only instance
	ready   *readiness     // holds an API-only instance until its database is ready
	handler http.Handler

	stopPublish context.CancelFunc
	published   chan struct{}
	refetcher   *tokens.Refetcher // reindexNft's worker; nil in the API role
	stopRefetch context.CancelFunc
	refetched   chan struct{}
	stopOnce    sync.Once
	stopErr     error
}

// New returns an uninitialized module.
func New(opts Options) *Module { return &Module{opts: opts} }

// Initialize reads the config, opens the store, starts indexing (or, in
// the API role, reads what another instance indexes) and builds the API.
func (m *Module) Initialize(ctx context.Context, env *sdk.Env) (err error) {
	if m.cfg, err = ParseConfig(env.Config); err != nil {
		return fmt.Errorf("module %s config: %w", env.Name, err)
	}
	cfg := m.cfg
	key, _ := cfg.pageTokenKey()
	if key == nil {
		if key, err = rest.LoadOrCreateKey(filepath.Join(env.DataDir, "pagetoken.key")); err != nil {
			return err
		}
	}
	pageTokens, err := rest.NewPageTokens(key, cfg.PageTokenTTL.D())
	if err != nil {
		return err
	}
	limiter, err := rest.NewLimiter(rest.LimiterOptions{Config: cfg.RateLimit, Logger: env.Logger})
	if err != nil {
		return fmt.Errorf("module %s config: rate-limit: %w", env.Name, err)
	}
	if err := m.openStore(ctx, env.DataDir, env.Logger); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			m.stop()
		}
	}()
	services := env.Host
	var chains func() []indexer.Chain
	var up *upstream
	if cfg.Role == roleAPI {
		if up, err = newUpstream(cfg.UpstreamURL); err != nil {
			return err
		}
		services.Calls = up
		m.replica = &replicaChains{store: m.pg, log: env.Logger}
		if err := m.replica.dialExternal(ctx, cfg.ExternalChains); err != nil {
			return err
		}
		chains = m.replica.Chains
		m.ready = &readiness{store: m.pg}
		if err := m.ready.check(ctx); err != nil {
			env.Logger.Warn("the database is not ready: answering 503 until it is", "error", err)
		}
	} else {
		if err := m.startIndexer(ctx, env); err != nil {
			return err
		}
		chains = m.indexer.Chains
	}
	network, err := rest.NodeNetwork(env.NetworkID, cfg.Network)
	if err != nil {
		return fmt.Errorf("module %s config: network: %w", env.Name, err)
	}
	// An API-only instance runs no chain: rpcUrl and wsUrl point to the
	// indexing node, which does, unless public-url says where they answer.
	chainsURL := cfg.PublicURL
	if chainsURL == "" && cfg.Role == roleAPI {
		chainsURL = cfg.UpstreamURL
	}
	opts := api.Options{
		Store: m.store, Chains: chains, Host: services, Tokens: pageTokens, Prices: m.opts.Prices,
		Network: network, PublicURL: chainsURL, ChainConfig: cfg.Chains, Logger: env.Logger, Metrics: env.Metrics,
	}
	if m.refetcher != nil {
		opts.Reindex = m.refetcher
	}
	server, err := api.New(opts)
	if err != nil {
		return fmt.Errorf("register API metrics: %w", err)
	}
	h := server.Handler()
	if up != nil {
		// The vertices are the X-Chain's, which only the upstream node runs.
		endpoints, vertices := h, up.proxy(env.Logger)
		h = m.ready.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, verticesPrefix) {
				vertices.ServeHTTP(w, r)
				return
			}
			endpoints.ServeHTTP(w, r)
		}))
	}
	m.handler = limiter.Wrap(h)
	env.Logger.Info("data API ready", "role", cfg.Role, "store", cfg.Store.Engine, "mainnet", network.Mainnet, "nft_fetch", cfg.NFTMetadata.Fetch)
	return nil
}

// verticesPrefix is the path of the vertices (endpoint 13).
const verticesPrefix = "/v1/networks/"

// openStore opens the store the config names: an embedded engine in the
// data directory, or PostgreSQL (read-only in the API role).
func (m *Module) openStore(ctx context.Context, dataDir string, log hclog.Logger) (err error) {
	sc := m.cfg.Store
	if sc.Engine != enginePostgres {
		m.store, err = kvstore.Open(filepath.Join(dataDir, "store"), kvstore.Options{Engine: sc.Engine, CacheMB: sc.CacheMB, Logger: log})
		return err
	}
	m.pg, err = pgstore.Open(ctx, pgstore.Options{URL: sc.URL, ReadOnly: m.cfg.Role == roleAPI, MaxConns: sc.MaxConns, Logger: log})
	if err != nil {
		return err
	}
	m.store = m.pg
	return nil
}

// startIndexer starts indexing the node's chains and, on PostgreSQL,
// publishing them for the API-only instances.
func (m *Module) startIndexer(ctx context.Context, env *sdk.Env) (err error) {
	cfg := m.cfg
	m.indexer, err = indexer.New(indexer.Options{
		Host: env.Host, Store: m.store, Logger: env.Logger, Metrics: env.Metrics,
		BlocksPerRequest: cfg.Indexer.BlocksPerRequest, InFlight: cfg.Indexer.RequestsInFlight,
		External: cfg.ExternalChains,
		Tokens:   m.tokenOptions(),
	})
	if err != nil {
		return err
	}
	if err = m.indexer.Start(ctx); err != nil {
		return err
	}
	m.refetcher = tokens.NewRefetcher(m.store, m.chainCaller(env), m.tokenOptions(), env.Logger)
	refetchCtx, stopRefetch := context.WithCancel(context.Background())
	m.stopRefetch, m.refetched = stopRefetch, make(chan struct{})
	go func() {
		defer close(m.refetched)
		m.refetcher.Run(refetchCtx)
	}()
	if m.pg != nil {
		pubCtx, stop := context.WithCancel(context.Background())
		m.stopPublish, m.published = stop, make(chan struct{})
		go func() {
			defer close(m.published)
			publishChains(pubCtx, m.pg, m.indexer.Chains, env.Logger)
		}()
	}
	return nil
}

// Handler serves the API behind the API keys and rate limits.
func (m *Module) Handler() http.Handler { return m.handler }

// Health is unhealthy while the chain watch fails, or, in the API role,
// until the database is ready.
func (m *Module) Health(ctx context.Context) error {
	switch {
	case m.ready != nil:
		if err := m.ready.check(ctx); err != nil {
			return err
		}
		return m.pg.Ping(ctx)
	case m.indexer == nil:
		return errors.New("not initialized")
	}
	return m.indexer.Health()
}

// HealthDetails reports each chain's indexed height, accepted height and
// lag (in the API role, the indexed height).
func (m *Module) HealthDetails(context.Context) map[string]any {
	var d map[string]any
	switch {
	case m.replica != nil:
		d = m.replica.healthDetails()
	case m.indexer != nil:
		d = m.indexer.HealthDetails()
	default:
		return nil
	}
	d["store"], d["role"] = m.cfg.Store.Engine, m.cfg.Role
	return d
}

// Shutdown stops indexing and closes the store.
func (m *Module) Shutdown(context.Context) error {
	return m.stop()
}

// stop stops the indexer and the publishing of its chains, then closes
// the store, once.
func (m *Module) stop() error {
	m.stopOnce.Do(func() {
		if m.stopPublish != nil {
			m.stopPublish()
			<-m.published
		}
		if m.stopRefetch != nil {
			m.stopRefetch()
			<-m.refetched
		}
		if m.indexer != nil {
			m.indexer.Stop()
		}
		if m.replica != nil {
			m.replica.close()
		}
		if m.store != nil {
			m.stopErr = m.store.Close()
		}
	})
	return m.stopErr
}

// tokenOptions are how token data and NFT metadata are read.
func (m *Module) tokenOptions() tokens.Options {
	cfg := m.cfg.NFTMetadata
	return tokens.Options{
		Parallel: cfg.Parallel, Now: m.opts.Now,
		Fetch: tokens.FetchOptions{
			Enabled: cfg.Fetch, Timeout: cfg.Timeout.D(), MaxBytes: cfg.MaxBytes, IPFSGateway: cfg.IPFSGateway,
			AllowPrivate: cfg.AllowPrivateAddresses, Client: m.opts.HTTPClient,
		},
	}
}

// chainCaller returns the eth_call client of each chain the indexer
// indexes.
func (m *Module) chainCaller(env *sdk.Env) func(ids.ID) (tokens.Caller, bool) {
	return func(chain ids.ID) (tokens.Caller, bool) {
		for _, c := range m.indexer.Chains() {
			if c.Info.ID == chain {
				calls := env.Host.Calls
				if c.Calls != nil {
					calls = c.Calls
				}
				return evmrpc.New(calls, chain.String()), true
			}
		}
		return nil, false
	}
}
