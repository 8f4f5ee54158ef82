package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
)

// fakeDir makes a plugin directory holding files named as descs' keys
// and a subdirectory, and a catalog of it whose describe answers from
// descs (a missing entry fails) and counts its calls per file.
func fakeDir(t *testing.T, descs map[string]pluginv1.Description) (*Catalog, map[string]int) {
	t.Helper()
	dir := t.TempDir()
	for name := range descs {
		writePlugin(t, filepath.Join(dir, name), name)
	}
	writePlugin(t, filepath.Join(dir, "broken"), "broken")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	c := New(dir, filepath.Join(t.TempDir(), "cache"))
	c.describe = func(_ context.Context, path string) (pluginv1.Description, error) {
		name := fileName(t, path)
		calls[name]++
		d, ok := descs[name]
		if !ok {
			return pluginv1.Description{}, errors.New("not a plugin: it does not answer describe")
		}
		return d, nil
	}
	return c, calls
}

// writePlugin writes a fake plugin binary at path whose bytes say name.
func writePlugin(t *testing.T, path, name string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/false\n# "+name+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fileName is the name a fake plugin binary says, wherever it was
// copied: the catalog runs the copies of its cache.
func fileName(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, name, _ := strings.Cut(strings.TrimSpace(string(b)), "# ")
	return name
}

// TestCatalogScan: a scan registers each VM under its name, aliases and
// ID and each module under its name, aliases and file name; refuses a
// second plugin claiming a name, a kind it does not know and a binary
// that does not describe itself, saying why by file name; skips
// directories; and a later scan describes only what it has not
// registered, so a failed binary is tried again.
func TestCatalogScan(t *testing.T) {
	c, calls := fakeDir(t, map[string]pluginv1.Description{
		"evm":       {Kind: pluginv1.KindVM, Name: "evm", Aliases: []string{"coreth"}},
		"avm":       {Kind: pluginv1.KindVM, Name: "avm"},
		"evm-copy":  {Kind: pluginv1.KindVM, Name: "other", Aliases: []string{"coreth"}},
		"dataapi":   {Kind: pluginv1.KindModule, Name: "data"},
		"dataapi-2": {Kind: pluginv1.KindModule, Name: "data"},
		"odd":       {Kind: "widget", Name: "odd"},
	})
	ctx := context.Background()
	scan, err := c.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var vms, modules []string
	for _, v := range scan.VMs {
		vms = append(vms, filepath.Base(v.Path))
	}
	for _, m := range scan.Modules {
		modules = append(modules, filepath.Base(m.Path))
	}
	// The directory is read in file name order: of two files claiming one
	// name, the first registers and the second is refused.
	if !slices.Equal(vms, []string{"avm", "evm"}) || !slices.Equal(modules, []string{"dataapi"}) {
		t.Fatalf("registered VMs %v, modules %v", vms, modules)
	}
	wantFailed := map[string]string{
		"evm-copy":  `VM name "coreth" is already used by`,
		"odd":       `plugin kind "widget"`,
		"broken":    "does not answer describe",
		"dataapi-2": `module name "data" is already used by`,
	}
	if len(scan.Failed) != len(wantFailed) {
		t.Errorf("failed %v, want %d files", scan.Failed, len(wantFailed))
	}
	for name, want := range wantFailed {
		if err := scan.Failed[name]; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("failed[%s] = %v, want %q", name, err, want)
		}
	}

	evm, ok := c.LookupVM("evm")
	if !ok {
		t.Fatal("no VM evm")
	}
	id, err := ids.FromName("evm")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"coreth", id.String()} {
		if got, ok := c.LookupVM(name); !ok || got != evm {
			t.Errorf("LookupVM(%s) = %v, %v; want the evm VM", name, got, ok)
		}
	}
	if evm.ID != id {
		t.Errorf("evm's ID %s, want %s", evm.ID, id)
	}
	if _, ok := c.LookupVM("other"); ok {
		t.Error("the refused VM is registered")
	}
	if m, ok := c.LookupModule("dataapi"); !ok || m.Desc.Name != "data" {
		t.Errorf("LookupModule by file name = %v, %v", m, ok)
	}
	if m, ok := c.LookupModule("data"); !ok || filepath.Base(m.Path) != "dataapi" {
		t.Errorf("LookupModule(data) = %v, %v", m, ok)
	}
	if got := c.VMs(); len(got) != 2 || got[0].Desc.Name != "avm" || got[1].Desc.Name != "evm" {
		t.Errorf("VMs() = %v, want avm then evm", got)
	}

	again, err := c.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.VMs) != 0 || len(again.Modules) != 0 {
		t.Errorf("a second scan registered %v %v again", again.VMs, again.Modules)
	}
	for name, n := range calls {
		want := 1
		if _, failed := wantFailed[name]; failed {
			want = 2
		}
		if n != want {
			t.Errorf("%s described %d times over two scans, want %d", name, n, want)
		}
	}
	if calls["sub"] != 0 {
		t.Error("a directory was described")
	}
}

