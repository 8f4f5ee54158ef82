// Package vms is the registry of VM plugins installed in the plugin
// directory. A binary is registered once `describe` says it is a VM; a
// binary that failed is tried again on the next scan.
package vms

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
}

// Names returns the names a chain config may use for the VM: its name, its
// aliases and its CB58 ID.
func (v *VM) Names() []string {
	return append(append([]string{v.Desc.Name}, v.Desc.Aliases...), v.ID.String())
}

// Registry holds the installed VMs. It is safe for concurrent use.
type Registry struct {
	dir      string
	describe func(ctx context.Context, path string) (pluginv1.Description, error)

	mu     sync.RWMutex
	byPath map[string]*VM
	byName map[string]*VM
}

// New returns an empty registry of the plugins in dir.
func New(dir string) *Registry {
	return &Registry{dir: dir, describe: pluginhost.Describe, byPath: map[string]*VM{}, byName: map[string]*VM{}}
}

// Dir is the plugin directory.
func (r *Registry) Dir() string { return r.dir }

// Scan describes every executable in the plugin directory that is not yet
// registered and registers the VMs among them. It returns the new VMs and,
// by file name, the binaries that failed with why. Modules are skipped.
func (r *Registry) Scan(ctx context.Context) (added []*VM, failed map[string]error, err error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("read plugin dir %s: %w", r.dir, err)
	}
	failed = map[string]error{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(r.dir, e.Name())
		r.mu.RLock()
		_, known := r.byPath[path]
		r.mu.RUnlock()
		if known {
			continue
		}
		vm, err := r.load(ctx, path)
		if err != nil {
			failed[e.Name()] = err
			continue
		}
		if vm != nil {
			added = append(added, vm)
		}
	}
	return added, failed, nil
}

// load describes one binary and registers it when it is a VM.
func (r *Registry) load(ctx context.Context, path string) (*VM, error) {
	desc, err := r.describe(ctx, path)
	if err != nil {
		return nil, err
	}
	if desc.Kind != pluginv1.KindVM {
		return nil, nil
	}
	id, err := ids.FromName(desc.Name)
	if err != nil {
		return nil, fmt.Errorf("VM name %q: %w", desc.Name, err)
	}
	vm := &VM{ID: id, Path: path, Desc: desc}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range vm.Names() {
		if other, ok := r.byName[n]; ok {
			return nil, fmt.Errorf("VM name %q is already used by %s", n, other.Path)
		}
	}
	r.byPath[path] = vm
	for _, n := range vm.Names() {
		r.byName[n] = vm
	}
	return vm, nil
}

// Lookup finds a VM by name, alias or ID.
func (r *Registry) Lookup(name string) (*VM, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	vm, ok := r.byName[name]
	return vm, ok
}

// All returns the registered VMs ordered by name.
func (r *Registry) All() []*VM {
	r.mu.RLock()
	out := make([]*VM, 0, len(r.byPath))
	for _, vm := range r.byPath {
		out = append(out, vm)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Desc.Name < out[j].Desc.Name })
	return out
}
