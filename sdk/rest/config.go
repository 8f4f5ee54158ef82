package rest

import (
	"time"

	"github.com/chainhost/chainhost/sdk/confjson"
)

// APIConfig is the part of a REST API module's config that every such
// module shares: the network it answers to, its keys and limits, and how
// long its page tokens stay valid. A module embeds it in its Config, so
// its keys sit at the top of the module's config (docs/rest.md).
type APIConfig struct {
	// Network is the network the module answers to: mainnet, or fuji and
	// testnet (either name); "" derives it from the node's network ID (1
	// is mainnet).
	Network string `json:"network"`
	// RateLimit sets the API keys, their limits and allowed chains, and
	// the anonymous limit.
	RateLimit LimitConfig `json:"rate-limit"`
	// PageTokenTTL is how long a page token stays valid.
	PageTokenTTL confjson.Duration `json:"page-token-ttl"`
}

// DefaultAPIConfig returns the shared part of an empty config: anonymous
// callers get 20 requests a second with a burst of 40, and a page token
// lasts 24 hours, as the hosted APIs keep them.
func DefaultAPIConfig() APIConfig {
	return APIConfig{
		RateLimit:    LimitConfig{Anonymous: Limit{PerSecond: 20, Burst: 40}},
		PageTokenTTL: confjson.Duration(24 * time.Hour),
	}
}

// Problems returns what is wrong with the network and the limits, each
// naming its key.
func (c APIConfig) Problems() []string {
	var problems []string
	if _, err := NodeNetwork(0, c.Network); err != nil {
		problems = append(problems, "network: "+err.Error())
	}
	if err := c.RateLimit.Validate(); err != nil {
		problems = append(problems, "rate-limit: "+err.Error())
	}
	return problems
}
