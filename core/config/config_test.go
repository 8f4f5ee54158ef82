package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/loglevel"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

const pin = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// writeFile writes content to name in a fresh temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// homeEnv is an environment whose home directory is a fixed path.
var homeEnv = []string{"HOME=/home/op"}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(LoadOptions{Environ: homeEnv})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key       string
		got, want any
	}{
		{"network-id", c.NetworkID, uint32(12345)},
		{"http-host", c.HTTPHost, "127.0.0.1"},
		{"http-port", c.HTTPPort, 9650},
		{"http-max-body-size", c.HTTPMaxBodySize, 10 << 20},
		{"http-read-header-timeout", c.HTTPReadHeaderTimeout, 10 * time.Second},
		{"http-shutdown-timeout", c.HTTPShutdownTimeout, 10 * time.Second},
		{"api-max-batch-size", c.APIMaxBatchSize, 100},
		{"data-dir", c.DataDir, "/home/op/.chainhost"},
		{"plugin-dir", c.PluginDir, filepath.Join(filepath.Dir(exe), "..", "plugins")},
		{"profile-dir", c.ProfileDir, "/home/op/.chainhost/profiles"},
		{"log-level", c.LogLevel, loglevel.Info},
		{"log-display-level", c.LogDisplayLevel, loglevel.Info},
		{"index-enabled", c.IndexEnabled, true},
		{"index-allow-incomplete", c.IndexAllowIncomplete, false},
		{"api-admin-enabled", c.APIAdminEnabled, false},
		{"api-info-enabled", c.APIInfoEnabled, true},
		{"api-health-enabled", c.APIHealthEnabled, true},
		{"api-metrics-enabled", c.APIMetricsEnabled, true},
		{"plugin-restart-backoff", c.PluginRestartBackoff, 100 * time.Millisecond},
		{"plugin-restart-max-backoff", c.PluginRestartMaxBackoff, 5 * time.Second},
		{"plugin-sha256", len(c.PluginSHA256), 0},
		{"chains", len(c.Chains), 4},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.key, tt.got, tt.want)
		}
	}
	for _, ch := range c.Chains {
		if ch.Alias == "X" {
			if ch.VM != "avm" || ch.ID != "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed" || !ch.IsEnabled() || !slices.Equal(ch.LegacyIndexKinds, []string{"vtx"}) {
				t.Errorf("default X chain = %+v, want vm avm, avalanchego's local X-Chain ID, enabled, vtx legacy", ch)
			}
			continue
		}
		if ch.Alias == "P" {
			if ch.VM != "platform" || ch.ID != "11111111111111111111111111111111LpoYY" || !ch.IsEnabled() {
				t.Errorf("default P chain = %+v, want vm platform, avalanchego's P-Chain ID, enabled", ch)
			}
			continue
		}
		if ch.Alias == "C" {
			if ch.VM != "evm" || ch.ID != "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC" || !ch.IsEnabled() {
				t.Errorf("default C chain = %+v, want vm evm, avalanchego's local C-Chain ID, enabled", ch)
			}
			continue
		}
		if ch.Alias != "example" || ch.VM != "example" || !ch.IsEnabled() || ch.Enabled == nil {
			t.Errorf("default chain = %+v, want alias and vm example, enabled", ch)
		}
		if g, err := ch.GenesisJSON(); err != nil || string(g) != "{}" {
			t.Errorf("default chain genesis = %s, %v; want {}", g, err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string // name:content of a config file, "" for none
		env     []string
		args    []string
		wantErr []string // substrings of the error
	}{
		{name: "unknown top-level key", file: "c.yaml:htp-port: 1", wantErr: []string{`config: unknown key "htp-port"`}},
		{name: "unknown keys in a chain", file: "c.yaml:chains: [{alias: a, vm: b, xyz: 1, zz: 2}]",
			wantErr: []string{`config: unknown key "chains[0].xyz"`, `config: unknown key "chains[0].zz"`}},
		{name: "unknown key in the second chain", file: "c.json:" + `{"chains": [{"alias": "a", "vm": "b"}, {"alias": "c", "vm": "d", "genesis_file": "x"}]}`,
			wantErr: []string{`config: unknown key "chains[1].genesis_file"`}},
		{name: "unknown key from the environment", env: []string{"CHAINHOST_HTP_PORT=1"}, wantErr: []string{`config: unknown key "htp-port"`}},
		{name: "port out of range", file: "c.yaml:http-port: 70000", wantErr: []string{"config: http-port: 70000 is not a valid port"}},
		{name: "port out of range from a flag", args: []string{"--http-port", "-1"}, wantErr: []string{"config: http-port: -1 is not a valid port"}},
		{name: "port not a number", file: "c.yaml:http-port: abc", wantErr: []string{`config: http-port: cannot parse "abc" as int`}},
		{name: "port not a number from the environment", env: []string{"CHAINHOST_HTTP_PORT=abc"}, wantErr: []string{`config: http-port: cannot parse "abc" as int`}},
		{name: "port with a fraction", file: "c.yaml:http-port: 1.5", wantErr: []string{"config: http-port: 1.5 is not an integer"}},
		{name: "port as a list", file: "c.yaml:http-port: [1]", wantErr: []string{"config: http-port: expected int, got a list"}},
		{name: "unknown log level", file: "c.yaml:log-level: LOUD", wantErr: []string{`config: log-level: unknown log level "LOUD"`}},
		{name: "unknown log level from a flag", args: []string{"--log-display-level=LOUD"}, wantErr: []string{`"--log-display-level"`, `unknown log level "LOUD"`}},
		{name: "negative network ID", file: "c.yaml:network-id: -1", wantErr: []string{"config: network-id: -1 is out of range for uint32"}},
		{name: "network ID too large", file: "c.toml:network-id = 5000000000", wantErr: []string{"config: network-id: 5000000000 is out of range for uint32"}},
		{name: "network ID too large in JSON", file: `c.json:{"network-id": 5000000000}`, wantErr: []string{"config: network-id: 5000000000 is out of range for uint32"}},
		{name: "network ID too large from the environment", env: []string{"CHAINHOST_NETWORK_ID=5000000000"}, wantErr: []string{"config: network-id: 5000000000 is out of range for uint32"}},
		{name: "bad duration", env: []string{"CHAINHOST_HTTP_SHUTDOWN_TIMEOUT=5x"}, wantErr: []string{`config: http-shutdown-timeout: "5x" is not a duration`}},
		{name: "duration without unit", file: "c.yaml:plugin-restart-backoff: 100", wantErr: []string{"config: plugin-restart-backoff: 100 is not a duration"}},
		{name: "bad bool", env: []string{"CHAINHOST_INDEX_ENABLED=maybe"}, wantErr: []string{`config: index-enabled: cannot parse "maybe" as bool`}},
		{name: "batch size zero", args: []string{"--api-max-batch-size=0"}, wantErr: []string{"config: api-max-batch-size: 0 is less than 1"}},
		{name: "backoffs inverted", args: []string{"--plugin-restart-backoff=10s", "--plugin-restart-max-backoff=1s"}, wantErr: []string{"config: plugin-restart-max-backoff: 1s is less than plugin-restart-backoff (10s)"}},
		{name: "bad plugin pin", env: []string{"CHAINHOST_PLUGIN_SHA256__EVM=abc"}, wantErr: []string{`config: plugin-sha256.evm: "abc" is not a sha256`}},
		{name: "chain without alias and vm", file: "c.yaml:chains: [{genesis: {}}]", wantErr: []string{"config: chains[0].alias: required", "config: chains[0].vm: required"}},
		{name: "duplicate alias", file: "c.yaml:chains: [{alias: a, vm: v}, {alias: b, aliases: [a], vm: v}]",
			wantErr: []string{`config: chains[1].aliases[0]: alias "a" is already used by chains[0].alias`}},
		{name: "bad alias", file: "c.yaml:chains: [{alias: 'a b', vm: v}]", wantErr: []string{`config: chains[0].alias: "a b" is not a valid alias`}},
		{name: "genesis and genesis file", file: "c.yaml:chains: [{alias: a, vm: v, genesis: {}, genesis-file: g.json}]",
			wantErr: []string{"config: chains[0]: genesis and genesis-file are exclusive"}},
		{name: "chain ID not CB58", file: "c.yaml:chains: [{alias: a, vm: v, id: nope}]",
			wantErr: []string{`config: chains[0].id: "nope" is not a CB58 chain ID`}},
		{name: "two chains of one ID", file: "c.yaml:chains: [{alias: a, vm: v, id: 11111111111111111111111111111111LpoYY}, {alias: b, vm: v, id: 11111111111111111111111111111111LpoYY}]",
			wantErr: []string{`config: chains[1].id: 11111111111111111111111111111111LpoYY is already the ID of chains[0]`}},
		{name: "the X-Chain VM by its old name", file: "c.yaml:chains: [{alias: X, vm: xvm}]",
			wantErr: []string{`config: chains[0].vm: the VM "xvm" is now named "avm", avalanchego's name for it: write vm: avm`}},
		{name: "the P-Chain VM by its old name", file: "c.yaml:chains: [{alias: P, vm: pvm}]",
			wantErr: []string{`config: chains[0].vm: the VM "pvm" is now named "platform", avalanchego's name for it: write vm: platform`}},
		{name: "chains not a list of maps", file: "c.yaml:chains: [3]", wantErr: []string{"config: chains[0]: expected a map"}},
		{name: "module without a name", file: "c.yaml:modules: [{plugin: p}]", wantErr: []string{"config: modules[0].name: required"}},
		{name: "module named like a chain", file: "c.yaml:chains: [{alias: a, aliases: [b], vm: v}]\nmodules: [{name: b}]",
			wantErr: []string{`config: modules[0].name: "b" is already used by chains[0].aliases[0]`}},
		{name: "two modules of one name", file: "c.yaml:modules: [{name: m}, {name: m, enabled: false}]",
			wantErr: []string{`config: modules[1].name: "m" is already used by modules[0].name`}},
		{name: "chain aliased main", file: "c.yaml:chains: [{alias: main, vm: v}]", wantErr: []string{`config: chains[0].alias: alias "main" is already used by the node's own logger`}},
		{name: "bad module name", file: "c.yaml:modules: [{name: 'a/b'}]", wantErr: []string{`config: modules[0].name: "a/b" is not a valid module name`}},
		{name: "module plugin with a path", file: "c.yaml:modules: [{name: m, plugin: ../x}]", wantErr: []string{`config: modules[0].plugin: "../x" is not a plugin name`}},
		{name: "module listen without a port", file: "c.yaml:modules: [{name: m, listen: localhost}]", wantErr: []string{`config: modules[0].listen: "localhost" is not a host:port address`}},
		{name: "chain listen without a port", file: "c.yaml:chains: [{alias: a, vm: v, listen: localhost}]", wantErr: []string{`config: chains[0].listen: "localhost" is not a host:port address`}},
		{name: "chain listen on the main listener", file: "c.yaml:http-host: 127.0.0.1\nhttp-port: 9650\nchains: [{alias: a, vm: v, listen: '127.0.0.1:9650'}]", wantErr: []string{`config: chains[0].listen: 127.0.0.1:9650 is already the address of http-host and http-port`}},
		{name: "two chains on one listen", file: "c.yaml:chains: [{alias: a, vm: v, listen: '127.0.0.1:9654'}, {alias: b, vm: v, listen: '127.0.0.1:9654'}]", wantErr: []string{`config: chains[1].listen: 127.0.0.1:9654 is already the address of chains[0].listen`}},
		{name: "module listen port out of range", file: "c.yaml:modules: [{name: m, listen: ':70000'}]", wantErr: []string{`config: modules[0].listen: ":70000": "70000" is not a valid port`}},
		{name: "module prefixes", file: "c.yaml:modules: [{name: m, prefixes: [/v1/a, v1/b, /ext, /v1/a, /v1//c, /v1/]}]",
			wantErr: []string{"modules[0].prefixes[1]: path prefix \"v1/b\": must start with /", "modules[0].prefixes[2]: path prefix \"/ext\": /ext is the host's",
				`modules[0].prefixes[3]: "/v1/a" is listed twice`, "modules[0].prefixes[4]", "modules[0].prefixes[5]"}},
		{name: "unknown module key", file: "c.yaml:modules: [{name: m, colour: red}]", wantErr: []string{`config: unknown key "modules[0].colour"`}},
		{name: "module enabled not a bool", file: "c.yaml:modules: [{name: m, enabled: maybe}]", wantErr: []string{`config: modules[0].enabled: cannot parse "maybe" as bool`}},
		{name: "unsafe API not named by chain", args: []string{"--http-allow-unsafe-apis=dev"},
			wantErr: []string{`config: http-allow-unsafe-apis[0]: "dev" is not <chain alias>.<API>, like C.dev`}},
		{name: "unsafe API of an unknown chain", args: []string{"--http-allow-unsafe-apis=C.dev,Q.dev"},
			wantErr: []string{`config: http-allow-unsafe-apis[1]: "Q.dev" names no chain: no chain has the alias "Q"`}},
		{name: "unsafe API by a further alias", file: "c.yaml:chains: [{alias: C, aliases: [cchain], vm: evm}]\nhttp-allow-unsafe-apis: [cchain.dev]",
			wantErr: []string{`config: http-allow-unsafe-apis[0]: "cchain.dev" names chain C by a further alias; write C.dev`}},
		{name: "unsafe API twice", env: []string{"CHAINHOST_HTTP_ALLOW_UNSAFE_APIS=P.dev,P.dev"},
			wantErr: []string{`config: http-allow-unsafe-apis[1]: "P.dev" is listed twice`}},
		{name: "unknown file extension", file: "c.ini:http-port=1", wantErr: []string{`unknown config file extension ".ini"`}},
		{name: "file missing", args: []string{"--config", "/nonexistent/c.yaml"}, wantErr: []string{"config: load /nonexistent/c.yaml"}},
		{name: "file not YAML", file: "c.yaml:a: [", wantErr: []string{"config: load"}},
		{name: "YAML document not a mapping", file: "c.yaml:[1, 2]", wantErr: []string{"c.yaml: parse yaml: the document is a list, not a mapping"}},
		{name: "TOML integer beyond 64 bits", file: "c.toml:[[chains]]\nalias = \"a\"\nvm = \"v\"\ngenesis = {balance = 50000000000000000000000000}",
			wantErr: []string{"c.toml: parse toml: line 4, column 22:", `"50000000000000000000000000": value out of range`}},
		{name: "JSON with trailing data", file: `c.json:{"http-port": 1} 2`, wantErr: []string{"data after the top-level object"}},
		{name: "unknown flag", args: []string{"--htp-port=1"}, wantErr: []string{"config: unknown flag: --htp-port"}},
		{name: "flag for a file-only key", args: []string{"--chains=x"}, wantErr: []string{"config: unknown flag: --chains"}},
		{name: "positional argument", args: []string{"run"}, wantErr: []string{`config: unexpected argument "run"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.file != "" {
				name, content, _ := strings.Cut(tt.file, ":")
				args = append([]string{"--config", writeFile(t, name, content)}, args...)
			}
			c, err := Load(LoadOptions{Args: args, Environ: append(tt.env, homeEnv...)})
			if err == nil {
				t.Fatalf("Load succeeded (%+v), want an error", c)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestLoadHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		_, err := Load(LoadOptions{Args: []string{arg}})
		if !errors.Is(err, pflag.ErrHelp) {
			t.Errorf("Load(%s) error = %v, want pflag.ErrHelp", arg, err)
		}
	}
}

func TestLoadPrecedence(t *testing.T) {
	file := writeFile(t, "c.yaml", "http-port: 1111\nlog-level: warn\nindex-enabled: false\n")
	tests := []struct {
		name      string
		config    bool // pass --config
		env, args []string
		port      int
		level     loglevel.Level
		index     bool
	}{
		{name: "defaults", port: 9650, level: loglevel.Info, index: true},
		{name: "file over defaults", config: true, port: 1111, level: loglevel.Warn, index: false},
		{name: "file named by CHAINHOST_CONFIG", env: []string{"CHAINHOST_CONFIG=" + file}, port: 1111, level: loglevel.Warn, index: false},
		{name: "env over file", config: true, env: []string{"CHAINHOST_HTTP_PORT=2222", "CHAINHOST_LOG_LEVEL=debug", "CHAINHOST_INDEX_ENABLED=true"},
			port: 2222, level: loglevel.Debug, index: true},
		{name: "flags over env", config: true, env: []string{"CHAINHOST_HTTP_PORT=2222", "CHAINHOST_LOG_LEVEL=debug"},
			args: []string{"--http-port=3333", "--log-level", "VERBO", "--index-enabled"}, port: 3333, level: loglevel.Verbo, index: true},
		{name: "unset flags keep env and file", config: true, env: []string{"CHAINHOST_HTTP_PORT=2222"},
			args: []string{"--http-host=0.0.0.0"}, port: 2222, level: loglevel.Warn, index: false},
		{name: "flag set to its default still overrides", config: true, args: []string{"--http-port=9650", "--index-enabled=true"},
			port: 9650, level: loglevel.Warn, index: true},
		{name: "variables without the prefix are ignored", env: []string{"HTTP_PORT=1", "XCHAINHOST_HTTP_PORT=2"}, port: 9650, level: loglevel.Info, index: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.config {
				args = append([]string{"--config", file}, args...)
			}
			c, err := Load(LoadOptions{Args: args, Environ: append(tt.env, homeEnv...)})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.HTTPPort != tt.port || c.LogLevel != tt.level || c.IndexEnabled != tt.index {
				t.Errorf("port, log-level, index-enabled = %d, %s, %v; want %d, %s, %v",
					c.HTTPPort, c.LogLevel, c.IndexEnabled, tt.port, tt.level, tt.index)
			}
		})
	}
}

// TestLoadAllowUnsafeAPIs: http-allow-unsafe-apis is read as a list from
// a flag and the environment (a,b) and from a file, and is empty by
// default.
func TestLoadAllowUnsafeAPIs(t *testing.T) {
	file := writeFile(t, "c.yaml", "http-allow-unsafe-apis: [P.dev]\n")
	for _, tt := range []struct {
		name string
		opts LoadOptions
		want []string
	}{
		{"default", LoadOptions{}, nil},
		{"flag", LoadOptions{Args: []string{"--http-allow-unsafe-apis=C.dev,C.personal"}}, []string{"C.dev", "C.personal"}},
		{"flag twice", LoadOptions{Args: []string{"--http-allow-unsafe-apis=C.dev", "--http-allow-unsafe-apis=P.dev"}}, []string{"C.dev", "P.dev"}},
		{"environment", LoadOptions{Environ: []string{"CHAINHOST_HTTP_ALLOW_UNSAFE_APIS=C.personal,P.dev"}}, []string{"C.personal", "P.dev"}},
		{"file", LoadOptions{Args: []string{"--config", file}}, []string{"P.dev"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Environ = append(tt.opts.Environ, homeEnv...)
			c, err := Load(tt.opts)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !slices.Equal(c.HTTPAllowUnsafeAPIs, tt.want) {
				t.Errorf("http-allow-unsafe-apis = %#v, want %#v", c.HTTPAllowUnsafeAPIs, tt.want)
			}
		})
	}
}

func TestLoadEnvironment(t *testing.T) {
	env := []string{
		"CHAINHOST_NETWORK_ID=5",
		"CHAINHOST_HTTP_READ_HEADER_TIMEOUT=250ms",
		"CHAINHOST_API_ADMIN_ENABLED=true",
		"CHAINHOST_LOG_DISPLAY_LEVEL=off",
		"CHAINHOST_PLUGIN_SHA256__EVM=" + pin,
		"CHAINHOST_DATA_DIR=/srv/ch",
		"CHAINHOST_HTTP_CORS_ALLOWED_ORIGINS=https://a.example,https://b.example",
		"HOME=/home/op",
	}
	c, err := Load(LoadOptions{Environ: env})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	tests := []struct {
		key       string
		got, want any
	}{
		{"network-id", c.NetworkID, uint32(5)},
		{"http-read-header-timeout", c.HTTPReadHeaderTimeout, 250 * time.Millisecond},
		{"api-admin-enabled", c.APIAdminEnabled, true},
		{"log-display-level", c.LogDisplayLevel, loglevel.Off},
		{"plugin-sha256", c.PluginSHA256, map[string]string{"evm": pin}},
		{"data-dir", c.DataDir, "/srv/ch"},
		{"profile-dir", c.ProfileDir, "/srv/ch/profiles"},
		{"http-cors-allowed-origins", c.HTTPCORSAllowedOrigins, []string{"https://a.example", "https://b.example"}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.key, tt.got, tt.want)
		}
	}
}

func TestLoadFormats(t *testing.T) {
	want := map[string]string{
		"c.yaml": `
http-port: 9700
http-shutdown-timeout: 3s
api-info-enabled: false
log-level: error
plugin-sha256: {evm: "` + pin + `"}
chains:
  - alias: C
    aliases: [evm]
    vm: evm
    genesis: {chainId: 43112, alloc: {a: {balance: "0x10"}}}
    config: {pruning: false}
    enabled: false
`,
		"c.yml": `{"http-port": 9700, "http-shutdown-timeout": "3s", "api-info-enabled": false, "log-level": "error",
"plugin-sha256": {"evm": "` + pin + `"},
"chains": [{"alias": "C", "aliases": ["evm"], "vm": "evm", "genesis": {"chainId": 43112, "alloc": {"a": {"balance": "0x10"}}},
"config": {"pruning": false}, "enabled": false}]}`,
		"c.json": `{"http-port": 9700, "http-shutdown-timeout": "3s", "api-info-enabled": false, "log-level": "error",
"plugin-sha256": {"evm": "` + pin + `"},
"chains": [{"alias": "C", "aliases": ["evm"], "vm": "evm", "genesis": {"chainId": 43112, "alloc": {"a": {"balance": "0x10"}}},
"config": {"pruning": false}, "enabled": false}]}`,
		"c.toml": `
http-port = 9700
http-shutdown-timeout = "3s"
api-info-enabled = false
log-level = "error"
[plugin-sha256]
evm = "` + pin + `"
[[chains]]
alias = "C"
aliases = ["evm"]
vm = "evm"
enabled = false
[chains.genesis]
chainId = 43112
[chains.genesis.alloc.a]
balance = "0x10"
[chains.config]
pruning = false
`,
	}
	for name, content := range want {
		t.Run(name, func(t *testing.T) {
			c, err := Load(LoadOptions{Args: []string{"--config", writeFile(t, name, content)}, Environ: homeEnv})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.HTTPPort != 9700 || c.HTTPShutdownTimeout != 3*time.Second || c.APIInfoEnabled || c.LogLevel != loglevel.Error {
				t.Errorf("scalars = %d %s %v %s", c.HTTPPort, c.HTTPShutdownTimeout, c.APIInfoEnabled, c.LogLevel)
			}
			if c.PluginSHA256["evm"] != pin {
				t.Errorf("plugin-sha256 = %v", c.PluginSHA256)
			}
			if len(c.Chains) != 1 {
				t.Fatalf("chains = %+v, want one", c.Chains)
			}
			ch := c.Chains[0]
			if ch.Alias != "C" || ch.VM != "evm" || !reflect.DeepEqual(ch.Aliases, []string{"evm"}) || ch.IsEnabled() {
				t.Errorf("chain = %+v", ch)
			}
			g, err := ch.GenesisJSON()
			if err != nil || string(g) != `{"alloc":{"a":{"balance":"0x10"}},"chainId":43112}` {
				t.Errorf("GenesisJSON = %s, %v", g, err)
			}
			cfg, err := ch.ConfigJSON()
			if err != nil || string(cfg) != `{"pruning":false}` {
				t.Errorf("ConfigJSON = %s, %v", cfg, err)
			}
		})
	}
}

// TestLoadKeepsIntegersExact: every integer of a config file reaches the
// genesis and config JSON handed to the plugins digit for digit, whatever
// its size (TOML's are 64-bit), and floats stay floats.
func TestLoadKeepsIntegersExact(t *testing.T) {
	const (
		big    = "50000000000000000000000000"
		bigNeg = "-123456789012345678901234567890"
		i64    = "9223372036854775807"
		u64    = "18446744073709551615"
	)
	tests := []struct {
		file                  string
		genesis, conf, module string
	}{
		{file: "c.yaml:" + `
chains:
  - alias: a
    vm: v
    genesis: {alloc: {k: {balance: ` + big + `}}, neg: ` + bigNeg + `, sep: 50_000_000_000_000_000_000_000_000, u64: ` + u64 + `, f: 1.5, s: "` + big + `"}
    config: {cap: ` + big + `, list: [` + big + `, 1]}
modules:
  - name: m
    config: {limit: ` + big + `}
`,
			genesis: `{"alloc":{"k":{"balance":` + big + `}},"f":1.5,"neg":` + bigNeg + `,"s":"` + big + `","sep":` + big + `,"u64":` + u64 + `}`,
			conf:    `{"cap":` + big + `,"list":[` + big + `,1]}`,
			module:  `{"limit":` + big + `}`},
		{file: "c.json:" + `{"chains": [{"alias": "a", "vm": "v",
  "genesis": {"alloc": {"k": {"balance": ` + big + `}}, "neg": ` + bigNeg + `, "u64": ` + u64 + `, "f": 1.5, "s": "` + big + `"},
  "config": {"cap": ` + big + `, "list": [` + big + `, 1]}}],
 "modules": [{"name": "m", "config": {"limit": ` + big + `}}]}`,
			genesis: `{"alloc":{"k":{"balance":` + big + `}},"f":1.5,"neg":` + bigNeg + `,"s":"` + big + `","u64":` + u64 + `}`,
			conf:    `{"cap":` + big + `,"list":[` + big + `,1]}`,
			module:  `{"limit":` + big + `}`},
		{file: "c.toml:" + `
[[chains]]
alias = "a"
vm = "v"
[chains.genesis]
max = ` + i64 + `
min = -9223372036854775808
f = 1.5
s = "` + big + `"
[chains.config]
cap = ` + i64 + `
[[modules]]
name = "m"
[modules.config]
limit = ` + i64 + `
`,
			genesis: `{"f":1.5,"max":` + i64 + `,"min":-9223372036854775808,"s":"` + big + `"}`,
			conf:    `{"cap":` + i64 + `}`,
			module:  `{"limit":` + i64 + `}`},
	}
	for _, tt := range tests {
		name, content, _ := strings.Cut(tt.file, ":")
		t.Run(name, func(t *testing.T) {
			c, err := Load(LoadOptions{Args: []string{"--config", writeFile(t, name, content)}, Environ: homeEnv})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if g, err := c.Chains[0].GenesisJSON(); err != nil || string(g) != tt.genesis {
				t.Errorf("GenesisJSON = %s, %v\nwant %s", g, err, tt.genesis)
			}
			if j, err := c.Chains[0].ConfigJSON(); err != nil || string(j) != tt.conf {
				t.Errorf("chain ConfigJSON = %s, %v\nwant %s", j, err, tt.conf)
			}
			if j, err := c.Modules[0].ConfigJSON(); err != nil || string(j) != tt.module {
				t.Errorf("module ConfigJSON = %s, %v\nwant %s", j, err, tt.module)
			}
		})
	}
}

// TestYAMLParser: the config's YAML parser reads a document as yaml.v3 does
// (anchors, merge keys, nulls, timestamps as strings, octal and hex), except
// integers beyond 64 bits, which it keeps exact.
func TestYAMLParser(t *testing.T) {
	doc := `
base: &base {a: 1, b: [x, 2.5, null, true, [null]]}
other: &other {b: 3, c: 0x10}
merged: {<<: [*base, *other], a: 7}
alias: *base
date: 2024-01-02
octal: 0o17
neg: -5
u64: 18446744073709551615
empty:
"1": one
`
	got, err := yamlParser{}.Unmarshal([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := yaml.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("yamlParser = %#v\nyaml.v3    = %#v", got, want)
	}

	got, err = yamlParser{}.Unmarshal([]byte("big: 50000000000000000000000000\nfloat: 5e25\ntagged: !!float 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"big": json.Number("50000000000000000000000000"), "float": 5e25, "tagged": 5.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("yamlParser = %#v, want %#v", got, want)
	}
}

func TestLoadExpandsHome(t *testing.T) {
	tests := []struct {
		name                   string
		env, args              []string
		data, profile, genesis string
	}{
		{name: "default data dir", data: "/home/op/.chainhost", profile: "/home/op/.chainhost/profiles"},
		{name: "flag", args: []string{"--data-dir=~/d", "--profile-dir=~"}, data: "/home/op/d", profile: "/home/op"},
		{name: "env", env: []string{"CHAINHOST_DATA_DIR=~/e"}, data: "/home/op/e", profile: "/home/op/e/profiles"},
		{name: "only a leading tilde", args: []string{"--data-dir=/x/~/d"}, data: "/x/~/d", profile: "/x/~/d/profiles"},
		{name: "not another user's home", args: []string{"--data-dir=~bob/d"}, data: "~bob/d", profile: "~bob/d/profiles"},
		{name: "genesis file", args: []string{"--config", "FILE"}, data: "/home/op/.chainhost", profile: "/home/op/.chainhost/profiles", genesis: "/home/op/g.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := slicesReplace(tt.args, "FILE", writeFile(t, "c.yaml", "chains: [{alias: a, vm: v, genesis-file: ~/g.json}]"))
			c, err := Load(LoadOptions{Args: args, Environ: append(tt.env, homeEnv...)})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.DataDir != tt.data || c.ProfileDir != tt.profile {
				t.Errorf("data-dir, profile-dir = %s, %s; want %s, %s", c.DataDir, c.ProfileDir, tt.data, tt.profile)
			}
			if tt.genesis != "" && c.Chains[0].GenesisFile != tt.genesis {
				t.Errorf("genesis-file = %s, want %s", c.Chains[0].GenesisFile, tt.genesis)
			}
		})
	}
}

// slicesReplace returns s with every from replaced by to.
func slicesReplace(s []string, from, to string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		if v == from {
			v = to
		}
		out[i] = v
	}
	return out
}

func TestYAMLRoundTrip(t *testing.T) {
	tests := []struct {
		name, file string
		args       []string
	}{
		{name: "defaults", file: ""},
		{name: "custom", file: `
http-host: "0.0.0.0"
http-port: 0
log-display-level: verbo
plugin-sha256: {evm: "` + pin + `", "x.y": "` + strings.ToUpper(pin) + `"}
chains:
  - alias: C
    aliases: [evm, "123"]
    vm: evm
    genesis: {chainId: 43112, "true": yes, list: [1, "2", {a: null}], big: 18446744073709551615, huge: 50000000000000000000000000}
    config: {pruning: false, note: "10s"}
  - alias: X
    vm: avm
    genesis-file: /tmp/x.json
    enabled: false
  - alias: P
    vm: platform
    aliases: []
modules:
  - name: data
    plugin: dataapi
    config: {rate-limit: {anonymous: {per-second: 2.5, burst: 5}}}
    listen: "127.0.0.1:9700"
    prefixes: [/v1/chains, /v1/address]
  - name: exampleapi
    enabled: false
`, args: []string{"--http-read-header-timeout=1h2m3.5s", "--network-id=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.file != "" {
				args = append([]string{"--config", writeFile(t, "c.yaml", tt.file)}, args...)
			}
			c, err := Load(LoadOptions{Args: args, Environ: homeEnv})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			out, err := c.YAML()
			if err != nil {
				t.Fatalf("YAML: %v", err)
			}
			again, err := Load(LoadOptions{Args: []string{"--config", writeFile(t, "out.yaml", string(out))}})
			if err != nil {
				t.Fatalf("Load of YAML output: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(c, again) {
				t.Errorf("round trip differs:\nfirst  %#v\nsecond %#v\nyaml:\n%s", c, again, out)
			}
		})
	}
}

func TestModuleDefaults(t *testing.T) {
	c, err := Load(LoadOptions{Args: []string{"--config", writeFile(t, "c.yaml",
		"modules: [{name: a}, {name: b, plugin: exampleapi, enabled: false, config: {x: [1]}}]\n")}, Environ: homeEnv})
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Modules[0], c.Modules[1]
	if !a.IsEnabled() || a.PluginName() != "a" || b.IsEnabled() || b.PluginName() != "exampleapi" {
		t.Errorf("modules = %+v, %+v", a, b)
	}
	if j, err := a.ConfigJSON(); err != nil || string(j) != "{}" {
		t.Errorf("ConfigJSON of a = %s, %v", j, err)
	}
	if j, err := b.ConfigJSON(); err != nil || string(j) != `{"x":[1]}` {
		t.Errorf("ConfigJSON of b = %s, %v", j, err)
	}
}

func TestChainJSON(t *testing.T) {
	genesisFile := writeFile(t, "g.json", `{"a": 1}`)
	badFile := writeFile(t, "bad.json", `{"a": `)
	tests := []struct {
		name          string
		chain         Chain
		genesis, conf string // "" wants an error
	}{
		{name: "nothing given", chain: Chain{Alias: "a"}, genesis: "{}", conf: "{}"},
		{name: "inline", chain: Chain{Alias: "a", Genesis: map[string]any{"x": []any{1, "y"}}, Config: map[string]any{"k": true}},
			genesis: `{"x":[1,"y"]}`, conf: `{"k":true}`},
		{name: "genesis file", chain: Chain{Alias: "a", GenesisFile: genesisFile}, genesis: `{"a": 1}`, conf: "{}"},
		{name: "genesis file not JSON", chain: Chain{Alias: "a", GenesisFile: badFile}, conf: "{}"},
		{name: "genesis file missing", chain: Chain{Alias: "a", GenesisFile: filepath.Join(t.TempDir(), "none.json")}, conf: "{}"},
		{name: "not marshalable", chain: Chain{Alias: "a", Genesis: map[string]any{"f": func() {}}, Config: make(chan int)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := tt.chain.GenesisJSON()
			if tt.genesis == "" {
				if err == nil || !strings.Contains(err.Error(), "chain a") {
					t.Errorf("GenesisJSON = %s, %v; want an error naming the chain", g, err)
				}
			} else if err != nil || string(g) != tt.genesis {
				t.Errorf("GenesisJSON = %s, %v; want %s", g, err, tt.genesis)
			}
			c, err := tt.chain.ConfigJSON()
			if tt.conf == "" {
				if err == nil {
					t.Errorf("ConfigJSON = %s, want an error", c)
				}
			} else if err != nil || string(c) != tt.conf {
				t.Errorf("ConfigJSON = %s, %v; want %s", c, err, tt.conf)
			}
		})
	}
}

func TestFlagSet(t *testing.T) {
	fs := FlagSet()
	var want []string
	typ := reflect.TypeFor[Config]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch key := f.Tag.Get("koanf"); {
		case key == "http-allow-unsafe-apis": // a list with a flag: a,b
		case f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Map:
			if fs.Lookup(f.Tag.Get("koanf")) != nil {
				t.Errorf("flag --%s exists; want it set by file or environment only", f.Tag.Get("koanf"))
			}
			continue
		}
		want = append(want, f.Tag.Get("koanf"))
	}
	want = append(want, "config")
	var got []string
	fs.VisitAll(func(f *pflag.Flag) { got = append(got, f.Name) })
	for _, name := range want {
		if fs.Lookup(name) == nil {
			t.Errorf("no flag --%s", name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("flags %v, want %v", got, want)
	}
	defaults := []struct{ flag, want string }{
		{"network-id", "12345"},
		{"http-port", "9650"},
		{"http-read-header-timeout", "10s"},
		{"data-dir", "~/.chainhost"},
		{"log-level", "INFO"},
		{"index-enabled", "true"},
		{"api-admin-enabled", "false"},
		{"plugin-restart-backoff", "100ms"},
	}
	for _, tt := range defaults {
		if f := fs.Lookup(tt.flag); f == nil || f.DefValue != tt.want {
			t.Errorf("--%s default = %v, want %s", tt.flag, f, tt.want)
		}
	}
}

// moduleOn reports whether c runs the module called name.
func moduleOn(c *Config, name string) bool {
	for _, m := range c.Modules {
		if m.Name == name {
			return m.IsEnabled()
		}
	}
	return false
}

func TestExampleConfigs(t *testing.T) {
	tests := []struct {
		file  string
		check func(*Config) bool
	}{
		{"public-node.yaml", func(c *Config) bool {
			return !c.APIAdminEnabled && c.APIMaxBatchSize == 40 &&
				moduleOn(c, "data") && moduleOn(c, "metrics") && !moduleOn(c, "explorer")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := Load(LoadOptions{Args: []string{"--config", filepath.Join("..", "..", "configs", "examples", tt.file)}, Environ: homeEnv})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !tt.check(c) {
				t.Errorf("config %+v does not match the example", c)
			}
		})
	}
}

// TestPublicNodeExample: configs/examples/public-node.yaml runs C, X and P
// with the genesis of the embedded defaults (so the same chain IDs), with
// every API unsafe in public, debug_ and testing_ off on each, and the data
// and metrics APIs with an anonymous rate limit that admits callers
// without a key.
func TestPublicNodeExample(t *testing.T) {
	c, err := Load(LoadOptions{Args: []string{"--config", filepath.Join("..", "..", "configs", "examples", "public-node.yaml")}, Environ: homeEnv})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	d, err := Load(LoadOptions{Environ: homeEnv})
	if err != nil {
		t.Fatalf("Load defaults: %v", err)
	}
	var aliases []string
	for _, ch := range c.Chains {
		aliases = append(aliases, ch.Alias)
		var local *Chain
		for i := range d.Chains {
			if d.Chains[i].Alias == ch.Alias {
				local = &d.Chains[i]
			}
		}
		if local == nil {
			t.Errorf("chain %s is not a chain of the defaults", ch.Alias)
			continue
		}
		got, err := ch.GenesisJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := local.GenesisJSON()
		if err != nil {
			t.Fatal(err)
		}
		if ch.VM != local.VM || ch.ID != local.ID || string(got) != string(want) {
			t.Errorf("chain %s: vm %s, id %q, genesis %s; want the defaults' vm %s, id %q, genesis %s", ch.Alias, ch.VM, ch.ID, got, local.VM, local.ID, want)
		}
		cfg, _ := ch.Config.(map[string]any)
		for _, key := range []string{"dev-api-enabled", "personal-api-enabled", "debug-api-enabled", "testing-api-enabled"} {
			if on, set := cfg[key]; (set || ch.VM == "evm") && on != false {
				t.Errorf("chain %s: %s = %v, want false", ch.Alias, key, on)
			}
		}
	}
	if fmt.Sprint(aliases) != "[C X P]" {
		t.Errorf("chains %v, want [C X P]", aliases)
	}
	for _, m := range c.Modules {
		if !m.IsEnabled() {
			continue
		}
		cfg, _ := m.Config.(map[string]any)
		limit, _ := cfg["rate-limit"].(map[string]any)
		anon, _ := limit["anonymous"].(map[string]any)
		if anon["per-second"] == nil || limit["require-key"] != false {
			t.Errorf("module %s: rate-limit %v, want an anonymous limit and require-key false", m.Name, limit)
		}
	}
}

func TestValidate(t *testing.T) {
	valid := func() *Config {
		c, err := Load(LoadOptions{Environ: homeEnv})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		return c
	}
	tests := []struct {
		name    string
		change  func(*Config)
		wantErr string // "" for valid
	}{
		{name: "defaults", change: func(*Config) {}},
		{name: "port zero", change: func(c *Config) { c.HTTPPort = 0 }},
		{name: "port 65535", change: func(c *Config) { c.HTTPPort = 65535 }},
		{name: "port 65536", change: func(c *Config) { c.HTTPPort = 65536 }, wantErr: "config: http-port: 65536 is not a valid port"},
		{name: "body size", change: func(c *Config) { c.HTTPMaxBodySize = 0 }, wantErr: "config: http-max-body-size: 0 is not a positive size"},
		{name: "header timeout", change: func(c *Config) { c.HTTPReadHeaderTimeout = 0 }, wantErr: "config: http-read-header-timeout: 0s is not a positive duration"},
		{name: "empty data dir", change: func(c *Config) { c.DataDir = "" }, wantErr: "config: data-dir: must not be empty"},
		{name: "level out of range", change: func(c *Config) { c.LogLevel = 99 }, wantErr: "config: log-level: Level(99) is not a log level"},
		{name: "empty plugin name", change: func(c *Config) { c.PluginSHA256 = map[string]string{"": pin} }, wantErr: "config: plugin-sha256: empty plugin name"},
		{name: "upper-case pin", change: func(c *Config) { c.PluginSHA256 = map[string]string{"evm": strings.ToUpper(pin)} }},
		{name: "short pin", change: func(c *Config) { c.PluginSHA256 = map[string]string{"evm": pin[:62]} }, wantErr: "config: plugin-sha256.evm"},
		{name: "no chains", change: func(c *Config) { c.Chains = nil }},
		{name: "vm aliases", change: func(c *Config) {
			c.VMAliases = map[string][]string{"srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy": {"subnetevm", "sevm"}}
		}},
		{name: "vm alias of no VM ID", change: func(c *Config) { c.VMAliases = map[string][]string{"subnetevm": {"x"}} },
			wantErr: `config: vm-aliases.subnetevm: "subnetevm" is not a CB58 VM ID`},
		{name: "vm alias given twice", change: func(c *Config) {
			c.VMAliases = map[string][]string{
				"srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy": {"vm"},
				"v3m4wPxaHpvGr8qfMeyK6PRW3idZrPHmYcMTt7oXdK47yurVH": {"vm"},
			}
		}, wantErr: `config: vm-aliases.v3m4wPxaHpvGr8qfMeyK6PRW3idZrPHmYcMTt7oXdK47yurVH: alias "vm" is already an alias of VM srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy`},
		{name: "vm alias not a name", change: func(c *Config) {
			c.VMAliases = map[string][]string{"srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy": {"a/b"}}
		}, wantErr: `"a/b" is not a valid alias`},
		{name: "config and config-file", change: func(c *Config) { c.Chains[0].Config, c.Chains[0].ConfigFile = map[string]any{}, "c.json" },
			wantErr: "config: chains[0]: config and config-file are exclusive"},
		{name: "upgrade and upgrade-file", change: func(c *Config) { c.Chains[0].Upgrade, c.Chains[0].UpgradeFile = map[string]any{}, "u.json" },
			wantErr: "config: chains[0]: upgrade and upgrade-file are exclusive"},
		{name: "subnet-id not CB58", change: func(c *Config) { c.Chains[0].SubnetID = "primary" },
			wantErr: `config: chains[0].subnet-id: "primary" is not a CB58 subnet ID`},
		{name: "zero read timeout", change: func(c *Config) { c.HTTPReadTimeout = 0 }, wantErr: "config: http-read-timeout: 0s is not a positive duration"},
		{name: "zero idle timeout", change: func(c *Config) { c.HTTPIdleTimeout = 0 }, wantErr: "config: http-idle-timeout: 0s is not a positive duration"},
		{name: "plugin timeout over the write timeout", change: func(c *Config) { c.PluginRequestTimeout = 2 * time.Minute },
			wantErr: "config: plugin-request-timeout: 2m0s is not less than http-write-timeout (1m0s): the 504 would never reach the client"},
		{name: "cert without key", change: func(c *Config) { c.HTTPTLSCertFile = "cert.pem" },
			wantErr: "config: http-tls-cert-file: http-tls-cert-file and http-tls-key-file must be set together"},
		{name: "cert and key", change: func(c *Config) { c.HTTPTLSCertFile, c.HTTPTLSKeyFile = "cert.pem", "key.pem" }},
		{name: "empty origin", change: func(c *Config) { c.HTTPCORSAllowedOrigins = []string{"https://a.example", ""} },
			wantErr: "config: http-cors-allowed-origins[1]: must not be empty"},
		{name: "no websocket connection", change: func(c *Config) { c.HTTPMaxWebSocketConnections = 0 },
			wantErr: "config: http-max-websocket-connections: 0 is less than 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.change(c)
			err := c.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestPluginBytes: an avalanchego VM plugin gets its genesis, config and
// upgrade files' bytes unchanged (binary too), inline values as JSON, and
// no config or upgrade bytes when none is given, as avalanchego passes
// them.
func TestPluginBytes(t *testing.T) {
	dir := t.TempDir()
	bin := []byte{0x00, 0x01, 0xff, '{'}
	path := filepath.Join(dir, "genesis.bin")
	if err := os.WriteFile(path, bin, 0o600); err != nil {
		t.Fatal(err)
	}
	c := Chain{Alias: "x", GenesisFile: path, ConfigFile: path, Upgrade: map[string]any{"a": 1}}
	for name, get := range map[string]func() ([]byte, error){"genesis": c.GenesisBytes, "config": c.ConfigBytes} {
		if b, err := get(); err != nil || !bytes.Equal(b, bin) {
			t.Errorf("%s bytes = %x, %v; want the file's %x", name, b, err, bin)
		}
	}
	if b, err := c.UpgradeBytes(); err != nil || string(b) != `{"a":1}` {
		t.Errorf("upgrade bytes = %s, %v; want the inline value as JSON", b, err)
	}
	if _, err := c.GenesisJSON(); err == nil {
		t.Error("GenesisJSON of a binary genesis file: want an error, chainhost's VMs take JSON")
	}
	none := Chain{Alias: "y"}
	if b, err := none.ConfigBytes(); err != nil || b != nil {
		t.Errorf("config bytes of a chain without config = %q, %v; want none", b, err)
	}
	if _, err := (Chain{Alias: "z", GenesisFile: filepath.Join(dir, "missing")}).GenesisBytes(); err == nil || !strings.Contains(err.Error(), "chain z: read genesis") {
		t.Errorf("missing genesis file: %v, want an error naming the chain", err)
	}
}
