package config

import (
	"slices"
	"strings"

	"github.com/chainhost/chainhost/sdk/loglevel"
	"github.com/spf13/pflag"
)

// flagConfig names the flag that selects the config file.
const flagConfig = "config"

// FlagSet returns a new set of the host's flags: --config and one flag per
// scalar key, named like the key and showing the embedded default. `chains`,
// `modules`, `plugin-sha256` and `http-cors-allowed-origins` are set in a
// config file or the environment only.
func FlagSet() *pflag.FlagSet {
	d, err := defaults()
	if err != nil {
		panic(err) // the embedded defaults are tested; this is a build defect
	}
	fs := pflag.NewFlagSet("chainhost", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.String(flagConfig, "", "config file (YAML, JSON or TOML, chosen by the extension); also CHAINHOST_CONFIG")
	fs.Uint32("network-id", d.NetworkID, "network ID (12345 is the local network)")
	fs.String("http-host", d.HTTPHost, "address the HTTP server listens on")
	fs.Int("http-port", d.HTTPPort, "HTTP port (0 picks a free port)")
	fs.Int("http-max-body-size", d.HTTPMaxBodySize, "largest request body accepted, in bytes")
	fs.Duration("http-read-header-timeout", d.HTTPReadHeaderTimeout, "time allowed to read a request's headers")
	fs.Duration("http-read-timeout", d.HTTPReadTimeout, "time allowed to read a whole request")
	fs.Duration("http-write-timeout", d.HTTPWriteTimeout, "time allowed to write a response")
	fs.Duration("http-idle-timeout", d.HTTPIdleTimeout, "time a keep-alive connection waits for its next request")
	fs.Duration("http-shutdown-timeout", d.HTTPShutdownTimeout, "time allowed for in-flight requests when the node stops")
	fs.String("http-tls-cert-file", d.HTTPTLSCertFile, "PEM certificate file; with http-tls-key-file, serve HTTPS")
	fs.String("http-tls-key-file", d.HTTPTLSKeyFile, "PEM private key file of http-tls-cert-file")
	fs.Int("http-max-websocket-connections", d.HTTPMaxWebSocketConnections, "most WebSocket connections open at once per listener")
	fs.Duration("plugin-request-timeout", d.PluginRequestTimeout, "time a plugin has to answer a request before the caller gets 504")
	fs.Int("api-max-batch-size", d.APIMaxBatchSize, "most requests in one JSON-RPC batch")
	fs.String("data-dir", d.DataDir, "directory of the database and node state")
	fs.String("plugin-dir", d.PluginDir, "directory of the plugin binaries (default <dir of chainhost>/../plugins)")
	fs.String("profile-dir", d.ProfileDir, "directory the admin API writes profiles to (default <data-dir>/profiles)")
	fs.Var(newLevelValue(d.LogLevel), "log-level", "level of the log files: "+levelList())
	fs.Var(newLevelValue(d.LogDisplayLevel), "log-display-level", "level of the log shown on the terminal")
	fs.Bool("index-enabled", d.IndexEnabled, "index accepted containers and serve the index API")
	fs.Bool("index-allow-incomplete", d.IndexAllowIncomplete, "allow an index with gaps")
	fs.Bool("api-admin-enabled", d.APIAdminEnabled, "serve the node administration API")
	fs.Bool("api-info-enabled", d.APIInfoEnabled, "serve the info API")
	fs.Bool("api-health-enabled", d.APIHealthEnabled, "serve the health API")
	fs.Bool("api-metrics-enabled", d.APIMetricsEnabled, "serve the Prometheus metrics exporter")
	fs.Duration("plugin-restart-backoff", d.PluginRestartBackoff, "first delay before restarting a plugin that died")
	fs.Duration("plugin-restart-max-backoff", d.PluginRestartMaxBackoff, "longest delay between plugin restarts")
	return fs
}

// levelList lists the log level names for help texts.
func levelList() string {
	names := loglevel.Names()
	slices.Reverse(names)
	return strings.Join(names, ", ")
}

// levelValue is a pflag.Value holding a log level.
type levelValue loglevel.Level

// newLevelValue returns a level flag value set to l.
func newLevelValue(l loglevel.Level) *levelValue {
	v := levelValue(l)
	return &v
}

// Set parses a level name.
func (v *levelValue) Set(s string) error {
	l, err := loglevel.Parse(s)
	if err != nil {
		return err // pflag names the flag and the argument
	}
	*v = levelValue(l)
	return nil
}

// String returns the level's name.
func (v *levelValue) String() string { return loglevel.Level(*v).String() }

// Type names the value kind in help output.
func (v *levelValue) Type() string { return "level" }
