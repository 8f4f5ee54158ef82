// Package config loads the host's configuration: the embedded defaults, a
// config file, CHAINHOST_* environment variables and command-line flags, in
// that order of precedence (DESIGN.md "Configuration").
package config

import (
	"time"

	"github.com/chainhost/chainhost/core/logging"
)

// Config is the effective host configuration. The koanf tags are the keys of
// config files, the environment (CHAINHOST_<KEY>) and flags (--<key>).
type Config struct {
	// NetworkID is the network this node belongs to (12345: the local network).
	NetworkID uint32 `koanf:"network-id"`

	// HTTPHost is the address the HTTP server listens on.
	HTTPHost string `koanf:"http-host"`
	// HTTPPort is the HTTP port; 0 picks a free port.
	HTTPPort int `koanf:"http-port"`
	// HTTPMaxBodySize is the largest request body accepted, in bytes.
	HTTPMaxBodySize int `koanf:"http-max-body-size"`
	// HTTPReadHeaderTimeout bounds reading a request's headers.
	HTTPReadHeaderTimeout time.Duration `koanf:"http-read-header-timeout"`
	// HTTPReadTimeout bounds reading a whole request, body included.
	HTTPReadTimeout time.Duration `koanf:"http-read-timeout"`
	// HTTPWriteTimeout bounds writing a response, from the end of its
	// request's headers; WebSocket connections are exempt once upgraded.
	HTTPWriteTimeout time.Duration `koanf:"http-write-timeout"`
	// HTTPIdleTimeout bounds how long a keep-alive connection waits for
	// its next request.
	HTTPIdleTimeout time.Duration `koanf:"http-idle-timeout"`
	// HTTPShutdownTimeout bounds in-flight requests when the node stops.
	HTTPShutdownTimeout time.Duration `koanf:"http-shutdown-timeout"`
	// HTTPTLSCertFile and HTTPTLSKeyFile, both set, serve HTTPS (PEM
	// files); both empty serve plain HTTP.
	HTTPTLSCertFile string `koanf:"http-tls-cert-file"`
	HTTPTLSKeyFile  string `koanf:"http-tls-key-file"`
	// HTTPCORSAllowedOrigins are the origins browsers may call the node
	// from ("*": any); empty sends no CORS headers.
	HTTPCORSAllowedOrigins []string `koanf:"http-cors-allowed-origins"`
	// HTTPMaxWebSocketConnections caps the WebSocket connections open at
	// once on each listener.
	HTTPMaxWebSocketConnections int `koanf:"http-max-websocket-connections"`
	// PluginRequestTimeout bounds a request to a plugin's handler, and a
	// plugin's call to a chain: a plugin that does not answer in time is
	// answered for with 504.
	PluginRequestTimeout time.Duration `koanf:"plugin-request-timeout"`
	// APIMaxBatchSize is the most requests in one JSON-RPC batch.
	APIMaxBatchSize int `koanf:"api-max-batch-size"`

	// DataDir holds the database and node state (~ expanded by Load).
	DataDir string `koanf:"data-dir"`
	// PluginDir holds the plugin binaries (resolved by Load when empty).
	PluginDir string `koanf:"plugin-dir"`
	// ProfileDir receives the admin API's profiles (resolved by Load when empty).
	ProfileDir string `koanf:"profile-dir"`

	// LogLevel is the level of the log files.
	LogLevel logging.Level `koanf:"log-level"`
	// LogDisplayLevel is the level of the log shown on the terminal.
	LogDisplayLevel logging.Level `koanf:"log-display-level"`

	// IndexEnabled turns the container index and its API on.
	IndexEnabled bool `koanf:"index-enabled"`
	// IndexAllowIncomplete allows an index with gaps (SPEC 7.2 rule 4).
	IndexAllowIncomplete bool `koanf:"index-allow-incomplete"`

	// APIAdminEnabled serves the node administration API.
	APIAdminEnabled bool `koanf:"api-admin-enabled"`
	// APIInfoEnabled serves the info API.
	APIInfoEnabled bool `koanf:"api-info-enabled"`
	// APIHealthEnabled serves the health API.
	APIHealthEnabled bool `koanf:"api-health-enabled"`
	// APIMetricsEnabled serves the Prometheus metrics exporter.
	APIMetricsEnabled bool `koanf:"api-metrics-enabled"`

	// PluginRestartBackoff is the first delay before restarting a dead plugin.
	PluginRestartBackoff time.Duration `koanf:"plugin-restart-backoff"`
	// PluginRestartMaxBackoff caps the delay between plugin restarts.
	PluginRestartMaxBackoff time.Duration `koanf:"plugin-restart-max-backoff"`

	// PluginSHA256 pins plugin binaries: binary name -> hex sha256.
	PluginSHA256 map[string]string `koanf:"plugin-sha256"`

	// Chains are the chains this node runs.
	Chains []Chain `koanf:"chains"`

	// Modules are the REST API modules this node runs.
	Modules []Module `koanf:"modules"`
}

// Chain is one chain: an instance of a VM plugin.
type Chain struct {
	// Alias is the chain's primary alias, also its logger name.
	Alias string `koanf:"alias"`
	// Aliases are further aliases of the chain.
	Aliases []string `koanf:"aliases,omitempty"`
	// VM names the VM plugin that runs the chain.
	VM string `koanf:"vm"`
	// Genesis is the inline genesis, handed to the VM as JSON.
	Genesis any `koanf:"genesis,omitempty"`
	// GenesisFile is the path of a JSON genesis file (exclusive with Genesis).
	GenesisFile string `koanf:"genesis-file,omitempty"`
	// Config is the chain config, handed to the VM as JSON.
	Config any `koanf:"config,omitempty"`
	// LegacyIndexKinds are read-only index kinds: the host serves what the
	// index holds of them at /ext/index/<alias>/<kind> and appends nothing
	// (like the X-Chain's "vtx" index after linearization, SPEC 9.3).
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
