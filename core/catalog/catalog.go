// Package catalog is the catalog of the plugins installed in the plugin
// directory: VMs, which chains run, and REST modules. A binary is
// registered once `describe` says what it is; a binary that failed is tried
// again on the next scan. The host runs exactly the bytes it registered:
// each registered binary is copied into the plugin cache under its sha256,
// and launched from there; a scan that finds a registered binary's bytes
// changed offers them as an upgrade (docs/plugins.md, "Upgrades in place").
package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Binary is the registered bytes of a plugin binary.
type Binary struct {
	// Path is the file in the plugin directory.
	Path string
	// SHA256 is the hex sha256 of the bytes registered.
	SHA256 string
	// Exec is their copy in the plugin cache, which the host launches.
	Exec string
}

// VM is an installed VM plugin.
type VM struct {
	Binary
	ID   ids.ID
	Desc pluginv1.Description
	// RPCChainVM marks an avalanchego VM plugin (docs/rpcchainvm.md): its
	// Desc holds only its name, its VM ID, and its aliases from vm-aliases.
	RPCChainVM bool
}

// Names returns the names a chain config may use for the VM: its name, its
// aliases and its CB58 ID.
func (v *VM) Names() []string {
	names := append([]string{v.Desc.Name}, v.Desc.Aliases...)
	if v.Desc.Name != v.ID.String() {
		names = append(names, v.ID.String())
	}
	return names
}

// Aliases are the names admin.loadVMs lists for the VM: its name and
// aliases, or an avalanchego plugin's aliases alone, as avalanchego lists
// them.
func (v *VM) Aliases() []string {
	if v.RPCChainVM {
		return append([]string{}, v.Desc.Aliases...)
	}
	return append([]string{v.Desc.Name}, v.Desc.Aliases...)
}

// Module is an installed REST module plugin.
type Module struct {
	Binary
	Desc pluginv1.Description
}

// Names returns the names a module config may use for the plugin: its
// name, its aliases and its file name.
func (m *Module) Names() []string {
	names := append([]string{m.Desc.Name}, m.Desc.Aliases...)
	if base := filepath.Base(m.Path); base != m.Desc.Name {
		names = append(names, base)
	}
	return names
}

// Upgrade is a registered plugin whose binary changed: Old runs, New is
// the new build, described and copied into the cache but not registered
// until Commit.
type Upgrade[P interface{ *VM | *Module }] struct {
	Old, New P
}

// Scan is what a scan of the plugin directory found.
type Scan struct {
	// VMs and Modules are the plugins registered by the scan.
	VMs     []*VM
	Modules []*Module
	// VMUpgrades and ModuleUpgrades are the registered plugins whose
	// binary changed; each is committed or rejected by the caller.
	VMUpgrades     []Upgrade[*VM]
	ModuleUpgrades []Upgrade[*Module]
	// Failed lists, by file name, the binaries that are not usable
	// plugins, with why.
	Failed map[string]error
}

// registration is what the catalog registered for a file of the plugin
// directory: a VM or a module.
type registration struct {
	vm     *VM
	module *Module
}

// binary returns the registered bytes.
func (r registration) binary() Binary {
	if r.vm != nil {
		return r.vm.Binary
	}
	return r.module.Binary
}

// rejection is an upgrade that failed to start: the bytes and why.
type rejection struct {
	sha256 string
	err    error
}

// Catalog holds the installed plugins. It is safe for concurrent use.
type Catalog struct {
	dir, cache string
	describe   func(ctx context.Context, path string) (pluginv1.Description, error)
	// probe runs an avalanchego plugin's runtime handshake; nil: a binary
	// named by a VM ID is described like any other.
	probe     func(ctx context.Context, path string) error
	vmAliases map[string][]string
	// pin returns the sha256 a binary of the plugin dir must have (the
	// config's plugin-sha256), nil when it has none.
	pin func(path string) ([]byte, error)

	mu         sync.RWMutex
	registered map[string]registration // by path
	rejected   map[string]rejection    // by path
	vms        map[string]*VM
	modules    map[string]*Module
	vmList     []*VM
}

