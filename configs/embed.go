// Package configs holds the configuration files shipped with chainhost: the
// embedded defaults (the one-node local network) and example configs.
package configs

import _ "embed"

//go:embed default.yaml
var defaultYAML string

// Default returns the embedded default configuration (YAML), a fresh copy on
// every call.
func Default() []byte { return []byte(defaultYAML) }
