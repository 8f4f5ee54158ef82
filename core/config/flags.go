package config

import (
	"github.com/chainhost/chainhost/sdk/loglevel"
	"github.com/spf13/pflag"
)

// flagConfig names the flag that selects the config file.
const flagConfig = "config"

// FlagSet returns a new set of the host's flags: --config and one flag per
// scalar key, named like the key, showing the embedded default and the
// key's description (descriptions), and http-allow-unsafe-apis, a list
// written a,b. `chains`, `modules`, `plugin-sha256` and
// `http-cors-allowed-origins` are set in a config file or the environment
// only.
func FlagSet() *pflag.FlagSet {
	d, err := defaults()
	if err != nil {
		panic(err) // the embedded defaults are tested; this is a build defect
	}
	desc := descriptions()
	fs := pflag.NewFlagSet("chainhost", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.String(flagConfig, "", "config file (YAML, JSON or TOML, chosen by the extension); also CHAINHOST_CONFIG")
	fs.Uint32("network-id", d.NetworkID, desc["network-id"])
	fs.String("http-host", d.HTTPHost, desc["http-host"])
	fs.Int("http-port", d.HTTPPort, desc["http-port"])
	fs.Int("http-max-body-size", d.HTTPMaxBodySize, desc["http-max-body-size"])
	fs.Duration("http-read-header-timeout", d.HTTPReadHeaderTimeout, desc["http-read-header-timeout"])
	fs.Duration("http-read-timeout", d.HTTPReadTimeout, desc["http-read-timeout"])
	fs.Duration("http-write-timeout", d.HTTPWriteTimeout, desc["http-write-timeout"])
	fs.Duration("http-idle-timeout", d.HTTPIdleTimeout, desc["http-idle-timeout"])
	fs.Duration("http-shutdown-timeout", d.HTTPShutdownTimeout, desc["http-shutdown-timeout"])
	fs.String("http-tls-cert-file", d.HTTPTLSCertFile, desc["http-tls-cert-file"])
	fs.String("http-tls-key-file", d.HTTPTLSKeyFile, desc["http-tls-key-file"])
	fs.Int("http-max-websocket-connections", d.HTTPMaxWebSocketConnections, desc["http-max-websocket-connections"])
	fs.StringSlice("http-allow-unsafe-apis", d.HTTPAllowUnsafeAPIs, desc["http-allow-unsafe-apis"])
	fs.Duration("plugin-request-timeout", d.PluginRequestTimeout, desc["plugin-request-timeout"])
	fs.Int("api-max-batch-size", d.APIMaxBatchSize, desc["api-max-batch-size"])
	fs.String("data-dir", d.DataDir, desc["data-dir"])
	fs.String("plugin-dir", d.PluginDir, desc["plugin-dir"])
	fs.String("profile-dir", d.ProfileDir, desc["profile-dir"])
	fs.Var(newLevelValue(d.LogLevel), "log-level", desc["log-level"])
	fs.Var(newLevelValue(d.LogDisplayLevel), "log-display-level", desc["log-display-level"])
	fs.Bool("index-enabled", d.IndexEnabled, desc["index-enabled"])
	fs.Bool("index-allow-incomplete", d.IndexAllowIncomplete, desc["index-allow-incomplete"])
	fs.Bool("api-admin-enabled", d.APIAdminEnabled, desc["api-admin-enabled"])
	fs.Bool("api-info-enabled", d.APIInfoEnabled, desc["api-info-enabled"])
	fs.Bool("api-health-enabled", d.APIHealthEnabled, desc["api-health-enabled"])
	fs.Bool("api-metrics-enabled", d.APIMetricsEnabled, desc["api-metrics-enabled"])
	fs.Duration("plugin-restart-backoff", d.PluginRestartBackoff, desc["plugin-restart-backoff"])
	fs.Duration("plugin-restart-max-backoff", d.PluginRestartMaxBackoff, desc["plugin-restart-max-backoff"])
	return fs
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
