package evm

import (
	"log/slog"

	"github.com/chainhost/chainhost/sdk/profile"
)

// adminAPI is the EVM administration of docs/api/evm.md, served at
// /ext/bc/<chain>/admin with positional params. Profiles profile the
// plugin process and go to <chain dir>/profiles.
type adminAPI struct {
	prof   *profile.Profiler
	level  *slog.LevelVar
	config config
}

// empty is the `{}` result of the admin methods.
type empty struct{}

// levelArgs is the argument of admin_setLogLevel.
type levelArgs struct {
	// Level is a log level name.
	Level string `json:"level"`
}

// StartCPUProfiler is admin_startCPUProfiler.
func (a *adminAPI) StartCPUProfiler() (empty, error) {
	return empty{}, a.prof.StartCPU()
}

// StopCPUProfiler is admin_stopCPUProfiler.
func (a *adminAPI) StopCPUProfiler() (empty, error) {
	_, err := a.prof.StopCPU()
	return empty{}, err
}

// MemoryProfile is admin_memoryProfile.
func (a *adminAPI) MemoryProfile() (empty, error) {
	_, err := a.prof.Memory()
	return empty{}, err
}

// LockProfile is admin_lockProfile.
func (a *adminAPI) LockProfile() (empty, error) {
	_, err := a.prof.Lock()
	return empty{}, err
}

// SetLogLevel is admin_setLogLevel [{level}].
func (a *adminAPI) SetLogLevel(args levelArgs) (empty, error) {
	l, err := parseLevel(args.Level)
	if err != nil {
		return empty{}, err
	}
	a.level.Set(l)
	return empty{}, nil
}

// GetVMConfig is admin_getVMConfig: the effective chain config.
func (a *adminAPI) GetVMConfig() map[string]config {
	return map[string]config{"config": a.config}
}

// stop ends a running CPU profile at shutdown, writing it.
func (a *adminAPI) stop() { _ = a.prof.Close() }
