package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// binDirEnv names the build output dir that `make test` passes to tests.
const binDirEnv = "CHAINHOST_BIN_DIR"

// built caches one build per test process.
type built struct {
	once            sync.Once
	host, pluginDir string
	err             error
}

var binaries built // written once, then only read

// Binaries returns the host binary and the plugin dir: from
// CHAINHOST_BIN_DIR (set by `make test`: <dir>/bin/chainhost and
// <dir>/plugins), else built once into a temp dir with `go build`.
func Binaries(t testing.TB) (host, pluginDir string) {
	t.Helper()
	if dir := os.Getenv(binDirEnv); dir != "" {
		return buildDir(dir)
	}
	binaries.once.Do(func() {
		binaries.host, binaries.pluginDir, binaries.err = build()
	})
	if binaries.err != nil {
		t.Fatalf("build chainhost: %v", binaries.err)
	}
	return binaries.host, binaries.pluginDir
}

// buildDir returns the host binary and the plugin dir of a make build
// output dir.
func buildDir(dir string) (host, pluginDir string) {
	return filepath.Join(dir, "bin", "chainhost"), filepath.Join(dir, "plugins")
}

func build() (string, string, error) {
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", err
	}
	modDir := filepath.Dir(strings.TrimSpace(string(root)))
	out, err := os.MkdirTemp("", "chainhost-bin-")
	if err != nil {
		return "", "", err
	}
	host := filepath.Join(out, "bin", "chainhost")
	plugins := filepath.Join(out, "plugins")
	cmds, _ := filepath.Glob(filepath.Join(modDir, "cmd", "*"))
	for _, c := range cmds {
		name := filepath.Base(c)
		dst := filepath.Join(plugins, name)
		if name == "chainhost" {
			dst = host
		}
		cmd := exec.Command("go", "build", "-o", dst, "./cmd/"+name)
		cmd.Dir = modDir
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", "", &buildError{name: name, out: string(b), err: err}
		}
	}
	return host, plugins, nil
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string {
	return "go build ./cmd/" + e.name + ": " + e.err.Error() + "\n" + e.out
}

// PluginDirWith returns a plugin directory holding the node's plugins
// (links to those of Binaries) and the main package pkg (a path below the
// module, like "internal/faultvm/cmd/faultvm"), built for this test: a
// test-only plugin never ships in the real plugin directory.
func PluginDirWith(t testing.TB, pkg string) string {
	t.Helper()
	dir := LinkedPluginDir(t)
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, filepath.Base(pkg)), "./"+pkg)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./%s: %v\n%s", pkg, err, b)
	}
	return dir
}

// LinkedPluginDir returns a new plugin directory holding the node's plugins
// (links to those of Binaries), to which a test adds plugins of its own.
func LinkedPluginDir(t testing.TB) string {
	t.Helper()
	_, plugins := Binaries(t)
	dir := t.TempDir()
	entries, err := os.ReadDir(plugins)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(plugins, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
