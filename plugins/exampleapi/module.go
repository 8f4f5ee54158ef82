// Package exampleapi is the example REST module, the module author's
// tutorial: a small read API over the node's chains at /v1/example, built
// on the SDK's REST toolkit (sdk/rest) and on what the host gives a module:
// the chain registry and its watch, index feeds, chain calls to a VM's
// internal handlers, a data directory, metrics and health details
// (docs/modules.md).
package exampleapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/confjson"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Name is the module plugin's name.
const Name = "exampleapi"

// Prefix is the one path prefix the module serves.
const Prefix = "/v1/example"

// config is the module's config, the `config:` of its entry in the node
// config.
type config struct {
	// RateLimit sets the API keys and the request rates (docs/rest.md).
	RateLimit rest.LimitConfig `json:"rate-limit"`
}

// parseConfig reads the module's config strictly (confjson) and checks its
// rate limits.
func parseConfig(raw []byte) (config, error) {
	var cfg config
	if err := confjson.Decode(raw, &cfg); err != nil {
		return config{}, err
	}
	if err := cfg.RateLimit.Validate(); err != nil {
		return config{}, fmt.Errorf("rate-limit: %w", err)
	}
	return cfg, nil
}

// CheckConfig reports what is wrong with the module's config, as
// Initialize reads it (the doc tests check config files with it,
// docs/doctest.md).
func CheckConfig(raw []byte) error {
	_, err := parseConfig(raw)
	return err
}

// pageTokenTTL is how long a page token stays valid.
const pageTokenTTL = 24 * time.Hour

// watchRetry is the pause before the chain watch is started again after
// it failed.
const watchRetry = time.Second

// Module is the example REST module.
type Module struct {
	env      *sdk.Env
	tokens   *rest.PageTokens
	limiter  *rest.Limiter
	requests *prometheus.CounterVec

	stop context.CancelFunc
	done chan struct{}

	mu       sync.RWMutex
	chains   map[ids.ID]host.ChainInfo // kept current by the chain watch
	watchErr error                     // why the watch last failed; nil while it runs
}

// New returns an uninitialized module.
func New() *Module { return &Module{chains: map[ids.ID]host.ChainInfo{}} }

// Initialize reads the config, loads the page-token key from the module's
// data directory, registers the metrics, lists the chains and starts
// watching them.
func (m *Module) Initialize(ctx context.Context, env *sdk.Env) error {
	m.env = env
	cfg, err := parseConfig(env.Config)
	if err != nil {
		return fmt.Errorf("module %s config: %w", env.Name, err)
	}
	key, err := rest.LoadOrCreateKey(filepath.Join(env.DataDir, "pagetoken.key"))
	if err != nil {
		return err
	}
	if m.tokens, err = rest.NewPageTokens(key, pageTokenTTL); err != nil {
		return err
	}
	if m.limiter, err = rest.NewLimiter(rest.LimiterOptions{Config: cfg.RateLimit, Logger: env.Logger}); err != nil {
		return fmt.Errorf("module %s config: rate-limit: %w", env.Name, err)
	}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "exampleapi_requests_total",
		Help: "Requests served by the example module, by route pattern and status code.",
	}, []string{"route", "code"})
	if err := env.Metrics.Register(m.requests); err != nil {
		return fmt.Errorf("register metrics: %w", err)
	}
	// The first answers must not wait for the watch: list the chains now.
	list, err := env.Host.Chains.List(ctx)
	if err != nil {
		return fmt.Errorf("list chains: %w", err)
	}
	for _, c := range list {
		m.chains[c.ID] = c
	}
	watchCtx, stop := context.WithCancel(context.Background())
	m.stop, m.done = stop, make(chan struct{})
	go m.watch(watchCtx)
	return nil
}