// TestCatalogMissingDir: a plugin directory that does not exist is an
// error naming it.
func TestCatalogMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	if _, err := New(dir, t.TempDir()).Scan(context.Background()); err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("scan of a missing dir: %v", err)
	}
}

// TestCatalogRPCChainVM: a binary named by a CB58 VM ID is an avalanchego
// VM plugin, registered once its handshake (probe) succeeds, under its ID
// and its aliases from vm-aliases, which admin.loadVMs lists alone; a
// failed handshake is reported by file name with its reason, and tried
// again at the next scan. Other binaries are described as ever.
func TestCatalogRPCChainVM(t *testing.T) {
	const sevm, xsvm = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy", "v3m4wPxaHpvGr8qfMeyK6PRW3idZrPHmYcMTt7oXdK47yurVH"
	c, calls := fakeDir(t, map[string]pluginv1.Description{
		"evm": {Kind: pluginv1.KindVM, Name: "evm"},
		sevm:  {}, xsvm: {}, // files only: never described
	})
	mismatch := errors.New("handshake failed: protocol version mismatch")
	probed := map[string]int{}
	c.WithRPCChainVM(map[string][]string{sevm: {"subnetevm", "sevm"}}, func(_ context.Context, path string) error {
		probed[fileName(t, path)]++
		if fileName(t, path) == xsvm {
			return mismatch
		}
		return nil
	})
	scan, err := c.Scan(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(scan.Failed[xsvm], mismatch) {
		t.Errorf("failed %v, want %s with the handshake's error", scan.Failed, xsvm)
	}
	if calls[sevm]+calls[xsvm] != 0 || calls["evm"] != 1 {
		t.Errorf("describe calls %v: want the evm binary described, the VM-ID-named ones probed instead", calls)
	}
	for _, name := range []string{sevm, "subnetevm", "sevm"} {
		vm, ok := c.LookupVM(name)
		if !ok || vm.ID.String() != sevm || !vm.RPCChainVM {
			t.Fatalf("LookupVM(%q) = %+v, %v; want the subnet-evm plugin", name, vm, ok)
		}
		if got := vm.Aliases(); !slices.Equal(got, []string{"subnetevm", "sevm"}) {
			t.Errorf("aliases = %q, want its vm-aliases alone", got)
		}
	}
	if _, err := c.Scan(t.Context()); err != nil || probed[sevm] != 1 || probed[xsvm] != 2 {
		t.Errorf("second scan: probes %v (%v); want the registered plugin left alone and the failed one tried again", probed, err)
	}
}

// TestCatalogUpgrade: a registered binary whose bytes changed is offered
// as an upgrade, registered only once committed, and run from the copy of
// its new bytes; a new build that is another plugin, or does not match its
// pin, is refused saying why, unrun when its pin fails; a rejected build
// is reported again, undescribed, until the file changes; Prune keeps the
// copies registered plugins run.
func TestCatalogUpgrade(t *testing.T) {
	c, calls := fakeDir(t, map[string]pluginv1.Description{
		"kv":        {Kind: pluginv1.KindVM, Name: "kv", Version: "1", Aliases: []string{"k"}},
		"api":       {Kind: pluginv1.KindModule, Name: "api", Version: "1", Prefixes: []string{"/v1/api"}},
		"kv-2":      {Kind: pluginv1.KindVM, Name: "kv", Version: "2", Aliases: []string{"k", "kv2"}},
		"kv-3":      {Kind: pluginv1.KindVM, Name: "kv", Version: "3"},
		"kv-pinned": {Kind: pluginv1.KindVM, Name: "kv", Version: "4"},
		"other":     {Kind: pluginv1.KindVM, Name: "other"},
		"other-id":  {Kind: pluginv1.KindVM, Name: "kv", VMID: "mgvRGYcqHWkfMJyGmDN9Yr4TpAVg8NysTN4bPeynasWFTYKnF"},
		"kv-module": {Kind: pluginv1.KindModule, Name: "kv"},
		"api-moved": {Kind: pluginv1.KindModule, Name: "api", Prefixes: []string{"/v2/api"}},
		"api-2":     {Kind: pluginv1.KindModule, Name: "api", Version: "2", Prefixes: []string{"/v1/api"}},
	})
	dir := c.Dir()
	for _, name := range []string{"kv-2", "kv-3", "kv-pinned", "other", "other-id", "kv-module", "api-moved", "api-2", "broken"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := t.Context()
	if scan, err := c.Scan(ctx); err != nil || len(scan.VMs) != 1 || len(scan.Modules) != 1 {
		t.Fatalf("first scan = %+v, %v", scan, err)
	}
	old, _ := c.LookupVM("kv")
	oldAPI, _ := c.LookupModule("api")
	kvPath := filepath.Join(dir, "kv")

	// Another plugin in the VM's file, then a pin the new bytes miss.
	for _, tt := range []struct{ file, content, want string }{
		{"kv", "other", `the new binary is VM "other"`},
		{"kv", "other-id", `an upgrade keeps the VM's name and ID`},
		{"kv", "kv-module", "the new binary is a module plugin, the registered one a vm plugin"},
		{"api", "api-moved", "the node routes a module's prefixes once"},
		{"api", "kv", "the new binary is a vm plugin, the registered one a module plugin"},
	} {
		writePlugin(t, filepath.Join(dir, tt.file), tt.content)
		scan, err := c.Scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := scan.Failed[tt.file]
		if got == nil || !strings.Contains(got.Error(), tt.want) || !strings.Contains(got.Error(), "not upgraded: the registered build (sha256 ") ||
			len(scan.VMUpgrades)+len(scan.ModuleUpgrades) != 0 {
			t.Errorf("%s replaced by %s: failed %v, upgrades %v %v; want %q", tt.file, tt.content, scan.Failed, scan.VMUpgrades, scan.ModuleUpgrades, tt.want)
		}
	}
	writePlugin(t, filepath.Join(dir, "api"), "api")
	pinned := sha256.Sum256([]byte("something else"))
	c.WithPins(func(path string) ([]byte, error) {
		if path == kvPath {
			return pinned[:], nil
		}
		return nil, nil
	})
	writePlugin(t, kvPath, "kv-pinned")
	scan, err := c.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := scan.Failed["kv"]; got == nil || !errors.Is(got, pluginhost.ErrChecksumMismatch) || !strings.Contains(got.Error(), kvPath+" has sha256 ") {
		t.Errorf("a build that misses its pin: %v", got)
	}
	if calls["kv-pinned"] != 0 {
		t.Error("a build that misses its pin was described")
	}
	c.WithPins(nil)

	// A good build: offered, registered once committed, then rejected
	// builds are reported without being described again.
	writePlugin(t, kvPath, "kv-2")
	scan, err = c.Scan(ctx)
	if err != nil || len(scan.Failed) != 0 || len(scan.VMUpgrades) != 1 {
		t.Fatalf("scan of a new build = %+v, %v", scan, err)
	}
	u := scan.VMUpgrades[0]
	if u.Old != old || u.New.Desc.Version != "2" || u.New.Exec == old.Exec || fileName(t, u.New.Exec) != "kv-2" || u.New.SHA256 != sha256Hex(t, kvPath) {
		t.Errorf("upgrade %+v -> %+v", u.Old, u.New)
	}
	if got, _ := c.LookupVM("kv"); got != old {
		t.Error("an upgrade not committed is registered")
	}
	c.CommitVM(u)
	for _, name := range []string{"kv", "k", "kv2", old.ID.String()} {
		if got, _ := c.LookupVM(name); got != u.New {
			t.Errorf("LookupVM(%s) after the commit = %+v", name, got)
		}
	}
	if vms := c.VMs(); len(vms) != 1 || vms[0] != u.New {
		t.Errorf("VMs() after the commit = %v", vms)
	}
	if err := c.Prune(); err != nil {
		t.Fatal(err)
	}
	cached, err := os.ReadDir(filepath.Dir(u.New.Exec))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range cached {
		names = append(names, e.Name())
	}
	if want := []string{oldAPI.SHA256, u.New.SHA256}; !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(want))) {
		t.Errorf("plugin cache after Prune = %v, want the copies run %v", names, want)
	}

	writePlugin(t, kvPath, "kv-3")
	scan, err = c.Scan(ctx)
	if err != nil || len(scan.VMUpgrades) != 1 {
		t.Fatalf("scan of a third build = %+v, %v", scan, err)
	}
	why := errors.New("it exits at once")
	c.Reject(scan.VMUpgrades[0].New.Binary, why)
	if again, err := c.Scan(ctx); err != nil || again.Failed["kv"] != why || len(again.VMUpgrades) != 0 || calls["kv-3"] != 1 {
		t.Errorf("scan after a rejection = %+v, %v; described %d times", again, err, calls["kv-3"])
	}
	writePlugin(t, filepath.Join(dir, "api"), "api-2")
	if scan, err := c.Scan(ctx); err != nil || len(scan.ModuleUpgrades) != 1 || scan.ModuleUpgrades[0].Old != oldAPI {
		t.Errorf("scan of a module's new build = %+v, %v", scan, err)
	} else {
		c.CommitModule(scan.ModuleUpgrades[0])
		if m, _ := c.LookupModule("api"); m.Desc.Version != "2" {
			t.Errorf("module after the commit = %+v", m)
		}
	}
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
