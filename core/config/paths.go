package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// resolve expands a leading ~ in the directories and genesis files, fills in
// the default plugin and profile directories and the chains' Enabled.
func (c *Config) resolve(environ []string) error {
	var err error
	expand := func(p *string) {
		if err == nil {
			*p, err = expandHome(*p, environ)
		}
	}
	expand(&c.DataDir)
	expand(&c.PluginDir)
	expand(&c.ProfileDir)
	for i := range c.Chains {
		expand(&c.Chains[i].GenesisFile)
		expand(&c.Chains[i].ConfigFile)
		expand(&c.Chains[i].UpgradeFile)
	}
	if err != nil {
		return err
	}
	if c.PluginDir == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("config: plugin-dir: find the running executable: %w", err)
		}
		c.PluginDir = filepath.Join(filepath.Dir(exe), "..", "plugins")
	}
	if c.ProfileDir == "" && c.DataDir != "" {
		c.ProfileDir = filepath.Join(c.DataDir, "profiles")
	}
	for i := range c.Chains {
		if c.Chains[i].Enabled == nil {
			c.Chains[i].Enabled = new(true)
		}
	}
	for i := range c.Modules {
		if c.Modules[i].Enabled == nil {
			c.Modules[i].Enabled = new(true)
		}
	}
	return nil
}

// expandHome replaces a leading "~" or "~/" with the home directory: HOME in
// environ, else the process's.
func expandHome(p string, environ []string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home := lookupEnv(environ, "HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("config: expand %s: %w", p, err)
		}
		home = h
	}
	return filepath.Join(home, p[1:]), nil
}