// watch keeps m.chains current with the host's chain registry until ctx
// ends, watching again after a failure.
func (m *Module) watch(ctx context.Context) {
	defer close(m.done)
	for ctx.Err() == nil {
		err := m.env.Host.Chains.Watch(ctx, func(ev host.ChainEvent) error {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.chains[ev.Chain.ID] = ev.Chain
			m.watchErr = nil
			if ev.Kind != host.ChainCurrent {
				m.env.Logger.Info("chain changed", "chain", ev.Chain.Aliases, "event", ev.Kind)
			}
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		m.mu.Lock()
		m.watchErr = err
		m.mu.Unlock()
		m.env.Logger.Warn("chain watch ended; watching again", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(watchRetry):
		}
	}
}

// Handler routes the module's endpoints, below each prefix the host routes
// to it (Prefix unless its config names others), behind the rate limiter.
// rest.Mux answers every other path (404) and method (405) with the REST
// error body, and counts every answer in the metrics by pattern.
func (m *Module) Handler() http.Handler {
	prefixes := m.env.Prefixes
	if len(prefixes) == 0 {
		prefixes = []string{Prefix}
	}
	mux := rest.NewMux(rest.MuxOptions{
		Logger: m.env.Logger,
		Observe: func(pattern string, status int, _ time.Duration) {
			m.requests.WithLabelValues(pattern, strconv.Itoa(status)).Inc()
		},
	})
	for _, p := range prefixes {
		mux.Handle(p+"/chains", m.listChains)
		mux.Handle(p+"/chains/{chain}/containers", m.listContainers)
		mux.Handle(p+"/chains/{chain}/blockNumber", m.blockNumber)
		mux.Handle(p+"/echo/", echo)
	}
	return m.limiter.Wrap(mux)
}

// Echo is the answer of /echo/...: the request as the module received it.
type Echo struct {
	Path        string `json:"path"`
	EscapedPath string `json:"escapedPath"`
	Query       string `json:"query"`
	RequestURI  string `json:"requestURI"`
}

// echo answers GET /v1/example/echo/...: the host hands a module each
// request's path, escaped path and query as the client sent them (colons,
// %2F and all), and this shows it.
func echo(r *http.Request) (any, error) {
	return Echo{Path: r.URL.Path, EscapedPath: r.URL.EscapedPath(), Query: r.URL.RawQuery, RequestURI: r.RequestURI}, nil
}

// Chain is one chain in the answer of /chains.
type Chain struct {
	ChainID    string   `json:"chainId"`
	Name       string   `json:"name"`
	Aliases    []string `json:"aliases"`
	VMName     string   `json:"vmName"`
	Running    bool     `json:"running"`
	IndexKinds []string `json:"indexKinds"`
}

// listChains answers GET /v1/example/chains from the watched registry.
func (m *Module) listChains(*http.Request) (any, error) {
	m.mu.RLock()
	out := make([]Chain, 0, len(m.chains))
	for _, c := range m.chains {
		out = append(out, Chain{
			ChainID: c.ID.String(), Name: c.Aliases[0], Aliases: c.Aliases, VMName: c.VMName,
			Running: c.Running, IndexKinds: append([]string{}, c.IndexKinds...),
		})
	}
	m.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return map[string]any{"chains": out}, nil
}

// container is one indexed container in the answer of /containers.
type container struct {
	Index     uint64    `json:"index"`
	ID        string    `json:"id"`
	Timestamp time.Time `json:"timestamp"`
	Size      int       `json:"size"`
}

// containersPage is the answer of /containers; NextPageToken is left out
// on the last page.
type containersPage struct {
	Containers    []container `json:"containers"`
	NextPageToken string      `json:"nextPageToken,omitempty"`
}

// containersCursor is what a page token of /containers carries.
type containersCursor struct {
	Next uint64 `json:"next"`
}

// listContainers answers GET /v1/example/chains/{chain}/containers: a page
// of the chain's index of a kind, oldest first, from the host's feed.
func (m *Module) listContainers(r *http.Request) (any, error) {
	q := rest.Query(r)
	kind := q.String("kind", "")
	pageSize := q.Int("pageSize", rest.IntRange{Default: 10, Min: 1, Max: 100})
	token := q.String("pageToken", "")
	if err := q.Err(); err != nil {
		return nil, err
	}
	info, err := m.resolve(r)
	if err != nil {
		return nil, err
	}
	switch {
	case kind == "" && len(info.IndexKinds) == 0:
		return nil, rest.NotFound("chain %s has no index", info.Aliases[0])
	case kind == "":
		kind = info.IndexKinds[0]
	case !slices.Contains(info.IndexKinds, kind):
		return nil, rest.NotFound("chain %s has no %q index (it has %v)", info.Aliases[0], kind, info.IndexKinds)
	}
	scope := rest.Scope("containers", info.ID.String(), kind)
	var cur containersCursor
	if token != "" {
		if err := m.tokens.Open(token, scope, &cur); err != nil {
			return nil, err
		}
	}
	page := containersPage{Containers: []container{}}
	more := false
	err = m.env.Host.Index.Feed(r.Context(), info.ID.String(), kind, cur.Next, false, func(c host.Container) error {
		if len(page.Containers) == pageSize {
			more = true
			return host.ErrStop
		}
		page.Containers = append(page.Containers, container{Index: c.Index, ID: c.ID.String(), Timestamp: c.Timestamp, Size: len(c.Bytes)})
		return nil
	})
	switch {
	case errors.Is(err, host.ErrNoIndex):
		return nil, rest.NotFound("this node keeps no index")
	case err != nil:
		return nil, rest.Unavailable("read the index of chain %s: %v", info.Aliases[0], err)
	}
	if more {
		next := containersCursor{Next: page.Containers[len(page.Containers)-1].Index + 1}
		if page.NextPageToken, err = m.tokens.Seal(scope, next); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// blockNumber answers GET /v1/example/chains/{chain}/blockNumber for an
// EVM chain, through a chain call to the EVM's internal indexer handler,
// which the node never serves over HTTP.
func (m *Module) blockNumber(r *http.Request) (any, error) {
	info, err := m.resolve(r)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(info.InternalHandlers, evmapi.IndexerHandler) {
		return nil, rest.NotFound("chain %s has no internal %s handler (it runs VM %s)", info.Aliases[0], evmapi.IndexerHandler, info.VMName)
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`)
	status, body, err := m.env.Host.Calls.Call(r.Context(), info.ID.String(), evmapi.IndexerHandler, req)
	switch {
	case errors.Is(err, host.ErrNotFound):
		return nil, rest.NotFound("%v", err)
	case err != nil:
		return nil, rest.Unavailable("chain %s: %v", info.Aliases[0], err)
	case status != http.StatusOK:
		return nil, rest.Errorf(http.StatusBadGateway, "chain %s answered %d", info.Aliases[0], status)
	}
	var resp struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, rest.Errorf(http.StatusBadGateway, "chain %s answered %q", info.Aliases[0], body)
	}
	n, err := strconv.ParseUint(resp.Result, 0, 64)
	if err != nil {
		return nil, rest.Errorf(http.StatusBadGateway, "chain %s answered block number %q", info.Aliases[0], resp.Result)
	}
	return map[string]string{"chainId": info.ID.String(), "blockNumber": strconv.FormatUint(n, 10)}, nil
}

// resolve finds the chain the path names, by alias or ID.
func (m *Module) resolve(r *http.Request) (host.ChainInfo, error) {
	name, err := rest.PathParam(r, "chain")
	if err != nil {
		return host.ChainInfo{}, err
	}
	info, err := m.env.Host.Chains.Resolve(r.Context(), name)
	if errors.Is(err, host.ErrNotFound) {
		return host.ChainInfo{}, rest.NotFound("chain %q not found", name)
	}
	if err != nil {
		return host.ChainInfo{}, rest.Unavailable("resolve chain %q: %v", name, err)
	}
	return info, nil
}

// Health is unhealthy while the chain watch is failing.
func (m *Module) Health(context.Context) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.watchErr != nil {
		return fmt.Errorf("chain watch: %w", m.watchErr)
	}
	return nil
}

// HealthDetails reports how many chains the module sees, and how many run.
func (m *Module) HealthDetails(context.Context) map[string]any {
	m.mu.RLock()
	defer m.mu.RUnlock()
	running := 0
	for _, c := range m.chains {
		if c.Running {
			running++
		}
	}
	return map[string]any{"chains": len(m.chains), "running": running}
}

// Shutdown stops the chain watch.
func (m *Module) Shutdown(context.Context) error {
	if m.stop != nil {
		m.stop()
		<-m.done
	}
	return nil
}
