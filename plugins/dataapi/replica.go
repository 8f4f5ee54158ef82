package dataapi

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// publishInterval is how often the indexer's chains are compared with
// what was published.
const publishInterval = time.Second

// publishChains keeps the chains the indexer follows published in the
// database for the API-only instances, until ctx ends: at once, then
// whenever they change (a chain starts, stops or appears).
func publishChains(ctx context.Context, st *pgstore.Store, chains func() []indexer.Chain, log hclog.Logger) {
	var last []host.ChainInfo
	published := false
	for {
		var infos []host.ChainInfo
		for _, c := range chains() {
			infos = append(infos, c.Info)
		}
		if !published || !reflect.DeepEqual(infos, last) {
			if err := st.PublishChains(ctx, infos); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Warn("publish the chains for the API instances; trying again", "error", err)
			} else {
				last, published = infos, true
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(publishInterval):
		}
	}
}

// replicaQueryTimeout bounds the reads of the chain list.
const replicaQueryTimeout = 5 * time.Second

// replicaChains lists the chains an API-only instance serves: those the
// indexer published, with how far each is indexed, read from the
// database at each call.
type replicaChains struct {
	store    *pgstore.Store
	log      hclog.Logger
	external map[ids.ID]external // the config's external chains, by ID

	mu   sync.Mutex
	last []indexer.Chain // the last list read, kept while the database fails
}

// Chains returns the published chains with their indexed state; while
// the database fails, the last list read.
func (r *replicaChains) Chains() []indexer.Chain {
	ctx, cancel := context.WithTimeout(context.Background(), replicaQueryTimeout)
	defer cancel()
	out, err := r.read(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.log.Warn("read the chains from the database", "error", err)
		return r.last
	}
	r.last = out
	return out
}

// read reads the published chains and their states.
func (r *replicaChains) read(ctx context.Context) ([]indexer.Chain, error) {
	infos, err := r.store.PublishedChains(ctx)
	if err != nil {
		return nil, err
	}
	states, err := r.store.Chains(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]indexer.Chain, 0, len(infos))
	for _, info := range infos {
		c := indexer.Chain{Info: info}
		if e, ok := r.external[info.ID]; ok {
			c.External, c.Calls = &e.cfg, e.client
		}
		if st, ok := states[info.ID]; ok {
			c.EVMChainID = st.EVMChainID
			c.Height, c.Indexed = st.Height()
		}
		out = append(out, c)
	}
	return out, nil
}

// external is an external chain an API-only instance serves: its config
// (for the URLs it advertises) and a client of its node (for the native
// balances).
type external struct {
	cfg    evmremote.Chain
	client *evmremote.Client
}

// dialExternal readies the clients of the config's external chains.
func (r *replicaChains) dialExternal(ctx context.Context, chains []evmremote.Chain) error {
	r.external = map[ids.ID]external{}
	for _, cfg := range chains {
		client, err := evmremote.Dial(ctx, evmremote.OptionsOf(cfg))
		if err != nil {
			r.close()
			return fmt.Errorf("external chain %s: %w", cfg.Name, err)
		}
		id, _ := cfg.ID()
		r.external[id] = external{cfg: cfg, client: client}
	}
	return nil
}

// close closes the clients of the external chains.
func (r *replicaChains) close() {
	for _, e := range r.external {
		e.client.Close()
	}
}

// healthDetails reports each chain's indexed height, by primary alias.
func (r *replicaChains) healthDetails() map[string]any {
	chains := map[string]any{}
	for _, c := range r.Chains() {
		d := map[string]any{"chainId": c.Info.ID.String(), "evmChainId": c.EVMChainID, "running": c.Info.Running}
		if c.Indexed {
			d["height"] = c.Height
		}
		name := c.Info.ID.String()
		if len(c.Info.Aliases) > 0 {
			name = c.Info.Aliases[0]
		}
		chains[name] = d
	}
	return map[string]any{"chains": chains}
}

// readinessRetry is how often a database that is not ready is checked
// again.
const readinessRetry = time.Second

// readiness holds the API role's requests until its database is ready:
// reachable, with the indexer's schema. An instance may start before the
// database answers, or before the indexer set it up; it then answers 503
// and is unhealthy until it is.
type readiness struct {
	store *pgstore.Store

	mu      sync.Mutex
	ready   bool
	err     error
	checked time.Time
}

// check returns nil once the database is ready, or why it is not, asking
// the database at most once per readinessRetry.
func (g *readiness) check(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ready || (g.err != nil && time.Since(g.checked) < readinessRetry) {
		return g.err
	}
	g.checked = time.Now()
	g.err = g.store.CheckSchema(ctx)
	g.ready = g.err == nil
	return g.err
}

// wrap answers 503 with the REST body in front of h until the database is
// ready.
func (g *readiness) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.check(r.Context()); err != nil {
			rest.WriteError(w, rest.Unavailable("the data API's database is not ready: %v", err))
			return
		}
		h.ServeHTTP(w, r)
	})
}
