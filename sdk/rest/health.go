package rest

import (
	"context"
	"maps"
	"net/http"
	"slices"
)

// HealthResult is the answer of a health or live check
// (HealthCheckResultDto of the data and metrics contracts): status "ok"
// and, in info and details, each check the module ran, "up".
type HealthResult struct {
	Status  string               `json:"status"`
	Info    map[string]Indicator `json:"info"`
	Error   map[string]Indicator `json:"error"`
	Details map[string]Indicator `json:"details"`
}

// Indicator is the state of one check: "up" or "down".
type Indicator struct {
	Status string `json:"status"`
}

// HealthCheck is one named check of a module's health: nil when what it
// checks answers.
type HealthCheck func(ctx context.Context) error

// Health returns the endpoint of a health or live check that runs checks,
// in the order of their names: an "ok" HealthResult when every one passes,
// or else a 503 naming the first that fails (docs/rest.md, "Health and
// live checks").
func Health(checks map[string]HealthCheck) EndpointFunc {
	names := slices.Sorted(maps.Keys(checks))
	return func(r *http.Request) (any, error) {
		up := map[string]Indicator{}
		for _, name := range names {
			if err := checks[name](r.Context()); err != nil {
				return nil, Errorf(http.StatusServiceUnavailable, "health check %s: down", name).WithCause(err)
			}
			up[name] = Indicator{Status: "up"}
		}
		return HealthResult{Status: "ok", Info: up, Error: map[string]Indicator{}, Details: up}, nil
	}
}
