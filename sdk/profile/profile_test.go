package profile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// parse checks that path holds a pprof profile: gzipped protobuf.
func parse(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 20 || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Fatalf("%s: %d bytes, not a gzipped profile", path, len(b))
	}
}

func TestProfiler(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profiles")
	p := New(dir)
	if _, err := p.StopCPU(); !errors.Is(err, ErrCPUNotRunning) {
		t.Fatalf("StopCPU before StartCPU: %v, want ErrCPUNotRunning", err)
	}
	if err := p.StartCPU(); err != nil {
		t.Fatal(err)
	}
	if err := p.StartCPU(); !errors.Is(err, ErrCPURunning) {
		t.Fatalf("second StartCPU: %v, want ErrCPURunning", err)
	}
	path, err := p.StopCPU()
	if err != nil || path != filepath.Join(dir, CPUFile) {
		t.Fatalf("StopCPU = %q, %v", path, err)
	}
	parse(t, path)
	for name, write := range map[string]func() (string, error){MemoryFile: p.Memory, LockFile: p.Lock} {
		path, err := write()
		if err != nil || path != filepath.Join(dir, name) {
			t.Fatalf("%s: %q, %v", name, path, err)
		}
		parse(t, path)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("profile dir holds %d files, want the 3 profiles and no temporary file", len(entries))
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close with no CPU profile running: %v", err)
	}
}

func TestProfilerCloseWritesRunningCPUProfile(t *testing.T) {
	dir := t.TempDir()
	p := New(dir)
	if err := p.StartCPU(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	parse(t, filepath.Join(dir, CPUFile))
}

func TestProfilerNoDir(t *testing.T) {
	p := New("")
	if err := p.StartCPU(); err == nil {
		t.Fatal("StartCPU without a dir succeeded")
	}
	if _, err := p.Memory(); err == nil {
		t.Fatal("Memory without a dir succeeded")
	}
}
