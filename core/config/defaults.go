package config

import (
	"fmt"

	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"

	"github.com/chainhost/chainhost/configs"
)

// loadDefaults returns a koanf instance holding the embedded defaults.
func loadDefaults() (*koanf.Koanf, error) {
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(configs.Default()), yamlParser{}); err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	return k, nil
}

// defaults returns the embedded defaults as written (directories not
// resolved), for the flags' help.
func defaults() (*Config, error) {
	k, err := loadDefaults()
	if err != nil {
		return nil, err
	}
	c, err := decode(k)
	if err != nil {
		return nil, fmt.Errorf("embedded defaults: %w", err)
	}
	return c, nil
}
