// Package admin serves the node administration API at /ext/admin
// (docs/api/admin.md):
// endpoint and chain aliases, logger levels, hot-loading VM plugins, and
// CPU, memory and mutex profiles. The node mounts it only when
// api-admin-enabled is true.
package admin

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/core/aliases"
	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/core/modules"
	"github.com/chainhost/chainhost/core/server"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
	"github.com/chainhost/chainhost/sdk/profile"
)

// mutexProfileFraction is the rate of mutex contention events sampled while
// the admin API is on (see runtime.SetMutexProfileFraction), so that
// admin.lockProfile has content.
const mutexProfileFraction = 1

// Options configures the service.
type Options struct {
	Router  *server.Router   // serves the endpoint aliases
	Chains  *chains.Manager  // resolves chains, starts hot-loaded ones
	Aliases *aliases.Chains  // the chain alias table
	Plugins *catalog.Catalog // the plugin dir
	Logs    *logging.Registry
	// StartModules starts the modules waiting for a plugin that a scan
	// installed, and returns their names; nil when there are none.
	StartModules func(ctx context.Context) []string
	// Modules restarts the modules whose plugin is upgraded; nil when the
	// node runs none.
	Modules    *modules.Manager
	ProfileDir string          // where profiles are written
	Log        hclog.Logger    // nil: no log
	RPC        jsonrpc.Options // JSON-RPC limits and hooks
}

// Service is the admin API.
type Service struct {
	opts Options
	log  hclog.Logger
	prof *profile.Profiler
	// loadMu serialises admin.loadVMs, so that two calls never describe
	// and register the same binary at once.
	loadMu sync.Mutex
}

// empty is the `{}` result of the methods that return nothing.
type empty struct{}

// New returns the service and turns on mutex profiling.
func New(opts Options) *Service {
	log := opts.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	runtime.SetMutexProfileFraction(mutexProfileFraction)
	return &Service{opts: opts, log: log, prof: profile.New(opts.ProfileDir)}
}

// Handler returns the JSON-RPC server of the ten admin.* methods.
func (s *Service) Handler() *jsonrpc.Server {
	srv := jsonrpc.NewServer(s.opts.RPC)
	srv.Register("admin.alias", jsonrpc.Method(s.alias))
	srv.Register("admin.aliasChain", jsonrpc.Method(s.aliasChain))
	srv.Register("admin.getChainAliases", jsonrpc.Method(s.getChainAliases))
	srv.Register("admin.getLoggerLevel", jsonrpc.Method(s.getLoggerLevel))
	srv.Register("admin.setLoggerLevel", jsonrpc.Method(s.setLoggerLevel))
	srv.Register("admin.loadVMs", jsonrpc.Method(s.loadVMs))
	srv.Register("admin.startCPUProfiler", jsonrpc.Method(s.startCPUProfiler))
	srv.Register("admin.stopCPUProfiler", jsonrpc.Method(s.stopCPUProfiler))
	srv.Register("admin.memoryProfile", jsonrpc.Method(s.memoryProfile))
	srv.Register("admin.lockProfile", jsonrpc.Method(s.lockProfile))
	return srv
}

// Close stops a running CPU profile, writing cpu.profile.
func (s *Service) Close() error {
	return s.prof.Close()
}

func (s *Service) startCPUProfiler(context.Context, struct{}) (empty, error) {
	if err := s.prof.StartCPU(); err != nil {
		if errors.Is(err, profile.ErrCPURunning) {
			return empty{}, fmt.Errorf("%w: call admin.stopCPUProfiler first", err)
		}
		return empty{}, err
	}
	s.log.Info("CPU profiler started", "dir", s.opts.ProfileDir)
	return empty{}, nil
}

func (s *Service) stopCPUProfiler(context.Context, struct{}) (empty, error) {
	path, err := s.prof.StopCPU()
	if errors.Is(err, profile.ErrCPUNotRunning) {
		return empty{}, fmt.Errorf("%w: call admin.startCPUProfiler first", err)
	}
	if err != nil {
		return empty{}, err
	}
	s.log.Info("CPU profile written", "file", path)
	return empty{}, nil
}

func (s *Service) memoryProfile(context.Context, struct{}) (empty, error) {
	return s.writeProfile("memory", s.prof.Memory)
}

func (s *Service) lockProfile(context.Context, struct{}) (empty, error) {
	return s.writeProfile("lock", s.prof.Lock)
}

// writeProfile writes a profile of kind with write and logs its file.
func (s *Service) writeProfile(kind string, write func() (string, error)) (empty, error) {
	path, err := write()
	if err != nil {
		return empty{}, err
	}
	s.log.Info(kind+" profile written", "file", path)
	return empty{}, nil
}
