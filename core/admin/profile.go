package admin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
)

// The profile files, in the profile dir (SPEC A1).
const (
	cpuFile    = "cpu.profile"
	memoryFile = "mem.profile"
	lockFile   = "lock.profile"
)

// profiler writes profiles into dir. A profile is written to a temporary
// file and renamed into place once complete, so the previous profile stays
// readable until the new one replaces it.
type profiler struct {
	dir string

	mu  sync.Mutex
	cpu *os.File // the CPU profile being written; nil when not profiling
}

// startCPU starts CPU profiling.
func (p *profiler) startCPU() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cpu != nil {
		return errors.New("the CPU profiler is already running: call admin.stopCPUProfiler first")
	}
	f, err := p.create(cpuFile)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		discard(f)
		return fmt.Errorf("start CPU profiler: %w", err)
	}
	p.cpu = f
	return nil
}

// stopCPU stops CPU profiling and writes cpu.profile; it returns its path.
func (p *profiler) stopCPU() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cpu == nil {
		return "", errors.New("the CPU profiler is not running: call admin.startCPUProfiler first")
	}
	pprof.StopCPUProfile()
	f := p.cpu
	p.cpu = nil
	return p.commit(f, cpuFile)
}

// write writes the named runtime profile ("heap", "mutex") to file and
// returns its path. A heap profile follows a garbage collection, so that it
// shows the live heap as of now.
func (p *profiler) write(file, profile string) (string, error) {
	prof := pprof.Lookup(profile)
	if prof == nil {
		return "", fmt.Errorf("no %s profile in this runtime", profile)
	}
	if profile == "heap" {
		runtime.GC()
	}
	f, err := p.create(file)
	if err != nil {
		return "", err
	}
	if err := prof.WriteTo(f, 0); err != nil {
		discard(f)
		return "", fmt.Errorf("write %s: %w", file, err)
	}
	return p.commit(f, file)
}

// close stops a running CPU profile and writes it.
func (p *profiler) close() error {
	p.mu.Lock()
	running := p.cpu != nil
	p.mu.Unlock()
	if !running {
		return nil
	}
	_, err := p.stopCPU()
	return err
}

// create opens a temporary file for file in the profile dir, creating the
// dir if needed.
func (p *profiler) create(file string) (*os.File, error) {
	if p.dir == "" {
		return nil, errors.New("no profile dir configured (set --profile-dir)")
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, fmt.Errorf("create profile dir %s: %w", p.dir, err)
	}
	f, err := os.CreateTemp(p.dir, file+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create %s in %s: %w", file, p.dir, err)
	}
	return f, nil
}

// commit closes the temporary file f and renames it to file.
func (p *profiler) commit(f *os.File, file string) (string, error) {
	path := filepath.Join(p.dir, file)
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// discard closes and removes a temporary file that will not be committed.
func discard(f *os.File) {
	_ = f.Close()
	_ = os.Remove(f.Name())
}
