package metricsapi

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chainhost/chainhost/sdk/confjson"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Config is the module's config: the `config:` of its entry under
// `modules:` in the node config, as strict JSON (an unknown key is an
// error naming it). docs/metrics-api.md lists every key with its default.
type Config struct {
	// APIConfig holds network (the network v2 paths answer to),
	// rate-limit (the metrics API needs no key, but takes keys) and
	// page-token-ttl (at least a minute).
	rest.APIConfig
}

// DefaultConfig returns the config of a module whose config is empty.
func DefaultConfig() Config {
	return Config{APIConfig: rest.DefaultAPIConfig()}
}

// ParseConfig reads the module's config over the defaults and checks it
// (confjson.Parse: an unknown key or a bad duration is an error naming it;
// empty is the defaults).
func ParseConfig(b []byte) (Config, error) {
	return confjson.Parse(b, DefaultConfig())
}

// Validate checks the values.
func (c Config) Validate() error {
	problems := c.APIConfig.Problems()
	if c.PageTokenTTL.D() < time.Minute {
		problems = append(problems, fmt.Sprintf("page-token-ttl: must be at least 1m, got %s", c.PageTokenTTL))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}
