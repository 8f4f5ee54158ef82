// Package config loads the host's configuration: the embedded defaults, a
// config file, CHAINHOST_* environment variables and command-line flags, in
// that order of precedence (README, "Configuration").
package config

import (
	"time"

	"github.com/chainhost/chainhost/sdk/loglevel"
)

// Config is the effective host configuration. The koanf tags are the keys of
// config files, the environment (CHAINHOST_<KEY>) and flags (--<key>).
type Config struct {
	// NetworkID: network ID; 12345 is the local network.
	NetworkID uint32 `koanf:"network-id"`

	// HTTPHost: address the HTTP server listens on.
	HTTPHost string `koanf:"http-host"`
	// HTTPPort: port the HTTP server listens on, 0 to 65535; 0 picks a free
	// port.
	HTTPPort int `koanf:"http-port"`
	// HTTPMaxBodySize: largest request body accepted, in bytes.
	HTTPMaxBodySize int `koanf:"http-max-body-size"`
	// HTTPReadHeaderTimeout: time allowed to read a request's headers.
	HTTPReadHeaderTimeout time.Duration `koanf:"http-read-header-timeout"`
	// HTTPReadTimeout: time allowed to read a whole request, body included.
	HTTPReadTimeout time.Duration `koanf:"http-read-timeout"`
	// HTTPWriteTimeout: time allowed to write a response (WebSocket connections
	// are exempt once upgraded). It runs from the end of the request's headers.
	HTTPWriteTimeout time.Duration `koanf:"http-write-timeout"`
	// HTTPIdleTimeout: time a keep-alive connection may wait for its next
	// request.
	HTTPIdleTimeout time.Duration `koanf:"http-idle-timeout"`
	// HTTPShutdownTimeout: time allowed for in-flight requests to finish when
	// the node stops.
	HTTPShutdownTimeout time.Duration `koanf:"http-shutdown-timeout"`
	// HTTPTLSCertFile: PEM certificate file; with http-tls-key-file set too, the
	// node serves HTTPS instead of HTTP.
	HTTPTLSCertFile string `koanf:"http-tls-cert-file"`
	// HTTPTLSKeyFile: PEM private key file of http-tls-cert-file.
	HTTPTLSKeyFile string `koanf:"http-tls-key-file"`
	// HTTPCORSAllowedOrigins: origins browsers may call the node from ("*" for
	// any); empty sends no CORS headers.
	HTTPCORSAllowedOrigins []string `koanf:"http-cors-allowed-origins"`
	// HTTPMaxWebSocketConnections: most WebSocket connections open at once on
	// each listener; more are refused with 503.
	HTTPMaxWebSocketConnections int `koanf:"http-max-websocket-connections"`
	// HTTPAllowUnsafeAPIs: unsafe APIs a chain may serve beyond loopback, each
	// named <chain alias>.<API> (C.dev). core/exposure decides.
	HTTPAllowUnsafeAPIs []string `koanf:"http-allow-unsafe-apis"`
	// PluginRequestTimeout: time a plugin has to answer a request (or a chain
	// call) before the caller gets 504; less than http-write-timeout.
	PluginRequestTimeout time.Duration `koanf:"plugin-request-timeout"`
	// APIMaxBatchSize: most requests in one JSON-RPC batch (at least 1; 40 on a
	// public node).
	APIMaxBatchSize int `koanf:"api-max-batch-size"`

	// DataDir: directory of the database and node state; a leading ~ is the home
	// directory. Load expands the ~.
	DataDir string `koanf:"data-dir"`
	// PluginDir: directory of the plugin binaries; empty means <dir of the
	// chainhost binary>/../plugins. Load resolves an empty value.
	PluginDir string `koanf:"plugin-dir"`
	// ProfileDir: directory the admin API writes profiles to; empty means
	// <data-dir>/profiles. Load resolves an empty value.
	ProfileDir string `koanf:"profile-dir"`

	// LogLevel: level of the log files: OFF, FATAL, ERROR, WARN, INFO, TRACE,
	// DEBUG or VERBO (any case).
	LogLevel loglevel.Level `koanf:"log-level"`
	// LogDisplayLevel: level of the log shown on the terminal (same names as
	// log-level).
	LogDisplayLevel loglevel.Level `koanf:"log-display-level"`

	// IndexEnabled: index every accepted container and serve the index API at
	// /ext/index.
	IndexEnabled bool `koanf:"index-enabled"`
	// IndexAllowIncomplete: allow starting with indexing off after a run with it
	// on (the index then misses what is accepted meanwhile). See docs/index.md,
	// "Indexing turned off and on".
	IndexAllowIncomplete bool `koanf:"index-allow-incomplete"`

	// APIAdminEnabled: serve the node administration API at /ext/admin (off by
	// default, never on a public node).
	APIAdminEnabled bool `koanf:"api-admin-enabled"`
	// APIInfoEnabled: serve the info API at /ext/info.
	APIInfoEnabled bool `koanf:"api-info-enabled"`
	// APIHealthEnabled: serve the health API at /ext/health.
	APIHealthEnabled bool `koanf:"api-health-enabled"`
	// APIMetricsEnabled: serve the Prometheus metrics exporter at /ext/metrics.
	APIMetricsEnabled bool `koanf:"api-metrics-enabled"`

	// PluginRestartBackoff: first delay before restarting a plugin that died; it
	// doubles after each failed restart.
	PluginRestartBackoff time.Duration `koanf:"plugin-restart-backoff"`
	// PluginRestartMaxBackoff: longest delay between plugin restarts.
	PluginRestartMaxBackoff time.Duration `koanf:"plugin-restart-max-backoff"`

	// PluginSHA256: sha256 pins of plugin binaries: binary name -> 64 hex
	// digits; a pinned plugin whose binary differs is refused.
	PluginSHA256 map[string]string `koanf:"plugin-sha256"`

	// VMAliases: aliases of avalanchego VM plugins (rpcchainvm): VM ID (CB58)
	// -> list of aliases, as avalanchego's VM aliases file.
	VMAliases map[string][]string `koanf:"vm-aliases"`

	// Chains: the chains this node runs, each an instance of a VM plugin.
	Chains []Chain `koanf:"chains"`

	// Modules: the REST API modules this node runs, each a module plugin in its
	// own process (docs/modules.md).
	Modules []Module `koanf:"modules"`
}

