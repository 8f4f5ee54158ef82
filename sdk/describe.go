package sdk

import (
	"errors"
	"fmt"
	"slices"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/transport/route"
)

// The kinds of plugin, for Description.Kind and Env.Kind.
const (
	KindVM     = pluginv1.KindVM     // a chain VM: each chain is an instance
	KindModule = pluginv1.KindModule // a REST API module
)

// Description tells the host what a plugin binary is; `<binary> describe`
// prints it as JSON.
type Description struct {
	// Kind is KindVM (the default when empty) or KindModule.
	Kind string
	// Name is the VM or module name that chains and config refer to; a VM's
	// ID is derived from it (padded to 32 bytes, as avalanchego does) unless
	// VMID is set.
	Name string
	// VMID, when set, is the VM's ID instead of the one its name gives: a
	// VM known elsewhere by an ID that is not its name padded (avalanchego's
	// platform VM, whose ID is "platformvm" padded). VMs only.
	VMID ids.ID
	// Version is the plugin's own version.
	Version string
	// Aliases are further names of the VM.
	Aliases []string
	// Prefixes are the URL path prefixes a module serves unless its config
	// names others, e.g. "/v1/chains" (docs/modules.md); modules only.
	Prefixes []string
	// Home marks a module that serves pages for people: GET / on the
	// module's listener redirects to its first prefix (docs/modules.md,
	// "Routing"); modules only.
	Home bool
	// MessageArrayPrefixes are the path prefixes under which the module's
	// REST error bodies carry `message` as an array of strings (the
	// metrics v1 style, rest.WriteErrorMessages): the host answers its own
	// errors for the module there in that style too (docs/modules.md,
	// "Error bodies"). Modules only; nil means a string everywhere.
	MessageArrayPrefixes []string
}

// wire returns the protocol's description of d, checking it.
func (d Description) wire() (pluginv1.Description, error) {
	out := pluginv1.Description{
		Kind:      d.Kind,
		Name:      d.Name,
		Version:   d.Version,
		Aliases:   d.Aliases,
		Protocols: []int{pluginv1.ProtocolVersion},
		Prefixes:  d.Prefixes,
		Home:      d.Home,

		MessageArrayPrefixes: d.MessageArrayPrefixes,
	}
	if out.Kind == "" {
		out.Kind = KindVM
	}
	if out.Name == "" {
		return pluginv1.Description{}, errors.New("describe plugin: Description.Name is empty")
	}
	switch out.Kind {
	case KindVM:
		vmID := d.VMID
		if vmID == (ids.ID{}) {
			var err error
			if vmID, err = ids.FromName(out.Name); err != nil {
				return pluginv1.Description{}, fmt.Errorf("describe plugin %q: %w", out.Name, err)
			}
		}
		out.VMID = vmID.String()
		if len(out.Prefixes) > 0 || len(out.MessageArrayPrefixes) > 0 || out.Home {
			return pluginv1.Description{}, fmt.Errorf("describe plugin %q: a VM declares no path prefixes and no home page", out.Name)
		}
	case KindModule:
		if d.VMID != (ids.ID{}) {
			return pluginv1.Description{}, fmt.Errorf("describe plugin %q: a module has no VM ID", out.Name)
		}
		for _, p := range slices.Concat(out.Prefixes, out.MessageArrayPrefixes) {
			if err := route.CheckPrefix(p); err != nil {
				return pluginv1.Description{}, fmt.Errorf("describe plugin %q: %w", out.Name, err)
			}
		}
	default:
		return pluginv1.Description{}, fmt.Errorf("describe plugin %q: kind %q, want %q or %q",
			out.Name, out.Kind, KindVM, KindModule)
	}
	return out, nil
}
