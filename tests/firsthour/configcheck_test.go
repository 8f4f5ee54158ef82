package firsthour

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chainhost/chainhost/core/config"
	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/plugins/exampleapi"
	"github.com/chainhost/chainhost/plugins/explorer"
	"github.com/chainhost/chainhost/plugins/metricsapi"
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/plugins/xvm"
	"go.yaml.in/yaml/v3"
)

// vmChecks reads a chain's genesis and config as each shipped VM does at
// start.
var vmChecks = map[string]struct {
	genesis func(raw []byte, networkID uint32) error
	config  func(raw []byte) error
}{
	"evm":      {func(raw []byte, _ uint32) error { _, err := evm.ParseGenesis(raw); return err }, evm.CheckConfig},
	xvm.VMName: {xvm.CheckGenesis, xvm.CheckConfig},
	pvm.VMName: {pvm.CheckGenesis, pvm.CheckConfig},
}

// moduleChecks reads a module's config as each shipped module plugin does
// at start.
var moduleChecks = map[string]func(raw []byte) error{
	"dataapi":    func(raw []byte) error { _, err := dataapi.ParseConfig(raw); return err },
	"metricsapi": func(raw []byte) error { _, err := metricsapi.ParseConfig(raw); return err },
	"explorer":   explorer.CheckConfig,
	"exampleapi": exampleapi.CheckConfig,
}

// checkConfigSnippet checks a yaml block: it parses, and it is a config the
// node takes, every key known: the host's keys through the host's config
// loader (what `chainhost config --config FILE` runs), each chain's genesis
// and config through its VM's parser, each module's config through its
// plugin's. partOf places a fragment in a whole config: "chain <vm>" for
// keys of one entry of chains, "module <plugin>" for one of modules.
func checkConfigSnippet(code, partOf, dir string) error {
	var parsed any
	if err := yaml.Unmarshal([]byte(code), &parsed); err != nil {
		return fmt.Errorf("not YAML: %w", err)
	}
	file := code
	if partOf != "" {
		kind, name, _ := strings.Cut(partOf, " ")
		var head string
		switch kind {
		case "chain":
			head = fmt.Sprintf("chains:\n  - alias: doc\n    vm: %s\n", name)
		case "module":
			head = fmt.Sprintf("modules:\n  - name: doc\n    plugin: %s\n", name)
		default:
			return fmt.Errorf("part-of %q: want \"chain <vm>\" or \"module <plugin>\"", partOf)
		}
		file = head + indentLines(code, "    ")
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		return err
	}
	cfg, err := config.Load(config.LoadOptions{Args: []string{"--config", path}, Environ: []string{"HOME=" + dir}})
	if err != nil {
		return fmt.Errorf("the host's config loader refuses it: %w\n(the config it read:\n%s)", err, file)
	}
	var problems []error
	for _, c := range cfg.Chains {
		check, known := vmChecks[c.VM]
		conf, err := c.ConfigJSON()
		if err != nil {
			problems = append(problems, err)
			continue
		}
		switch {
		case known:
			if err := check.config(conf); err != nil {
				problems = append(problems, fmt.Errorf("chain %s: %w", c.Alias, err))
			}
		case string(conf) != "{}":
			problems = append(problems, fmt.Errorf("chain %s: no shipped VM is named %q, so its config keys cannot be checked", c.Alias, c.VM))
		}
		// A genesis file is the reader's own: only an inline genesis is read.
		if !known || c.GenesisFile != "" {
			continue
		}
		gen, err := c.GenesisJSON()
		if err == nil {
			err = check.genesis(gen, cfg.NetworkID)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("chain %s: %w", c.Alias, err))
		}
	}
	for _, m := range cfg.Modules {
		conf, err := m.ConfigJSON()
		if err != nil {
			problems = append(problems, err)
			continue
		}
		check, known := moduleChecks[m.PluginName()]
		switch {
		case known:
			if err := check(conf); err != nil {
				problems = append(problems, fmt.Errorf("module %s: %w", m.Name, err))
			}
		case string(conf) != "{}":
			problems = append(problems, fmt.Errorf("module %s: no shipped module plugin is named %q, so its config keys cannot be checked", m.Name, m.PluginName()))
		}
	}
	return errors.Join(problems...)
}

// indentLines puts prefix before every non-empty line of s.
func indentLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