// Chain is one chain: an instance of a VM plugin.
type Chain struct {
	// Alias is the chain's primary alias, also its logger name.
	Alias string `koanf:"alias"`
	// Aliases are further aliases of the chain.
	Aliases []string `koanf:"aliases,omitempty"`
	// ID, when set, is the chain's ID (CB58), used instead of the one
	// derived from its VM, genesis and alias (docs/decisions.md, "Identity").
	ID string `koanf:"id,omitempty"`
	// VM names the VM plugin that runs the chain.
	VM string `koanf:"vm"`
	// Genesis is the inline genesis, handed to the VM as JSON.
	Genesis any `koanf:"genesis,omitempty"`
	// GenesisFile is the path of a genesis file (exclusive with Genesis):
	// JSON for chainhost's VMs, any bytes for an avalanchego VM plugin.
	GenesisFile string `koanf:"genesis-file,omitempty"`
	// Config is the chain config, handed to the VM as JSON.
	Config any `koanf:"config,omitempty"`
	// ConfigFile is the path of a chain config file handed to an
	// avalanchego VM plugin unchanged (exclusive with Config).
	ConfigFile string `koanf:"config-file,omitempty"`
	// Upgrade is the network upgrade overrides of an avalanchego VM
	// plugin, handed as JSON (exclusive with UpgradeFile).
	Upgrade any `koanf:"upgrade,omitempty"`
	// UpgradeFile is the path of its upgrade file, handed unchanged.
	UpgradeFile string `koanf:"upgrade-file,omitempty"`
	// SubnetID is the subnet an avalanchego VM plugin's chain runs on
	// (CB58); empty: the primary network.
	SubnetID string `koanf:"subnet-id,omitempty"`
	// LegacyIndexKinds are read-only index kinds: the host serves what the
	// index holds of them at /ext/index/<alias>/<kind> and appends nothing
	// (like the X-Chain's "vtx" index after linearization, docs/index.md "Legacy kinds").
	LegacyIndexKinds []string `koanf:"legacy-index-kinds,omitempty"`
	// Listen, when set, is a host:port the host binds for the chain alone
	// and hands to its plugin process, which serves the chain's handlers
	// there itself (docs/listeners.md); the main listener serves the chain
	// as well.
	Listen string `koanf:"listen,omitempty"`
	// Enabled says whether the chain runs; Load sets it (default true).
	Enabled *bool `koanf:"enabled"`
}

// Module is one REST API module: a module plugin, run as its own process,
// serving URL path prefixes (docs/modules.md).
type Module struct {
	// Name is the module's name, also its logger name; unique among modules
	// and chain aliases.
	Name string `koanf:"name"`
	// Plugin names the module plugin (its described name or its file name
	// in plugin-dir); default Name.
	Plugin string `koanf:"plugin,omitempty"`
	// Enabled says whether the module runs; Load sets it (default true).
	Enabled *bool `koanf:"enabled"`
	// Config is the module's configuration, handed to it as JSON.
	Config any `koanf:"config,omitempty"`
	// Listen, when set, is a host:port where the module gets a listener of
	// its own, instead of the node's main one.
	Listen string `koanf:"listen,omitempty"`
	// Prefixes are the path prefixes the module serves; default what its
	// plugin declares.
	Prefixes []string `koanf:"prefixes,omitempty"`
}
