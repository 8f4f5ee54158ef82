// Package health answers /ext/health: the host and each chain's plugin,
// healthy or not, with why.
package health

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Check is the result of one health check.
type Check struct {
	Healthy bool   `json:"healthy"`
	Message string `json:"message,omitempty"`
}

// Report is the health of the node.
type Report struct {
	Healthy bool             `json:"healthy"`
	Checks  map[string]Check `json:"checks"`
}

// Checker computes the node's health.
type Checker struct {
	chains  *chains.Manager
	timeout time.Duration
}

// New returns a checker of the chains.
func New(cm *chains.Manager) *Checker { return &Checker{chains: cm, timeout: 2 * time.Second} }

// Report checks the host and every chain.
func (c *Checker) Report(ctx context.Context) Report {
	rep := Report{Healthy: true, Checks: map[string]Check{"host": {Healthy: true}}}
	for _, ch := range c.chains.Chains() {
		check := Check{Healthy: true}
		inst, reason := ch.Instance()
		if inst == nil {
			check = Check{Message: reason}
		} else {
			cctx, cancel := context.WithTimeout(ctx, c.timeout)
			check.Healthy, check.Message = inst.Health(cctx)
			cancel()
		}
		rep.Checks["chain/"+ch.Alias] = check
		rep.Healthy = rep.Healthy && check.Healthy
	}
	return rep
}

// Handler serves GET /ext/health (200 healthy, 503 not, with the report as
// JSON) and POST JSON-RPC `health.health`.
func (c *Checker) Handler(rpc jsonrpc.Options) http.Handler {
	srv := jsonrpc.NewServer(rpc)
	srv.Register("health.health", jsonrpc.Method(func(ctx context.Context, _ struct{}) (Report, error) {
		return c.Report(ctx), nil
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			srv.ServeHTTP(w, r)
			return
		}
		rep := c.Report(r.Context())
		w.Header().Set("Content-Type", "application/json")
		if !rep.Healthy {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(rep)
	})
}
