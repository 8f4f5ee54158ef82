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
		b, err := readChainFile(c.Alias, "genesis", c.GenesisFile)
		if err != nil {
			return nil, err
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

// GenesisBytes returns the genesis handed to an avalanchego VM plugin:
// the genesis file's bytes unchanged when genesis-file is set, else the
// inline genesis as JSON, and `{}` when neither is given.
func (c Chain) GenesisBytes() ([]byte, error) {
	if c.GenesisFile == "" {
		return c.GenesisJSON()
	}
	return readChainFile(c.Alias, "genesis", c.GenesisFile)
}

// ConfigBytes returns the chain config handed to an avalanchego VM
// plugin: config-file's bytes unchanged, else the inline config as JSON,
// and nothing when neither is given, as avalanchego hands it.
func (c Chain) ConfigBytes() ([]byte, error) {
	return c.pluginBytes("config", c.Config, c.ConfigFile)
}

// UpgradeBytes returns the upgrade bytes handed to an avalanchego VM
// plugin, as ConfigBytes does the config.
func (c Chain) UpgradeBytes() ([]byte, error) {
	return c.pluginBytes("upgrade", c.Upgrade, c.UpgradeFile)
}

func (c Chain) pluginBytes(what string, inline any, file string) ([]byte, error) {
	switch {
	case file != "":
		return readChainFile(c.Alias, what, file)
	case inline != nil:
		b, err := valueJSON(inline)
		if err != nil {
			return nil, fmt.Errorf("chain %s: %s: %w", c.Alias, what, err)
		}
		return b, nil
	default:
		return nil, nil
	}
}

func readChainFile(alias, what, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("chain %s: read %s: %w", alias, what, err)
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
