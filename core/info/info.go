// Package info serves the info API at /ext/info.
package info

import (
	"context"

	"github.com/chainhost/chainhost/core/catalog"
	"github.com/chainhost/chainhost/core/chains"
	"github.com/chainhost/chainhost/core/version"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Options configures the service.
type Options struct {
	NetworkID uint32
	Chains    *chains.Manager
	Plugins   *catalog.Catalog
	RPC       jsonrpc.Options
}

// nodeVersion is the result of info.getNodeVersion.
type nodeVersion struct {
	Version            string            `json:"version"`
	RPCProtocolVersion jsonrpc.Uint64    `json:"rpcProtocolVersion"`
	VMVersions         map[string]string `json:"vmVersions"`
}

// NewService returns the info JSON-RPC server.
func NewService(o Options) *jsonrpc.Server {
	s := jsonrpc.NewServer(o.RPC)
	s.Register("info.getNodeVersion", jsonrpc.Method(func(context.Context, struct{}) (nodeVersion, error) {
		v := nodeVersion{Version: version.Version, RPCProtocolVersion: pluginv1.ProtocolVersion, VMVersions: map[string]string{}}
		for _, vm := range o.Plugins.VMs() {
			v.VMVersions[vm.Desc.Name] = vm.Desc.Version
		}
		// What a running plugin says it is wins over what its binary
		// described (docs/plugins.md, "Protocol versions").
		for _, c := range o.Chains.Chains() {
			if version := c.VMVersion(); version != "" {
				v.VMVersions[c.VMName()] = version
			}
		}
		return v, nil
	}))
	s.Register("info.getNetworkID", jsonrpc.Method(func(context.Context, struct{}) (map[string]jsonrpc.Uint64, error) {
		return map[string]jsonrpc.Uint64{"networkID": jsonrpc.Uint64(o.NetworkID)}, nil
	}))
	type aliasArgs struct {
		Alias string `json:"alias"`
	}
	s.Register("info.getBlockchainID", jsonrpc.Method(func(_ context.Context, a aliasArgs) (map[string]string, error) {
		c, ok := o.Chains.Resolve(a.Alias)
		if !ok {
			return nil, jsonrpc.InvalidParams("\"alias\": there is no chain with alias %q", a.Alias)
		}
		return map[string]string{"blockchainID": c.ID.String()}, nil
	}))
	s.Register("info.getVMs", jsonrpc.Method(func(context.Context, struct{}) (map[string]map[string][]string, error) {
		out := map[string][]string{}
		for _, vm := range o.Plugins.VMs() {
			out[vm.ID.String()] = append([]string{vm.Desc.Name}, vm.Desc.Aliases...)
		}
		return map[string]map[string][]string{"vms": out}, nil
	}))
	return s
}
