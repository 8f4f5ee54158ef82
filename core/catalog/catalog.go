// Package catalog is the catalog of the plugins installed in the plugin
// directory: VMs, which chains run, and REST modules. A binary is
// registered once `describe` says what it is; a binary that failed is tried
// again on the next scan.
package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/chainhost/chainhost/core/pluginhost"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
)

// VM is an installed VM plugin.
type VM struct {
	ID   ids.ID
	Path string
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
	Path string
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

// Scan is what a scan of the plugin directory found.
type Scan struct {
	// VMs and Modules are the plugins registered by the scan.
	VMs     []*VM
	Modules []*Module
	// Failed lists, by file name, the binaries that are not usable
	// plugins, with why.
	Failed map[string]error
}

// Catalog holds the installed plugins. It is safe for concurrent use.
type Catalog struct {
	dir      string
	describe func(ctx context.Context, path string) (pluginv1.Description, error)
	// probe runs an avalanchego plugin's runtime handshake; nil: a binary
	// named by a VM ID is described like any other.
	probe     func(ctx context.Context, path string) error
	vmAliases map[string][]string

	mu      sync.RWMutex
	known   map[string]bool // paths registered
	vms     map[string]*VM
	modules map[string]*Module
	vmList  []*VM
}

// New returns an empty catalog of the plugins in dir.
func New(dir string) *Catalog {
	return &Catalog{
		dir: dir, describe: pluginhost.Describe,
		known: map[string]bool{}, vms: map[string]*VM{}, modules: map[string]*Module{},
	}
}

// WithRPCChainVM makes the catalog register avalanchego VM plugins, the
// binaries named by a CB58 VM ID, once probe's handshake succeeds, with
// their aliases from vmAliases (the node config's vm-aliases).
func (c *Catalog) WithRPCChainVM(vmAliases map[string][]string, probe func(ctx context.Context, path string) error) *Catalog {
	c.vmAliases, c.probe = vmAliases, probe
	return c
}

// Dir is the plugin directory.
func (c *Catalog) Dir() string { return c.dir }

// Scan describes every file of the plugin directory that is not yet
// registered and registers the plugins among them.
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
		known := c.known[path]
		c.mu.RUnlock()
		if known {
			continue
		}
		if id, err := ids.FromString(e.Name()); err == nil && c.probe != nil {
			if err := c.probeVM(ctx, path, id, &res); err != nil {
				res.Failed[e.Name()] = err
			}
			continue
		}
		desc, err := c.describe(ctx, path)
		if err == nil {
			err = c.register(path, desc, &res)
		}
		if err != nil {
			res.Failed[e.Name()] = err
		}
	}
	return res, nil
}

// probeVM registers the avalanchego VM plugin at path, named by its VM ID,
// once its runtime handshake succeeds.
func (c *Catalog) probeVM(ctx context.Context, path string, id ids.ID, res *Scan) error {
	if err := c.probe(ctx, path); err != nil {
		return err
	}
	desc := pluginv1.Description{Kind: pluginv1.KindVM, Name: id.String(), VMID: id.String(), Aliases: c.vmAliases[id.String()]}
	c.mu.Lock()
	defer c.mu.Unlock()
	vm := &VM{ID: id, Path: path, Desc: desc, RPCChainVM: true}
	if n, other, taken := claim(c.vms, vm.Names(), vm); taken {
		return fmt.Errorf("VM name %q is already used by %s", n, other.Path)
	}
	c.vmList = append(c.vmList, vm)
	res.VMs = append(res.VMs, vm)
	c.known[path] = true
	return nil
}

// register adds one described binary to the catalog and to res.
func (c *Catalog) register(path string, desc pluginv1.Description, res *Scan) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch desc.Kind {
	case pluginv1.KindVM:
		id, err := vmID(desc)
		if err != nil {
			return err
		}
		vm := &VM{ID: id, Path: path, Desc: desc}
		if n, other, taken := claim(c.vms, vm.Names(), vm); taken {
			return fmt.Errorf("VM name %q is already used by %s", n, other.Path)
		}
		c.vmList = append(c.vmList, vm)
		res.VMs = append(res.VMs, vm)
	case pluginv1.KindModule:
		m := &Module{Path: path, Desc: desc}
		if n, other, taken := claim(c.modules, m.Names(), m); taken {
			return fmt.Errorf("module name %q is already used by %s", n, other.Path)
		}
		res.Modules = append(res.Modules, m)
	default:
		return fmt.Errorf("plugin kind %q", desc.Kind)
	}
	c.known[path] = true
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

// claim files p in byName under each of names, unless one is taken:
// then it files nothing and returns that name and the plugin holding it.
func claim[P any](byName map[string]P, names []string, p P) (string, P, bool) {
	for _, n := range names {
		if other, ok := byName[n]; ok {
			return n, other, true
		}
	}
	for _, n := range names {
		byName[n] = p
	}
	var none P
	return "", none, false
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