// New returns an empty catalog of the plugins in dir, which keeps the
// copies it runs in cache (made when needed).
func New(dir, cache string) *Catalog {
	return &Catalog{
		dir: dir, cache: cache, describe: pluginhost.Describe,
		registered: map[string]registration{}, rejected: map[string]rejection{},
		vms: map[string]*VM{}, modules: map[string]*Module{},
	}
}

// WithRPCChainVM makes the catalog register avalanchego VM plugins, the
// binaries named by a CB58 VM ID, once probe's handshake succeeds, with
// their aliases from vmAliases (the node config's vm-aliases).
func (c *Catalog) WithRPCChainVM(vmAliases map[string][]string, probe func(ctx context.Context, path string) error) *Catalog {
	c.vmAliases, c.probe = vmAliases, probe
	return c
}

// WithPins makes the catalog refuse a binary whose sha256 differs from
// pin's answer for it (see load).
func (c *Catalog) WithPins(pin func(path string) ([]byte, error)) *Catalog {
	c.pin = pin
	return c
}

// Dir is the plugin directory.
func (c *Catalog) Dir() string { return c.dir }

// Scan describes every file of the plugin directory that is not yet
// registered and registers the plugins among them, and offers those
// registered whose bytes changed as upgrades.
func (c *Catalog) Scan(ctx context.Context) (Scan, error) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return Scan{}, fmt.Errorf("read plugin dir %s: %w", c.dir, err)
	}
	res := Scan{Failed: map[string]error{}}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(c.dir, e.Name())
		c.mu.RLock()
		reg, known := c.registered[path]
		rej := c.rejected[path]
		c.mu.RUnlock()
		if known {
			sum, err := fileSHA256(path)
			switch {
			case err != nil:
				res.Failed[e.Name()] = err
			case sum == reg.binary().SHA256:
			case sum == rej.sha256:
				res.Failed[e.Name()] = rej.err
			default:
				if err := c.offer(ctx, path, reg, &res); err != nil {
					res.Failed[e.Name()] = fmt.Errorf("not upgraded: the registered build (sha256 %s) runs on: %w", reg.binary().SHA256, err)
				}
			}
			continue
		}
		if err := c.add(ctx, path, &res); err != nil {
			res.Failed[e.Name()] = err
		}
	}
	return res, nil
}

// load copies the binary at path into the cache and says what it is: a
// chainhost plugin's describe, or an avalanchego plugin's description once
// its handshake succeeded. The pin of an upgrade, or of an avalanchego
// plugin, is checked before the copy runs; a new chainhost plugin's is
// checked when its chain or module starts, which then says why it does not
// run.
func (c *Catalog) load(ctx context.Context, path string, upgrade bool) (Binary, pluginv1.Description, error) {
	bin, err := c.store(path)
	if err != nil {
		return Binary{}, pluginv1.Description{}, err
	}
	avalanche := c.isRPCChainVM(path)
	if c.pin != nil && (upgrade || avalanche) {
		pin, err := c.pin(path)
		if err != nil {
			return Binary{}, pluginv1.Description{}, err
		}
		if pin != nil {
			if err := pluginhost.CheckPin(bin.Exec, path, pin); err != nil {
				return Binary{}, pluginv1.Description{}, err
			}
		}
	}
	if avalanche {
		if err := c.probe(ctx, bin.Exec); err != nil {
			return Binary{}, pluginv1.Description{}, err
		}
		id := filepath.Base(path)
		return bin, pluginv1.Description{Kind: pluginv1.KindVM, Name: id, VMID: id, Aliases: c.vmAliases[id]}, nil
	}
	desc, err := c.describe(ctx, bin.Exec)
	return bin, desc, err
}

