package metricsapi

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chainhost/chainhost/avax/evmremote"
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
	// ExternalChains are EVM chains of other nodes, reached by URL, whose
	// throughput the module counts beside the node's own chains: the same
	// list as the data module's (docs/metrics-api.md, "External chains").
	ExternalChains []evmremote.Chain `json:"external-chains"`
}

// DefaultConfig returns the config of a module whose config is empty.
func DefaultConfig() Config {
	return Config{APIConfig: rest.DefaultAPIConfig()}
}

// ParseConfig reads the module's config over the defaults and checks it
// (confjson.Parse: an unknown key or a bad duration is an error naming it;
// empty is the defaults); the external chains' zero limits take their
// defaults.
func ParseConfig(b []byte) (Config, error) {
	c, err := confjson.Parse(b, DefaultConfig())
	if err != nil {
		return c, err
	}
	c.ExternalChains = withDefaults(c.ExternalChains)
	return c, nil
}

// Validate checks the values.
func (c Config) Validate() error {
	problems := c.APIConfig.Problems()
	if c.PageTokenTTL.D() < time.Minute {
		problems = append(problems, fmt.Sprintf("page-token-ttl: must be at least 1m, got %s", c.PageTokenTTL))
	}
	if err := evmremote.ValidateList(withDefaults(c.ExternalChains)); err != nil {
		problems = append(problems, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// withDefaults returns a copy of chains with their zero limits set.
func withDefaults(chains []evmremote.Chain) []evmremote.Chain {
	out := make([]evmremote.Chain, len(chains))
	for i, c := range chains {
		out[i] = c.WithDefaults()
	}
	return out
}
