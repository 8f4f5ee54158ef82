package admin

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
)

// loadVMsResult is the result of admin.loadVMs: the VMs registered or
// upgraded by this call, by CB58 VM ID, with their name and aliases, and
// the module plugins, by name, with their names; and the binaries that
// failed, by file name, with why (left out when none failed).
type loadVMsResult struct {
	NewVMs    map[string][]string `json:"newVMs"`
	FailedVMs map[string]string   `json:"failedVMs,omitempty"`
}

// loadVMs registers the plugins added to the plugin dir since the last
// scan, retrying binaries that failed before, upgrades those whose binary
// changed (docs/plugins.md, "Upgrades in place"), then starts the chains
// and the modules that were waiting for one of them.
func (s *Service) loadVMs(ctx context.Context, _ struct{}) (loadVMsResult, error) {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	scan, err := s.opts.Plugins.Scan(ctx)
	if err != nil {
		return loadVMsResult{}, err
	}
	// The chains and modules outlive the request: a client that hangs up
	// must not cancel their start.
	bg := context.WithoutCancel(ctx)
	failed := scan.Failed
	res := loadVMsResult{NewVMs: map[string][]string{}}
	for _, mod := range scan.Modules {
		res.NewVMs[mod.Desc.Name] = mod.Names()
		s.log.Info("module plugin registered", "name", mod.Desc.Name, "version", mod.Desc.Version, "path", mod.Path, "sha256", mod.SHA256)
	}
	for _, vm := range scan.VMs {
		res.NewVMs[vm.ID.String()] = vm.Aliases()
		s.log.Info("VM registered", "name", vm.Desc.Name, "id", vm.ID, "version", vm.Desc.Version, "path", vm.Path, "sha256", vm.SHA256)
	}
	for _, u := range scan.VMUpgrades {
		restarted, err := s.opts.Chains.UpgradeVM(bg, u)
		if err != nil {
			failed[filepath.Base(u.New.Path)] = s.reject(u.Old.Binary, u.New.Binary, u.Old.Desc.Version, u.New.Desc.Version, err)
			continue
		}
		s.opts.Plugins.CommitVM(u)
		res.NewVMs[u.New.ID.String()] = u.New.Aliases()
		s.log.Info("VM upgraded", "name", u.New.Desc.Name, "id", u.New.ID, "from", u.Old.Desc.Version, "to", u.New.Desc.Version,
			"from sha256", u.Old.SHA256, "to sha256", u.New.SHA256, "chains restarted", chainNames(restarted))
	}
	for _, u := range scan.ModuleUpgrades {
		var restarted []string
		if s.opts.Modules != nil {
			if restarted, err = s.opts.Modules.UpgradeModule(bg, u); err != nil {
				failed[filepath.Base(u.New.Path)] = s.reject(u.Old.Binary, u.New.Binary, u.Old.Desc.Version, u.New.Desc.Version, err)
				continue
			}
		}
		s.opts.Plugins.CommitModule(u)
		res.NewVMs[u.New.Desc.Name] = u.New.Names()
		s.log.Info("module plugin upgraded", "name", u.New.Desc.Name, "from", u.Old.Desc.Version, "to", u.New.Desc.Version,
			"from sha256", u.Old.SHA256, "to sha256", u.New.SHA256, "modules restarted", restarted)
	}
	if len(failed) > 0 {
		res.FailedVMs = make(map[string]string, len(failed))
		for file, ferr := range failed {
			res.FailedVMs[file] = ferr.Error()
			s.log.Warn("plugin not loaded", "file", file, "error", ferr)
		}
	}
	// No upgrade is pending: the copies no plugin runs go.
	if err := s.opts.Plugins.Prune(); err != nil {
		s.log.Warn("plugin cache", "error", err)
	}
	// A chain refused for its unsafe APIs is not running, says why in
	// /ext/health and in the log, like any other that fails to start.
	started, _ := s.opts.Chains.StartPending(bg)
	var modules []string
	if s.opts.StartModules != nil {
		modules = s.opts.StartModules(bg)
	}
	s.log.Info("VMs loaded", "new", len(scan.VMs), "new modules", len(scan.Modules),
		"upgraded", len(scan.VMUpgrades), "upgraded modules", len(scan.ModuleUpgrades), "failed", len(failed),
		"chains started", chainNames(started), "modules started", modules)
	return res, nil
}

// reject records that the build to failed to start where from ran, which
// runs on, and returns why for failedVMs.
func (s *Service) reject(from, to catalog.Binary, fromVersion, toVersion string, err error) error {
	err = fmt.Errorf("not upgraded: version %s (sha256 %s) failed to start, version %s (sha256 %s) runs on: %w",
		toVersion, to.SHA256, fromVersion, from.SHA256, err)
	s.opts.Plugins.Reject(to, err)
	return err
}

func chainNames(cs []*chains.Chain) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Alias)
	}
	sort.Strings(out)
	return out
}
