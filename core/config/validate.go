package config

import (
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/chainhost/chainhost/core/logging"
)

// Validate reports every value out of range, missing or inconsistent, each
// error naming its key.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config: %s: "+format, append([]any{key}, args...)...))
	}
	if c.HTTPPort < 0 || c.HTTPPort > 65535 {
		bad("http-port", "%d is not a valid port", c.HTTPPort)
	}
	if c.HTTPMaxBodySize < 1 {
		bad("http-max-body-size", "%d is not a positive size", c.HTTPMaxBodySize)
	}
	positive := func(key string, d time.Duration) {
		if d <= 0 {
			bad(key, "%s is not a positive duration", d)
		}
	}
	positive("http-read-header-timeout", c.HTTPReadHeaderTimeout)
	positive("http-shutdown-timeout", c.HTTPShutdownTimeout)
	if c.APIMaxBatchSize < 1 {
		bad("api-max-batch-size", "%d is less than 1", c.APIMaxBatchSize)
	}
	if c.DataDir == "" {
		bad("data-dir", "must not be empty")
	}
	validLevel := func(key string, l logging.Level) {
		if l < logging.Verbo || l > logging.Off {
			bad(key, "%s is not a log level", l)
		}
	}
	validLevel("log-level", c.LogLevel)
	validLevel("log-display-level", c.LogDisplayLevel)
	positive("plugin-restart-backoff", c.PluginRestartBackoff)
	if c.PluginRestartMaxBackoff < c.PluginRestartBackoff {
		bad("plugin-restart-max-backoff", "%s is less than plugin-restart-backoff (%s)", c.PluginRestartMaxBackoff, c.PluginRestartBackoff)
	}
	for _, name := range slices.Sorted(maps.Keys(c.PluginSHA256)) {
		key := "plugin-sha256." + name
		if name == "" {
			bad("plugin-sha256", "empty plugin name")
		}
		if sum := c.PluginSHA256[name]; !isSHA256Hex(sum) {
			bad(key, "%q is not a sha256 (64 hex digits)", sum)
		}
	}
	errs = append(errs, c.validateChains()...)
	return errors.Join(errs...)
}

// validateChains checks each chain and that no alias names two chains.
func (c *Config) validateChains() []error {
	var errs []error
	usedBy := map[string]string{}
	use := func(key, alias string) {
		switch {
		case !isName(alias):
			errs = append(errs, fmt.Errorf("config: %s: %q is not a valid alias (letters, digits, _ and -)", key, alias))
		case usedBy[alias] != "":
			errs = append(errs, fmt.Errorf("config: %s: alias %q is already used by %s", key, alias, usedBy[alias]))
		default:
			usedBy[alias] = key
		}
	}
	for i, ch := range c.Chains {
		at := fmt.Sprintf("chains[%d]", i)
		if ch.Alias == "" {
			errs = append(errs, fmt.Errorf("config: %s.alias: required", at))
		} else {
			use(at+".alias", ch.Alias)
		}
		for j, a := range ch.Aliases {
			use(fmt.Sprintf("%s.aliases[%d]", at, j), a)
		}
		if ch.VM == "" {
			errs = append(errs, fmt.Errorf("config: %s.vm: required", at))
		}
		if ch.Genesis != nil && ch.GenesisFile != "" {
			errs = append(errs, fmt.Errorf("config: %s: genesis and genesis-file are exclusive", at))
		}
		errs = append(errs, validateKinds(at+".legacy-index-kinds", ch.LegacyIndexKinds)...)
	}
	return errs
}

// validateKinds checks a list of index kinds: each a name, none twice.
func validateKinds(key string, kinds []string) []error {
	var errs []error
	for i, k := range kinds {
		switch {
		case !isName(k):
			errs = append(errs, fmt.Errorf("config: %s[%d]: %q is not a valid index kind (letters, digits, _ and -)", key, i, k))
		case slices.Index(kinds, k) < i:
			errs = append(errs, fmt.Errorf("config: %s[%d]: %q is listed twice", key, i, k))
		}
	}
	return errs
}

// isName reports whether s is a non-empty run of [A-Za-z0-9_-].
func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// isSHA256Hex reports whether s is 64 hex digits.
func isSHA256Hex(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32
}
