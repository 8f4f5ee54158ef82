package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/internal/modproxy"
	"github.com/chainhost/chainhost/internal/scaffold"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// authorGo runs the go command as a plugin author outside the repository
// does, with the modules of proxy (a GOPROXY=file:// directory) found first.
type authorGo struct {
	t     *testing.T
	proxy string
}

// run runs go with args in dir and returns its output.
func (g authorGo) run(dir string, args ...string) string {
	g.t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	goproxy, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		g.t.Fatalf("go env GOPROXY: %v", err)
	}
	// The chainhost module is not in the public checksum database: the
	// versions these tests publish exist only in their proxy.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOSUMDB=off",
		"GOPROXY=file://"+g.proxy+","+strings.TrimSpace(string(goproxy)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// build builds the plugin in dir at version (its main.version) and
// installs it in pluginDir under name, as a rename, which a running node
// never sees half-written.
func (g authorGo) build(dir, version, pluginDir, name string) {
	g.t.Helper()
	out := filepath.Join(g.t.TempDir(), name)
	args := []string{"build", "-o", out}
	if version != "" {
		args = append(args, "-ldflags", "-X main.version="+version)
	}
	g.run(dir, append(args, ".")...)
	if err := os.Rename(out, filepath.Join(pluginDir, name)); err != nil {
		g.t.Fatal(err)
	}
}

// TestPluginAuthorPath: a VM and a REST module written by `chainhost
// new-plugin` in a directory outside the repository, built against the SDK
// fetched as a dependency from a module proxy, pass their own tests, are
// hot-loaded by admin.loadVMs and upgraded in place to a second build while
// the node runs: the answer reports the upgrade, info.getNodeVersion the
// new version, and the chain keeps its state (docs/plugin-sdk.md).
func TestPluginAuthorPath(t *testing.T) {
	t.Parallel()
	hostBin, _ := nodetest.Binaries(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := modproxy.ModuleFiles(repo)
	if err != nil {
		t.Fatal(err)
	}
	g := authorGo{t: t, proxy: t.TempDir()}
	// The work tree is published as a release would be, under a fresh
	// version each run: the module cache keeps what it fetched under a
	// version for good.
	publishedVersion := fmt.Sprintf("v0.0.0-author.%d", time.Now().UnixNano())
	if _, err := modproxy.Publish(g.proxy, repo, publishedVersion, files); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeFromModCache(t, publishedVersion) })

	src := t.TempDir()
	vmDir, modDir := filepath.Join(src, "countervm"), filepath.Join(src, "counterapi")
	for _, p := range []struct{ kind, dir string }{{"vm", vmDir}, {"module", modDir}} {
		if out, err := exec.Command(hostBin, "new-plugin", p.kind, p.dir, "--sdk-version", publishedVersion).CombinedOutput(); err != nil {
			t.Fatalf("chainhost new-plugin %s: %v\n%s", p.kind, err, out)
		}
		g.run(p.dir, "mod", "tidy")
		if gomod, _ := os.ReadFile(filepath.Join(p.dir, "go.mod")); !strings.Contains(string(gomod), "github.com/chainhost/chainhost "+publishedVersion) {
			t.Fatalf("%s/go.mod does not require the SDK at %s:\n%s", p.dir, publishedVersion, gomod)
		}
		g.run(p.dir, "vet", "./...")
		g.run(p.dir, "test", "./...")
	}

	pluginDir := nodetest.LinkedPluginDir(t)
	n := nodetest.Start(t, nodetest.Options{
		PluginDir: pluginDir,
		Args:      []string{"--api-admin-enabled=true"},
		Config:    "chains: [{alias: counter, vm: countervm}]\nmodules: [{name: counterapi, prefixes: [/v1/counterapi]}]\n",
	})
	ctx := context.Background()
	vmID, err := ids.FromName("countervm")
	if err != nil {
		t.Fatal(err)
	}
	wantLoaded := map[string][]string{vmID.String(): {"countervm"}, "counterapi": {"counterapi"}}

	g.build(vmDir, "0.1.0", pluginDir, "countervm")
	g.build(modDir, "0.1.0", pluginDir, "counterapi")
	if got := loadVMs(t, n); !equalVMs(got.NewVMs, wantLoaded) || len(got.FailedVMs) != 0 {
		t.Fatalf("admin.loadVMs after installing = %+v, want newVMs %v", got, wantLoaded)
	}
	add(t, n, 3, 3)
	wantStatus(t, n, "3", "0.1.0")

	g.build(vmDir, "0.2.0", pluginDir, "countervm")
	g.build(modDir, "0.2.0", pluginDir, "counterapi")
	if got := loadVMs(t, n); !equalVMs(got.NewVMs, wantLoaded) || len(got.FailedVMs) != 0 {
		t.Fatalf("admin.loadVMs after the upgrade = %+v, want newVMs %v", got, wantLoaded)
	}
	var nv struct {
		VMVersions map[string]string `json:"vmVersions"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getNodeVersion", nil, &nv); err != nil || nv.VMVersions["countervm"] != "0.2.0" {
		t.Errorf("info.getNodeVersion after the upgrade: %+v, %v; want countervm 0.2.0", nv, err)
	}
	add(t, n, 4, 7) // the counter kept its 3
	wantStatus(t, n, "7", "0.2.0")
}

// add adds to the counter chain and checks the counter.
func add(t *testing.T, n *nodetest.Node, by, want uint64) {
	t.Helper()
	ctx := context.Background()
	if err := n.Call(ctx, "/ext/bc/counter/rpc", "counter.add", map[string]uint64{"n": by}, nil); err != nil {
		t.Fatalf("counter.add: %v", err)
	}
	var c jsonrpc.Uint64
	if err := n.Call(ctx, "/ext/bc/counter/rpc", "counter.get", nil, &c); err != nil || uint64(c) != want {
		t.Fatalf("counter.get after adding %d = %d (%v), want %d", by, c, err, want)
	}
}

// wantStatus checks the module's answer: the chain's counter through a
// chain call, and the module's own version.
func wantStatus(t *testing.T, n *nodetest.Node, counter, version string) {
	t.Helper()
	status, body := restGet(t, context.Background(), n.URL+"/v1/counterapi/chains/counter/status")
	var s struct{ Counter, Version string }
	if status != http.StatusOK || json.Unmarshal(body, &s) != nil || s.Counter != counter || s.Version != version {
		t.Fatalf("GET /v1/counterapi/chains/counter/status = %d %s, want counter %s from module %s", status, body, counter, version)
	}
}

// removeFromModCache deletes what the go command fetched of
// chainhost@version into the module cache.
func removeFromModCache(t *testing.T, version string) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Errorf("go env GOMODCACHE: %v", err)
		return
	}
	cache := strings.TrimSpace(string(out))
	dir := filepath.Join(cache, "github.com", "chainhost", "chainhost@"+version)
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755) // the cache's folders are read-only
		}
		return nil
	})
	dl := filepath.Join(cache, "cache", "download", "github.com", "chainhost", "chainhost", "@v")
	matches, _ := filepath.Glob(filepath.Join(dl, version+".*"))
	for _, p := range append(matches, dir) {
		if err := os.RemoveAll(p); err != nil {
			t.Errorf("clean the module cache: %v", err)
		}
	}
}

// TestPluginOnPreviousProtocol: a VM built against chainhost v0.1.0's SDK,
// the previous plugin protocol, kept as a fixture with the release in a
// module proxy, loads and runs (docs/plugin-sdk.md, "Compatibility").
func TestPluginOnPreviousProtocol(t *testing.T) {
	t.Parallel()
	proxy, err := filepath.Abs("testdata/goproxy")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "protocol1vm")
	if err := os.CopyFS(src, os.DirFS("testdata/protocol1vm")); err != nil {
		t.Fatal(err)
	}
	g := authorGo{t: t, proxy: proxy}
	pluginDir := nodetest.LinkedPluginDir(t)
	g.build(src, "", pluginDir, "protocol1vm")
	out, err := exec.Command(filepath.Join(pluginDir, "protocol1vm"), "describe").Output()
	var desc struct{ Protocols []int }
	if err != nil || json.Unmarshal(out, &desc) != nil || !slices.Equal(desc.Protocols, []int{1}) {
		t.Fatalf("protocol1vm describe = %s (%v), want protocols [1]", out, err)
	}

	n := nodetest.Start(t, nodetest.Options{PluginDir: pluginDir, Config: "chains: [{alias: notes, vm: protocol1vm}]\n"})
	n.WaitHealthy(t)
	ctx := context.Background()
	for i, text := range []string{"one", "two"} {
		var pos jsonrpc.Uint64
		if err := n.Call(ctx, "/ext/bc/notes/rpc", "notes.add", map[string]string{"text": text}, &pos); err != nil || int(pos) != i {
			t.Fatalf("notes.add %q = %d, %v; want %d", text, pos, err, i)
		}
	}
	var last struct{ Index string }
	if err := n.Call(ctx, "/ext/index/notes/block", "index.getLastAccepted", map[string]string{"encoding": "hex"}, &last); err != nil || last.Index != "1" {
		t.Fatalf("index.getLastAccepted = %+v, %v; want index 1", last, err)
	}
	var nv struct {
		VMVersions map[string]string `json:"vmVersions"`
	}
	if err := n.Call(ctx, "/ext/info", "info.getNodeVersion", nil, &nv); err != nil || nv.VMVersions["protocol1vm"] != "1.0.0" {
		t.Errorf("info.getNodeVersion: %+v, %v; want protocol1vm 1.0.0", nv, err)
	}
}

// TestNewPluginRefuses: `chainhost new-plugin` answers bad input with a
// clear error and a non-zero exit, and writes nothing; without
// --sdk-version or --sdk-dir, a release requires itself and a development
// build says what to give.
func TestNewPluginRefuses(t *testing.T) {
	t.Parallel()
	hostBin, _ := nodetest.Binaries(t)
	dir := filepath.Join(t.TempDir(), "myvm")
	run := func(args ...string) (int, string) {
		out, err := exec.Command(hostBin, append([]string{"new-plugin"}, args...)...).CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if ee != nil {
			return ee.ExitCode(), string(out)
		}
		return 0, string(out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "want the kind (vm or module) and a directory"},
		{[]string{"chain", dir, "--sdk-version", "v1.0.0"}, `plugin kind "chain"`},
		{[]string{"vm", filepath.Join(t.TempDir(), "My_VM"), "--sdk-version", "v1.0.0"}, `plugin name "My_VM"`},
		{[]string{"vm", dir, "--sdk-version", "latest"}, `SDK version "latest"`},
		{[]string{"vm", dir, "--sdk-dir", t.TempDir()}, "is not a checkout of github.com/chainhost/chainhost"},
		{[]string{"vm", dir, "--no-such-flag"}, "unknown flag: --no-such-flag"},
	} {
		if code, out := run(c.args...); code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("new-plugin %v: exit %d, output %q; want an error with %q", c.args, code, out, c.want)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatalf("a refused new-plugin wrote %s", dir)
	}

	out, err := exec.Command(hostBin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	version := strings.Fields(string(out))[1]
	code, msg := run("vm", dir)
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if scaffold.IsRelease(version) {
		if code != 0 || !strings.Contains(string(gomod), "github.com/chainhost/chainhost "+version) {
			t.Errorf("new-plugin on release %s: exit %d (%s), go.mod:\n%s", version, code, msg, gomod)
		}
	} else if code != 2 || !strings.Contains(msg, "is not a release: give --sdk-version") || gomod != nil {
		t.Errorf("new-plugin on development build %s: exit %d, %q; want exit 2 naming --sdk-version", version, code, msg)
	}
}
