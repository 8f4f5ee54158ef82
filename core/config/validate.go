package config

import (
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/xvmapi"
	"github.com/chainhost/chainhost/core/exposure"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/loglevel"
	"github.com/chainhost/chainhost/transport/route"
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
	positive("http-read-timeout", c.HTTPReadTimeout)
	positive("http-write-timeout", c.HTTPWriteTimeout)
	positive("http-idle-timeout", c.HTTPIdleTimeout)
	positive("plugin-request-timeout", c.PluginRequestTimeout)
	if c.PluginRequestTimeout >= c.HTTPWriteTimeout {
		bad("plugin-request-timeout", "%s is not less than http-write-timeout (%s): the 504 would never reach the client", c.PluginRequestTimeout, c.HTTPWriteTimeout)
	}
	if (c.HTTPTLSCertFile == "") != (c.HTTPTLSKeyFile == "") {
		bad("http-tls-cert-file", "http-tls-cert-file and http-tls-key-file must be set together")
	}
	for i, o := range c.HTTPCORSAllowedOrigins {
		if o == "" {
			bad(fmt.Sprintf("http-cors-allowed-origins[%d]", i), "must not be empty")
		}
	}
	if c.HTTPMaxWebSocketConnections < 1 {
		bad("http-max-websocket-connections", "%d is less than 1", c.HTTPMaxWebSocketConnections)
	}
	if c.APIMaxBatchSize < 1 {
		bad("api-max-batch-size", "%d is less than 1", c.APIMaxBatchSize)
	}
	if c.DataDir == "" {
		bad("data-dir", "must not be empty")
	}
	validLevel := func(key string, l loglevel.Level) {
		if !l.Valid() {
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
	errs = append(errs, c.validateVMAliases()...)
	usedBy := map[string]string{logging.MainLogger: "the node's own logger"}
	errs = append(errs, c.validateChains(usedBy)...)
	errs = append(errs, c.validateModules(usedBy)...)
	errs = append(errs, c.validateListeners()...)
	errs = append(errs, c.validateUnsafeAPIs()...)
	return errors.Join(errs...)
}

// validateVMAliases checks that vm-aliases maps CB58 VM IDs to valid
// aliases, none given twice.
func (c *Config) validateVMAliases() []error {
	var errs []error
	aliasOf := map[string]string{}
	for _, vm := range slices.Sorted(maps.Keys(c.VMAliases)) {
		key := "vm-aliases." + vm
		if _, err := ids.FromString(vm); err != nil {
			errs = append(errs, fmt.Errorf("config: %s: %q is not a CB58 VM ID: %v", key, vm, err))
		}
		for _, a := range c.VMAliases[vm] {
			switch {
			case !isName(a):
				errs = append(errs, fmt.Errorf("config: %s: %q is not a valid alias (letters, digits, _ and -)", key, a))
			case aliasOf[a] != "":
				errs = append(errs, fmt.Errorf("config: %s: alias %q is already an alias of VM %s", key, a, aliasOf[a]))
			default:
				aliasOf[a] = vm
			}
		}
	}
	return errs
}

// validateUnsafeAPIs checks that each entry of http-allow-unsafe-apis is
// <chain alias>.<API>, names a chain of the config by its primary alias,
// and is listed once.
func (c *Config) validateUnsafeAPIs() []error {
	var errs []error
	for i, name := range c.HTTPAllowUnsafeAPIs {
		key := fmt.Sprintf("%s[%d]", exposure.Flag, i)
		alias, api, err := exposure.ParseName(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: %s: %w", key, err))
			continue
		}
		if primary := c.primaryAlias(alias); primary == "" {
			errs = append(errs, fmt.Errorf("config: %s: %q names no chain: no chain has the alias %q", key, name, alias))
		} else if primary != alias {
			errs = append(errs, fmt.Errorf("config: %s: %q names chain %s by a further alias; write %s", key, name, primary, exposure.Name(primary, api)))
		} else if slices.Index(c.HTTPAllowUnsafeAPIs, name) < i {
			errs = append(errs, fmt.Errorf("config: %s: %q is listed twice", key, name))
		}
	}
	return errs
}

// primaryAlias returns the primary alias of the chain that has alias, or
// "" when no chain has it.
func (c *Config) primaryAlias(alias string) string {
	for _, ch := range c.Chains {
		if ch.Alias == alias || slices.Contains(ch.Aliases, alias) {
			return ch.Alias
		}
	}
	return ""
}

// renamedVMs maps the names the X- and P-Chain VMs had before they took
// avalanchego's to those names, so that an old config gets told the new one.
var renamedVMs = map[string]string{"xvm": xvmapi.VMName, "pvm": pvmapi.VMName}

// validateChains checks each chain and that no alias names two chains or
// the node's own logger; usedBy collects the aliases, by the key that
// set them.
func (c *Config) validateChains(usedBy map[string]string) []error {
	var errs []error
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
	idBy := map[string]string{}
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
		switch renamed, ok := renamedVMs[ch.VM]; {
		case ch.VM == "":
			errs = append(errs, fmt.Errorf("config: %s.vm: required", at))
		case ok:
			errs = append(errs, fmt.Errorf("config: %s.vm: the VM %q is now named %q, avalanchego's name for it: write vm: %s", at, ch.VM, renamed, renamed))
		}
		if ch.ID != "" {
			if _, err := ids.FromString(ch.ID); err != nil {
				errs = append(errs, fmt.Errorf("config: %s.id: %q is not a CB58 chain ID: %v", at, ch.ID, err))
			} else if by, dup := idBy[ch.ID]; dup {
				errs = append(errs, fmt.Errorf("config: %s.id: %s is already the ID of %s", at, ch.ID, by))
			} else {
				idBy[ch.ID] = at
			}
		}
		if ch.Genesis != nil && ch.GenesisFile != "" {
			errs = append(errs, fmt.Errorf("config: %s: genesis and genesis-file are exclusive", at))
		}
		if ch.Config != nil && ch.ConfigFile != "" {
			errs = append(errs, fmt.Errorf("config: %s: config and config-file are exclusive", at))
		}
		if ch.Upgrade != nil && ch.UpgradeFile != "" {
			errs = append(errs, fmt.Errorf("config: %s: upgrade and upgrade-file are exclusive", at))
		}
		if ch.SubnetID != "" {
			if _, err := ids.FromString(ch.SubnetID); err != nil {
				errs = append(errs, fmt.Errorf("config: %s.subnet-id: %q is not a CB58 subnet ID: %v", at, ch.SubnetID, err))
			}
		}
		errs = append(errs, validateKinds(at+".legacy-index-kinds", ch.LegacyIndexKinds)...)
		if ch.Listen != "" {
			if err := checkListen(ch.Listen); err != nil {
				errs = append(errs, fmt.Errorf("config: %s.listen: %w", at, err))
			}
		}
	}
	return errs
}

// checkListen checks a listen value: a host:port address.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not a host:port address: %v", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: %q is not a valid port", addr, port)
	}
	return nil
}

