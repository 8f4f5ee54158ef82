package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