// isRPCChainVM reports whether the binary at path is an avalanchego VM
// plugin: named by a CB58 VM ID, in a catalog that probes them.
func (c *Catalog) isRPCChainVM(path string) bool {
	_, err := ids.FromString(filepath.Base(path))
	return err == nil && c.probe != nil
}

// add registers the binary at path, not registered yet.
func (c *Catalog) add(ctx context.Context, path string, res *Scan) error {
	bin, desc, err := c.load(ctx, path, false)
	if err != nil {
		return err
	}
	reg, err := c.entry(bin, desc)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if reg.vm != nil {
		if n, other, taken := claim(c.vms, reg.vm.Names(), reg.vm, nil); taken {
			return fmt.Errorf("VM name %q is already used by %s", n, other.Path)
		}
		c.vmList = append(c.vmList, reg.vm)
		res.VMs = append(res.VMs, reg.vm)
	} else {
		if n, other, taken := claim(c.modules, reg.module.Names(), reg.module, nil); taken {
			return fmt.Errorf("module name %q is already used by %s", n, other.Path)
		}
		res.Modules = append(res.Modules, reg.module)
	}
	c.registered[path] = reg
	return nil
}

// entry makes the VM or module of a described binary.
func (c *Catalog) entry(bin Binary, desc pluginv1.Description) (registration, error) {
	switch desc.Kind {
	case pluginv1.KindVM:
		id, err := vmID(desc)
		if err != nil {
			return registration{}, err
		}
		return registration{vm: &VM{Binary: bin, ID: id, Desc: desc, RPCChainVM: c.isRPCChainVM(bin.Path)}}, nil
	case pluginv1.KindModule:
		return registration{module: &Module{Binary: bin, Desc: desc}}, nil
	}
	return registration{}, fmt.Errorf("plugin kind %q", desc.Kind)
}