// validateListeners checks that no two listeners of the node name one
// address: the main one, the modules' and the chains'. (Modules that name
// the same address share one listener.) Addresses that differ in writing
// but clash when bound stop start-up when the second is bound.
func (c *Config) validateListeners() []error {
	var errs []error
	usedBy := map[string]string{}
	if c.HTTPPort != 0 {
		usedBy[net.JoinHostPort(c.HTTPHost, strconv.Itoa(c.HTTPPort))] = "http-host and http-port"
	}
	for i, m := range c.Modules {
		if m.Listen == "" || !m.IsEnabled() || checkListen(m.Listen) != nil {
			continue
		}
		if by, ok := usedBy[m.Listen]; ok && !strings.HasPrefix(by, "modules[") {
			errs = append(errs, fmt.Errorf("config: modules[%d].listen: %s is already the address of %s", i, m.Listen, by))
			continue
		}
		usedBy[m.Listen] = fmt.Sprintf("modules[%d].listen", i)
	}
	for i, ch := range c.Chains {
		if ch.Listen == "" || !ch.IsEnabled() || checkListen(ch.Listen) != nil {
			continue
		}
		key := fmt.Sprintf("chains[%d].listen", i)
		if _, port, _ := net.SplitHostPort(ch.Listen); port == "0" {
			continue // a free port: never the same as another
		}
		if by, ok := usedBy[ch.Listen]; ok {
			errs = append(errs, fmt.Errorf("config: %s: %s is already the address of %s", key, ch.Listen, by))
			continue
		}
		usedBy[ch.Listen] = key
	}
	return errs
}

// validateModules checks each module: its name is unique among modules and
// chain aliases (they share the logger namespace), and its listen address
// and path prefixes are well formed.
func (c *Config) validateModules(usedBy map[string]string) []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config: %s: "+format, append([]any{key}, args...)...))
	}
	for i, m := range c.Modules {
		at := fmt.Sprintf("modules[%d]", i)
		switch {
		case m.Name == "":
			bad(at+".name", "required")
		case !isName(m.Name):
			bad(at+".name", "%q is not a valid module name (letters, digits, _ and -)", m.Name)
		case usedBy[m.Name] != "":
			bad(at+".name", "%q is already used by %s (modules and chains share the logger names)", m.Name, usedBy[m.Name])
		default:
			usedBy[m.Name] = at + ".name"
		}
		if m.Plugin != "" && !isPluginFile(m.Plugin) {
			bad(at+".plugin", "%q is not a plugin name (a file name in plugin-dir, no path)", m.Plugin)
		}
		if m.Listen != "" {
			if err := checkListen(m.Listen); err != nil {
				bad(at+".listen", "%v", err)
			}
		}
		for j, p := range m.Prefixes {
			key := fmt.Sprintf("%s.prefixes[%d]", at, j)
			if err := route.CheckPrefix(p); err != nil {
				bad(key, "%v", err)
			} else if slices.Index(m.Prefixes, p) < j {
				bad(key, "%q is listed twice", p)
			}
		}
	}
	return errs
}

// isPluginFile reports whether s can name a file of the plugin directory.
func isPluginFile(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`)
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
	_, err := decodeSHA256(s)
	return err == nil
}

// decodeSHA256 decodes 64 hex digits.
func decodeSHA256(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%q is not a sha256 (64 hex digits)", s)
	}
	return b, nil
}

// PluginPin returns the sha256 pin of the plugin binary at path (pinned by
// its file name in plugin-sha256), or nil when it has none.
func (c *Config) PluginPin(path string) ([]byte, error) {
	name := filepath.Base(path)
	hexPin, ok := c.PluginSHA256[name]
	if !ok {
		return nil, nil
	}
	pin, err := decodeSHA256(hexPin)
	if err != nil {
		return nil, fmt.Errorf("plugin-sha256.%s: %w", name, err)
	}
	return pin, nil
}
