// Package health answers /ext/health: the host and each chain's and
// module's plugin, healthy or not, with why and with the details the
// plugin reports.
package health

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Check is the result of one health check.
type Check struct {
	Healthy bool   `json:"healthy"`
	Message string `json:"message,omitempty"`
	// Details is what the plugin reports beside its health, such as an
	// indexer's height and lag.
	Details json.RawMessage `json:"details,omitempty"`
}

// Report is the health of the node.
type Report struct {
	Healthy bool             `json:"healthy"`
	Checks  map[string]Check `json:"checks"`
}

// Target is one plugin instance to check.
type Target struct {
	// Key names its check: "chain/<alias>" or "module/<name>".
	Key string
	// Instance is the running instance; nil when there is none, Reason
	// says why.
	Instance interface {
		Health(ctx context.Context) pluginhost.Health
	}
	Reason string
}

// Checker computes the node's health.
type Checker struct {
	targets func() []Target
	timeout time.Duration
}

// New returns a checker of the targets listed at each check.
func New(targets func() []Target) *Checker {
	return &Checker{targets: targets, timeout: pluginhost.HealthTimeout}
}

// Report checks the host and every target, all at once, each within the
// checker's timeout.
func (c *Checker) Report(ctx context.Context) Report {
	targets := c.targets()
	checks := make([]Check, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		if t.Instance == nil {
			checks[i] = Check{Message: t.Reason}
			continue
		}
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, c.timeout)
			defer cancel()
			h := t.Instance.Health(cctx)
			checks[i] = Check{Healthy: h.Healthy, Message: h.Reason, Details: h.Details}
		})
	}
	wg.Wait()
	rep := Report{Healthy: true, Checks: map[string]Check{"host": {Healthy: true}}}
	for i, t := range targets {
		rep.Checks[t.Key] = checks[i]
		rep.Healthy = rep.Healthy && checks[i].Healthy
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