// offer adds to res the upgrade of the plugin registered for path to the
// binary there now, which must be the same plugin: same kind, name and VM
// ID, a module with the same routes.
func (c *Catalog) offer(ctx context.Context, path string, old registration, res *Scan) error {
	bin, desc, err := c.load(ctx, path, true)
	if err != nil {
		return err
	}
	reg, err := c.entry(bin, desc)
	if err != nil {
		return err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch {
	case old.vm != nil && reg.vm != nil:
		if reg.vm.ID != old.vm.ID || reg.vm.Desc.Name != old.vm.Desc.Name {
			return fmt.Errorf("the new binary is VM %q (%s), the registered one VM %q (%s): an upgrade keeps the VM's name and ID",
				reg.vm.Desc.Name, reg.vm.ID, old.vm.Desc.Name, old.vm.ID)
		}
		if n, other, taken := claim(c.vms, reg.vm.Names(), nil, old.vm); taken {
			return fmt.Errorf("VM name %q is already used by %s", n, other.Path)
		}
		res.VMUpgrades = append(res.VMUpgrades, Upgrade[*VM]{Old: old.vm, New: reg.vm})
	case old.module != nil && reg.module != nil:
		o, n := old.module.Desc, reg.module.Desc
		if n.Name != o.Name {
			return fmt.Errorf("the new binary is module %q, the registered one module %q: an upgrade keeps the module's name", n.Name, o.Name)
		}
		if !slices.Equal(n.Prefixes, o.Prefixes) || n.Home != o.Home {
			return fmt.Errorf("module %q declares prefixes %v (home %t), the registered build %v (home %t): the node routes a module's prefixes once; restart the node to route new ones",
				n.Name, n.Prefixes, n.Home, o.Prefixes, o.Home)
		}
		if name, other, taken := claim(c.modules, reg.module.Names(), nil, old.module); taken {
			return fmt.Errorf("module name %q is already used by %s", name, other.Path)
		}
		res.ModuleUpgrades = append(res.ModuleUpgrades, Upgrade[*Module]{Old: old.module, New: reg.module})
	default:
		return fmt.Errorf("the new binary is a %s plugin, the registered one a %s plugin: an upgrade keeps the kind", desc.Kind, kindOf(old))
	}
	return nil
}

// kindOf is the kind of a registration.
func kindOf(r registration) string {
	if r.vm != nil {
		return pluginv1.KindVM
	}
	return pluginv1.KindModule
}

// CommitVM registers u.New in place of u.Old, once the chains that ran the
// old build run the new one.
func (c *Catalog) CommitVM(u Upgrade[*VM]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	release(c.vms, u.Old)
	claim(c.vms, u.New.Names(), u.New, nil)
	c.vmList[slices.Index(c.vmList, u.Old)] = u.New
	c.registered[u.New.Path] = registration{vm: u.New}
	delete(c.rejected, u.New.Path)
}

// CommitModule registers u.New in place of u.Old, once the modules that
// ran the old build run the new one.
func (c *Catalog) CommitModule(u Upgrade[*Module]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	release(c.modules, u.Old)
	claim(c.modules, u.New.Names(), u.New, nil)
	c.registered[u.New.Path] = registration{module: u.New}
	delete(c.rejected, u.New.Path)
}

// Reject records that the binary bin failed to start as an upgrade, for
// why: later scans report why again, without trying the same bytes, until
// the file changes.
func (c *Catalog) Reject(bin Binary, why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rejected[bin.Path] = rejection{sha256: bin.SHA256, err: why}
}

// Prune removes the copies of the cache that no registered plugin runs:
// call it when no upgrade is pending.
func (c *Catalog) Prune() error {
	entries, err := os.ReadDir(c.cache)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("read plugin cache: %w", err)
	}
	c.mu.RLock()
	used := map[string]bool{}
	for _, reg := range c.registered {
		used[reg.binary().SHA256] = true
	}
	c.mu.RUnlock()
	var errs []error
	for _, e := range entries {
		if !used[e.Name()] {
			if err := os.RemoveAll(filepath.Join(c.cache, e.Name())); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("prune plugin cache: %v", errs)
	}
	return nil
}

// vmID is the ID a VM describes, or, from a plugin that names none, its
// name padded to 32 bytes.
func vmID(desc pluginv1.Description) (ids.ID, error) {
	if desc.VMID == "" {
		id, err := ids.FromName(desc.Name)
		if err != nil {
			return ids.ID{}, fmt.Errorf("VM name %q: %w", desc.Name, err)
		}
		return id, nil
	}
	id, err := ids.FromString(desc.VMID)
	if err != nil {
		return ids.ID{}, fmt.Errorf("VM %q: vmID %q: %w", desc.Name, desc.VMID, err)
	}
	return id, nil
}

// claim files p in byName under each of names, unless one is taken by
// another plugin than self: then it files nothing and returns that name
// and the plugin holding it. A nil p only checks.
func claim[P comparable](byName map[string]P, names []string, p, self P) (string, P, bool) {
	var none P
	for _, n := range names {
		if other, ok := byName[n]; ok && other != self {
			return n, other, true
		}
	}
	if p != none {
		for _, n := range names {
			byName[n] = p
		}
	}
	return "", none, false
}

// release removes p from byName under every name.
func release[P comparable](byName map[string]P, p P) {
	for n, q := range byName {
		if q == p {
			delete(byName, n)
		}
	}
}

// LookupVM finds a VM by name, alias or ID.
func (c *Catalog) LookupVM(name string) (*VM, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	vm, ok := c.vms[name]
	return vm, ok
}

// LookupModule finds a module plugin by name, alias or file name.
func (c *Catalog) LookupModule(name string) (*Module, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m, ok := c.modules[name]
	return m, ok
}

// VMs returns the registered VMs ordered by name.
func (c *Catalog) VMs() []*VM {
	c.mu.RLock()
	out := append([]*VM(nil), c.vmList...)
	c.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Desc.Name < out[j].Desc.Name })
	return out
}
