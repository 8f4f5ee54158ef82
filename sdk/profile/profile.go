// Package profile writes the CPU, memory and lock profiles of a process
// into a directory, for the admin APIs of the node and of plugins
// (docs/api/admin.md, docs/api/evm.md): the host profiles itself, a plugin profiles its own process.
package profile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
)

// The profile files, in the profile dir (docs/api/admin.md).
const (
	CPUFile    = "cpu.profile"
	MemoryFile = "mem.profile"
	LockFile   = "lock.profile"
)

// Errors of StartCPU and StopCPU, for errors.Is.
var (
	ErrCPURunning    = errors.New("the CPU profiler is already running")
	ErrCPUNotRunning = errors.New("the CPU profiler is not running")
)

// Profiler writes profiles into a directory. A profile is written to a
// temporary file and renamed into place once complete, so the previous
// profile stays readable until the new one replaces it. It is safe for
// concurrent use.
type Profiler struct {
	dir string

	mu  sync.Mutex
	cpu *os.File // the CPU profile being written; nil when not profiling
}

// New returns a Profiler writing into dir, created on first use; an empty
// dir makes every profile fail with an error saying so.
func New(dir string) *Profiler { return &Profiler{dir: dir} }

// StartCPU starts CPU profiling into CPUFile.
func (p *Profiler) StartCPU() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cpu != nil {
		return ErrCPURunning
	}
	f, err := p.create(CPUFile)
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

// StopCPU stops CPU profiling and writes CPUFile; it returns its path.
func (p *Profiler) StopCPU() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cpu == nil {
		return "", ErrCPUNotRunning
	}
	pprof.StopCPUProfile()
	f := p.cpu
	p.cpu = nil
	return p.commit(f, CPUFile)
}

// Memory writes the heap profile, after a garbage collection so that it
// shows the live heap as of now, to MemoryFile; it returns its path.
func (p *Profiler) Memory() (string, error) { return p.write(MemoryFile, "heap") }

// Lock writes the mutex contention profile to LockFile; it returns its
// path. The process must have set runtime.SetMutexProfileFraction for it
// to hold samples.
func (p *Profiler) Lock() (string, error) { return p.write(LockFile, "mutex") }

// write writes the named runtime profile ("heap", "mutex") to file and
// returns its path.
func (p *Profiler) write(file, profile string) (string, error) {
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

// Close stops a running CPU profile and writes it.
func (p *Profiler) Close() error {
	p.mu.Lock()
	running := p.cpu != nil
	p.mu.Unlock()
	if !running {
		return nil
	}
	_, err := p.StopCPU()
	return err
}

// create opens a temporary file for file in the profile dir, creating the
// dir if needed.
func (p *Profiler) create(file string) (*os.File, error) {
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
func (p *Profiler) commit(f *os.File, file string) (string, error) {
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
