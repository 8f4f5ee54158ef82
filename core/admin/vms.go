package admin

import (
	"context"
	"sort"

	"github.com/chainhost/chainhost/core/chains"
)

// loadVMsResult is the result of admin.loadVMs: the VMs registered by this
// call, by CB58 VM ID, with their name and aliases; and the binaries that
// failed, by file name, with why (left out when none failed).
type loadVMsResult struct {
	NewVMs    map[string][]string `json:"newVMs"`
	FailedVMs map[string]string   `json:"failedVMs,omitempty"`
}

// loadVMs registers the plugins added to the plugin dir since the last
// scan, retrying binaries that failed before, then starts the chains and
// the modules that were waiting for one of them.
func (s *Service) loadVMs(ctx context.Context, _ struct{}) (loadVMsResult, error) {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	scan, err := s.opts.Plugins.Scan(ctx)
	if err != nil {
		return loadVMsResult{}, err
	}
	failed := scan.Failed
	res := loadVMsResult{NewVMs: map[string][]string{}}
	for _, mod := range scan.Modules {
		s.log.Info("module plugin registered", "name", mod.Desc.Name, "version", mod.Desc.Version, "path", mod.Path)
	}
	for _, vm := range scan.VMs {
		res.NewVMs[vm.ID.String()] = vm.Aliases()
		s.log.Info("VM registered", "name", vm.Desc.Name, "id", vm.ID, "version", vm.Desc.Version, "path", vm.Path)
	}
	if len(failed) > 0 {
		res.FailedVMs = make(map[string]string, len(failed))
		for file, ferr := range failed {
			res.FailedVMs[file] = ferr.Error()
			s.log.Warn("plugin not loaded", "file", file, "error", ferr)
		}
	}
	// The chains outlive the request: a client that hangs up must not
	// cancel their start.
	// A chain refused for its unsafe APIs is not running, says why in
	// /ext/health and in the log, like any other that fails to start.
	started, _ := s.opts.Chains.StartPending(context.WithoutCancel(ctx))
	var modules []string
	if s.opts.StartModules != nil {
		modules = s.opts.StartModules(context.WithoutCancel(ctx))
	}
	s.log.Info("VMs loaded", "new", len(scan.VMs), "new modules", len(scan.Modules), "failed", len(failed),
		"chains started", chainNames(started), "modules started", modules)
	return res, nil
}

func chainNames(cs []*chains.Chain) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Alias)
	}
	sort.Strings(out)
	return out
}
