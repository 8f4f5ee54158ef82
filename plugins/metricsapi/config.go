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
	// Network is the network the node answers to in v2 paths: mainnet, or
	// fuji and testnet (either name); "" derives it from the node's
	// network ID (1 is mainnet).
	Network string `json:"network"`
	// RateLimit sets the anonymous limit (the metrics API needs no key)
	// and any API keys (docs/rest.md).
	RateLimit rest.LimitConfig `json:"rate-limit"`
	// PageTokenTTL is how long a page token stays valid: 24 hours by
	// default, as the hosted metrics API keeps them.
	PageTokenTTL confjson.Duration `json:"page-token-ttl"`
}

// DefaultConfig returns the config of a module whose config is empty.
func DefaultConfig() Config {
	return Config{
		RateLimit:    rest.LimitConfig{Anonymous: rest.Limit{PerSecond: 20, Burst: 40}},
		PageTokenTTL: confjson.Duration(24 * time.Hour),
	}
}

// ParseConfig reads the module's config over the defaults (confjson: an
// unknown key or a bad duration is an error naming it; empty is the
// defaults).
func ParseConfig(b []byte) (Config, error) {
	cfg := DefaultConfig()
	if err := confjson.Decode(b, &cfg); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// Validate checks the values.
func (c Config) Validate() error {
	var problems []string
	if _, err := rest.NodeNetwork(0, c.Network); err != nil {
		problems = append(problems, "network: "+err.Error())
	}
	if err := c.RateLimit.Validate(); err != nil {
		problems = append(problems, "rate-limit: "+err.Error())
	}
	if c.PageTokenTTL.D() < time.Minute {
		problems = append(problems, fmt.Sprintf("page-token-ttl: must be at least 1m, got %s", c.PageTokenTTL))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}
