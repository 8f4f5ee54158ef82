package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/exampleapi"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// buildPlugin builds the main package pkg (relative to this folder) into a
// temp dir with -ldflags ldflags, and returns the binary and its sha256.
func buildPlugin(t *testing.T, pkg, ldflags string) (string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-ldflags", ldflags, "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s %s: %v\n%s", pkg, ldflags, err, b)
	}
	return out, sha256Hex(t, out)
}

func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// copyOver writes src's bytes over the file dst, as cp does: the same
// inode, rewritten in place.
func copyOver(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// runsDigest checks that the one plugin process named name runs the
// plugin cache's copy of the bytes of sha256 sum, and returns its PID.
func runsDigest(t *testing.T, n *nodetest.Node, name, sum string) int {
	t.Helper()
	pid := nodetest.PluginPID(t, n, name)
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if want := filepath.Join(n.DataDir, "plugin-cache", sum); err != nil || exe != want {
		t.Errorf("plugin %s (pid %d) runs %s (%v), want %s", name, pid, exe, err, want)
	}
	return pid
}

// vmVersion is the version info.getNodeVersion reports for a VM.
func vmVersion(t *testing.T, n *nodetest.Node, vm string) string {
	t.Helper()
	var v struct {
		VMVersions map[string]string `json:"vmVersions"`
	}
	if err := n.Call(context.Background(), "/ext/info", "info.getNodeVersion", nil, &v); err != nil {
		t.Fatalf("info.getNodeVersion: %v", err)
	}
	return v.VMVersions[vm]
}

// TestPluginUpgrade: a VM and a module hot-loaded by admin.loadVMs are
// upgraded in place by replacing their binaries (cp over the file, and a
// rename) and calling admin.loadVMs again: the answer lists both, the new
// builds run from the plugin cache, info.getNodeVersion says the new
// version, and the chain kept its state. A build that fails to start is
// in failedVMs while the one before serves on, also on the next call; a
// plugin killed after its file was replaced, without admin.loadVMs,
// restarts on the bytes registered.
func TestPluginUpgrade(t *testing.T) {
	t.Parallel()
	vm1, vm1Sum := buildPlugin(t, "./testdata/hotvm", "")
	vm2, vm2Sum := buildPlugin(t, "./testdata/hotvm", "-X main.version=0.0.2")
	vmBad, _ := buildPlugin(t, "./testdata/hotvm", "-X main.version=0.0.3 -X main.exitAtStart=broken-build")
	api1, _ := buildPlugin(t, "../../cmd/exampleapi", "")
	api2, api2Sum := buildPlugin(t, "../../cmd/exampleapi", "-X main.version=0.2.0")
	hotID, err := ids.FromName("hotvm")
	if err != nil {
		t.Fatal(err)
	}

	pluginDir := t.TempDir()
	n := nodetest.Start(t, nodetest.Options{
		PluginDir: pluginDir,
		Args:      []string{"--api-admin-enabled=true"},
		Config:    "chains: [{alias: hot, vm: hotvm, genesis: {}}]\nmodules: [{name: exampleapi}]\n",
	})
	ctx := context.Background()
	// A module that waits for its plugin and whose config names no
	// prefixes has no route yet; its health says so.
	if status, body := restGet(t, ctx, n.URL+exampleapi.Prefix+"/chains"); status != http.StatusNotFound {
		t.Errorf("GET %s/chains before the plugin is installed = %d %s, want 404", exampleapi.Prefix, status, body)
	}
	if _, body := restGet(t, ctx, n.URL+"/ext/health"); !strings.Contains(string(body), "its config names no prefixes, so its paths answer 404 until then") {
		t.Errorf("health of a module waiting for its plugin: %s", body)
	}
	installPlugin(t, vm1, pluginDir, "hotvm")
	installPlugin(t, api1, pluginDir, exampleapi.Name)
	want := map[string][]string{hotID.String(): {"hotvm", "hotkv"}, exampleapi.Name: {exampleapi.Name}}
	if got := loadVMs(t, n); !equalVMs(got.NewVMs, want) || len(got.FailedVMs) != 0 {
		t.Fatalf("admin.loadVMs = %+v, want newVMs %v", got, want)
	}
	var r putReply
	if err := n.Call(ctx, "/ext/bc/hot/rpc", "kv.put", map[string]string{"key": "k", "value": "v1"}, &r); err != nil {
		t.Fatalf("kv.put: %v", err)
	}
	if v := vmVersion(t, n, "hotvm"); v != "0.0.1" {
		t.Errorf("vmVersions.hotvm = %q before the upgrade, want 0.0.1", v)
	}
	runsDigest(t, n, "hotvm", vm1Sum)
	if got := loadVMs(t, n); len(got.NewVMs) != 0 || len(got.FailedVMs) != 0 {
		t.Errorf("admin.loadVMs with nothing changed = %+v", got)
	}

	// The VM's file is rewritten in place, the module's replaced by a
	// rename.
	copyOver(t, vm2, filepath.Join(pluginDir, "hotvm"))
	installPlugin(t, api2, pluginDir, exampleapi.Name)
	if got := loadVMs(t, n); !equalVMs(got.NewVMs, want) || len(got.FailedVMs) != 0 {
		t.Fatalf("admin.loadVMs after the upgrade = %+v, want newVMs %v", got, want)
	}
	if v := vmVersion(t, n, "hotvm"); v != "0.0.2" {
		t.Errorf("vmVersions.hotvm = %q after the upgrade, want 0.0.2", v)
	}
	vmPID := runsDigest(t, n, "hotvm", vm2Sum)
	runsDigest(t, n, exampleapi.Name, api2Sum)
	runAdmin(t, n, []adminCase{
		{path: "/ext/bc/hot/rpc", method: "kv.get", params: map[string]string{"key": "k"}, result: `{"value":"v1"}`},
	})
	if err := n.Call(ctx, "/ext/bc/hot/rpc", "kv.put", map[string]string{"key": "k2", "value": "v2"}, &r); err != nil || r.Height != 1 {
		t.Errorf("kv.put after the upgrade = %+v, %v; want height 1, over the state before", r, err)
	}
	if status, body := restGet(t, ctx, n.URL+exampleapi.Prefix+"/chains"); status != 200 || !strings.Contains(string(body), `"name":"hot"`) {
		t.Errorf("GET %s/chains after the upgrade = %d %s", exampleapi.Prefix, status, body)
	}
	cache, err := os.ReadDir(filepath.Join(n.DataDir, "plugin-cache"))
	if err != nil || len(cache) != 2 {
		t.Errorf("plugin cache holds %v (%v), want the two builds that run", cache, err)
	}

	// A build that exits as soon as it starts is not upgraded to: the
	// chain runs on the build before, on this call and the next.
	installPlugin(t, vmBad, pluginDir, "hotvm")
	for i := range 2 {
		got := loadVMs(t, n)
		if len(got.NewVMs) != 0 || !strings.Contains(got.FailedVMs["hotvm"], "not upgraded: version 0.0.3") ||
			!strings.Contains(got.FailedVMs["hotvm"], "version 0.0.2 (sha256 "+vm2Sum+") runs on") {
			t.Errorf("admin.loadVMs %d with a build that fails to start = %+v", i, got)
		}
	}
	if pid := runsDigest(t, n, "hotvm", vm2Sum); pid == vmPID {
		t.Errorf("the chain was not restarted on the build before (pid %d)", pid)
	} else {
		vmPID = pid
	}
	if v := vmVersion(t, n, "hotvm"); v != "0.0.2" {
		t.Errorf("vmVersions.hotvm = %q after a failed upgrade, want 0.0.2", v)
	}
	runAdmin(t, n, []adminCase{
		{path: "/ext/bc/hot/rpc", method: "kv.get", params: map[string]string{"key": "k2"}, result: `{"value":"v2"}`},
	})

	// Replaced without admin.loadVMs, then killed: the plugin restarts on
	// the bytes registered.
	copyOver(t, vm1, filepath.Join(pluginDir, "hotvm"))
	if err := syscall.Kill(vmPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	n.WaitNewPlugin(t, "hotvm", vmPID)
	plugintest.Eventually(t, 30*time.Second, func() error {
		var got map[string]string
		if err := n.Call(ctx, "/ext/bc/hot/rpc", "kv.get", map[string]string{"key": "k"}, &got); err != nil || got["value"] != "v1" {
			return fmt.Errorf("kv.get after the crash = %v, %v", got, err)
		}
		return nil
	})
	runsDigest(t, n, "hotvm", vm2Sum)
	if v := vmVersion(t, n, "hotvm"); v != "0.0.2" {
		t.Errorf("vmVersions.hotvm = %q after a crash, want 0.0.2", v)
	}
}

// TestPluginUpgradePinned: a pinned VM (plugin-sha256) whose binary is
// replaced by one that does not match its pin is not upgraded: the answer
// says why, the pinned build serves on.
func TestPluginUpgradePinned(t *testing.T) {
	t.Parallel()
	vm1, vm1Sum := buildPlugin(t, "./testdata/hotvm", "")
	vm2, vm2Sum := buildPlugin(t, "./testdata/hotvm", "-X main.version=0.0.2")
	pluginDir := t.TempDir()
	installPlugin(t, vm1, pluginDir, "hotvm")
	n := nodetest.Start(t, nodetest.Options{
		PluginDir: pluginDir,
		Args:      []string{"--api-admin-enabled=true"},
		Config:    "chains: [{alias: hot, vm: hotvm, genesis: {}}]\nmodules: []\nplugin-sha256: {hotvm: " + vm1Sum + "}\n",
	})
	n.WaitHealthy(t)
	pid := runsDigest(t, n, "hotvm", vm1Sum)
	copyOver(t, vm2, filepath.Join(pluginDir, "hotvm"))
	got := loadVMs(t, n)
	if len(got.NewVMs) != 0 || !strings.Contains(got.FailedVMs["hotvm"], "not upgraded: the registered build (sha256 "+vm1Sum+") runs on") ||
		!strings.Contains(got.FailedVMs["hotvm"], "has sha256 "+vm2Sum+", pinned "+vm1Sum) {
		t.Errorf("admin.loadVMs with a build that does not match its pin = %+v", got)
	}
	if now := runsDigest(t, n, "hotvm", vm1Sum); now != pid {
		t.Errorf("the pinned chain was restarted: pid %d, was %d", now, pid)
	}
	if v := vmVersion(t, n, "hotvm"); v != "0.0.1" {
		t.Errorf("vmVersions.hotvm = %q, want 0.0.1", v)
	}
}
