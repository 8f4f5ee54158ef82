package config

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

// envPrefix starts the name of every environment variable Load reads.
const envPrefix = "CHAINHOST_"

// envConfig names the config file when --config is not given.
const envConfig = envPrefix + "CONFIG"

// LoadOptions are the inputs of Load.
type LoadOptions struct {
	// Args are the command-line arguments after the subcommand: flags only.
	Args []string
	// Environ is the environment in os.Environ form; nil reads none. Its
	// HOME expands a leading ~ (the process's home directory when absent).
	Environ []string
}

// Load builds the effective configuration from the embedded defaults, the
// config file (--config or CHAINHOST_CONFIG), CHAINHOST_* variables and the
// flags the user set, each layer overriding the ones before. It resolves the
// directories and validates the result. With -h or --help it returns an
// error wrapping pflag.ErrHelp; the caller prints FlagSet's usage.
func Load(opts LoadOptions) (*Config, error) {
	fs := FlagSet()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(opts.Args); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("config: unexpected argument %q (only flags are accepted)", fs.Arg(0))
	}

	k, err := loadDefaults()
	if err != nil {
		return nil, err
	}

	path, _ := fs.GetString(flagConfig)
	if path == "" {
		path = lookupEnv(opts.Environ, envConfig)
	}
	if path != "" {
		if err := loadFile(k, path); err != nil {
			return nil, err
		}
	}

	environ := opts.Environ
	envProvider := env.Provider(".", env.Opt{
		Prefix:        envPrefix,
		TransformFunc: envKey,
		EnvironFunc:   func() []string { return environ },
	})
	if err := k.Load(envProvider, nil); err != nil {
		return nil, fmt.Errorf("config: environment: %w", err)
	}

	// With k given, posflag merges only the flags the user set: every key
	// has a value from the defaults already.
	flags := posflag.ProviderWithFlag(fs, ".", k, func(f *pflag.Flag) (string, any) {
		if f.Name == flagConfig {
			return "", nil
		}
		return f.Name, posflag.FlagVal(fs, f)
	})
	if err := k.Load(flags, nil); err != nil {
		return nil, fmt.Errorf("config: flags: %w", err)
	}

	c, err := decode(k)
	if err != nil {
		return nil, err
	}
	if err := c.resolve(opts.Environ); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// loadFile merges a config file, parsed according to its extension.
func loadFile(k *koanf.Koanf, path string) error {
	var parser koanf.Parser
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".yaml", ".yml":
		parser = yamlParser{}
	case ".json":
		parser = jsonParser{}
	case ".toml":
		parser = tomlParser{}
	default:
		return fmt.Errorf("config: %s: unknown config file extension %q (want .yaml, .yml, .json or .toml)", path, ext)
	}
	if err := k.Load(file.Provider(path), parser); err != nil {
		return fmt.Errorf("config: load %s: %w", path, err)
	}
	return nil
}

// envKey maps CHAINHOST_HTTP_PORT to http-port and CHAINHOST_A__B_C to
// a.b-c; CHAINHOST_CONFIG is the config file, not a key.
func envKey(name, value string) (string, any) {
	key, _ := strings.CutPrefix(name, envPrefix)
	if key == "" || name == envConfig {
		return "", nil
	}
	key = strings.ToLower(key)
	key = strings.ReplaceAll(key, "__", ".")
	key = strings.ReplaceAll(key, "_", "-")
	return key, value
}

// lookupEnv returns the value of name in environ, or "".
func lookupEnv(environ []string, name string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}
