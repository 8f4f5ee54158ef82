package evm

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
)

// Profile file names in the chain's profile directory, as the node's own
// admin API names them.
const (
	cpuProfileFile  = "cpu.profile"
	memProfileFile  = "mem.profile"
	lockProfileFile = "lock.profile"
)

// adminAPI is the EVM administration of SPEC A2, served at
// /ext/bc/<chain>/admin with positional params. Profiles profile the
// plugin process and go to <chain dir>/profiles.
type adminAPI struct {
	profileDir string
	level      *slog.LevelVar
	config     Config

	mu      sync.Mutex
	cpuFile *os.File
}

// empty is the `{}` result of the admin methods.
type empty struct{}

// LevelArgs is the argument of admin_setLogLevel.
type LevelArgs struct {
	// Level is a log level name.
	Level string `json:"level"`
}

// StartCPUProfiler is admin_startCPUProfiler.
func (a *adminAPI) StartCPUProfiler() (empty, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cpuFile != nil {
		return empty{}, errors.New("CPU profiler already running")
	}
	f, err := a.create(cpuProfileFile)
	if err != nil {
		return empty{}, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return empty{}, fmt.Errorf("start CPU profile: %w", err)
	}
	a.cpuFile = f
	return empty{}, nil
}

// StopCPUProfiler is admin_stopCPUProfiler.
func (a *adminAPI) StopCPUProfiler() (empty, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cpuFile == nil {
		return empty{}, errors.New("CPU profiler not running")
	}
	pprof.StopCPUProfile()
	err := a.cpuFile.Close()
	a.cpuFile = nil
	if err != nil {
		return empty{}, fmt.Errorf("write CPU profile: %w", err)
	}
	return empty{}, nil
}

// MemoryProfile is admin_memoryProfile.
func (a *adminAPI) MemoryProfile() (empty, error) {
	runtime.GC()
	return empty{}, a.writeProfile("heap", memProfileFile)
}

// LockProfile is admin_lockProfile.
func (a *adminAPI) LockProfile() (empty, error) {
	return empty{}, a.writeProfile("mutex", lockProfileFile)
}

// SetLogLevel is admin_setLogLevel [{level}].
func (a *adminAPI) SetLogLevel(args LevelArgs) (empty, error) {
	l, err := parseLevel(args.Level)
	if err != nil {
		return empty{}, err
	}
	a.level.Set(l)
	return empty{}, nil
}

// GetVMConfig is admin_getVMConfig: the effective chain config.
func (a *adminAPI) GetVMConfig() map[string]Config {
	return map[string]Config{"config": a.config}
}

func (a *adminAPI) writeProfile(name, file string) error {
	f, err := a.create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("write %s profile: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s profile: %w", name, err)
	}
	return nil
}

func (a *adminAPI) create(file string) (*os.File, error) {
	if err := os.MkdirAll(a.profileDir, 0o700); err != nil {
		return nil, fmt.Errorf("profile dir: %w", err)
	}
	f, err := os.Create(filepath.Join(a.profileDir, file))
	if err != nil {
		return nil, fmt.Errorf("create profile: %w", err)
	}
	return f, nil
}

// stop ends a running CPU profile at shutdown.
func (a *adminAPI) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cpuFile != nil {
		pprof.StopCPUProfile()
		_ = a.cpuFile.Close()
		a.cpuFile = nil
	}
}
