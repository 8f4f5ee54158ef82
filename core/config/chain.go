package config

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/chainhost/chainhost/transport/httpserve"
)

// IsEnabled reports whether the chain runs (Enabled unset means true).
func (c Chain) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// GenesisJSON returns the genesis handed to the VM: the genesis file's
// content when genesis-file is set, else the inline genesis as JSON, and
// `{}` when neither is given.
func (c Chain) GenesisJSON() ([]byte, error) {
	if c.GenesisFile != "" {
		b, err := os.ReadFile(c.GenesisFile)
		if err != nil {
			return nil, fmt.Errorf("chain %s: read genesis: %w", c.Alias, err)
		}
		if !json.Valid(b) {
			return nil, fmt.Errorf("chain %s: genesis file %s is not valid JSON", c.Alias, c.GenesisFile)
		}
		return b, nil
	}
	b, err := valueJSON(c.Genesis)
	if err != nil {
		return nil, fmt.Errorf("chain %s: genesis: %w", c.Alias, err)
	}
	return b, nil
}

// ConfigJSON returns the chain config handed to the VM as JSON, `{}` when
// none is given.
func (c Chain) ConfigJSON() ([]byte, error) {
	b, err := valueJSON(c.Config)
	if err != nil {
		return nil, fmt.Errorf("chain %s: config: %w", c.Alias, err)
	}
	return b, nil
}

// IsEnabled reports whether the module runs (Enabled unset means true).
func (m Module) IsEnabled() bool { return m.Enabled == nil || *m.Enabled }

// PluginName is the plugin the module runs: Plugin, or Name when unset.
func (m Module) PluginName() string {
	if m.Plugin != "" {
		return m.Plugin
	}
	return m.Name
}

// ConfigJSON returns the module config handed to the plugin as JSON, `{}`
// when none is given.
func (m Module) ConfigJSON() ([]byte, error) {
	b, err := valueJSON(m.Config)
	if err != nil {
		return nil, fmt.Errorf("module %s: config: %w", m.Name, err)
	}
	return b, nil
}

// valueJSON marshals an inline config value, nil as `{}`.
func valueJSON(v any) ([]byte, error) {
	if v == nil {
		return []byte("{}"), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal json: %w", err)
	}
	return b, nil
}

// HTTPLimits are the HTTP limits of every listener of the node, the
// chains' own included.
func (c *Config) HTTPLimits() httpserve.Limits {
	return httpserve.Limits{
		ReadHeaderTimeout:  c.HTTPReadHeaderTimeout,
		ReadTimeout:        c.HTTPReadTimeout,
		WriteTimeout:       c.HTTPWriteTimeout,
		IdleTimeout:        c.HTTPIdleTimeout,
		MaxBodyBytes:       int64(c.HTTPMaxBodySize),
		TLSCertFile:        c.HTTPTLSCertFile,
		TLSKeyFile:         c.HTTPTLSKeyFile,
		CORSAllowedOrigins: c.HTTPCORSAllowedOrigins,
		MaxWebSockets:      c.HTTPMaxWebSocketConnections,
	}
}
