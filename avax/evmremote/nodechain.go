package evmremote

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/sdk/host"
)

// RPCHandler is the public handler an EVM chain serves its JSON-RPC
// under (chainhost's evm, avalanchego's subnet-evm and coreth).
const RPCHandler = "rpc"

// ServesRPC reports whether a chain of the node may be an EVM chain that
// a module reads through its JSON-RPC, as an external chain: it runs and
// serves a public RPCHandler (docs/data-api.md, "Chains of avalanchego VM
// plugins"). Only its answer to eth_chainId (Probe) tells.
func ServesRPC(c host.ChainInfo) bool {
	return c.Running && slices.Contains(c.Handlers, RPCHandler)
}

// DialNode returns a Client of a chain of the module's own node, reached
// through the host's chain calls to its RPCHandler (host.ChainTransport)
// under the limits of opts, whose URL and HTTPClient are not used. It
// sends no request.
func DialNode(ctx context.Context, calls host.ChainCaller, chain string, opts Options) (*Client, error) {
	opts.URL = host.ChainURL(chain, RPCHandler)
	opts.HTTPClient = &http.Client{Transport: host.ChainTransport{Calls: calls}}
	return Dial(ctx, opts)
}

// Probe returns the EVM chain ID a chain of the node answers through its
// RPCHandler; an error when it answers none (it is not an EVM chain, or
// not yet up).
func Probe(ctx context.Context, calls host.ChainCaller, chain string) (uint64, error) {
	c, err := DialNode(ctx, calls, chain, Options{})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	id, err := c.ChainID(ctx)
	if err != nil {
		return 0, fmt.Errorf("chain %s: %w", chain, err)
	}
	return id, nil
}

// NodeChain is the config by which a module reads a chain of its node
// through its JSON-RPC, as an external chain: named by its primary alias,
// with its blockchain ID and the EVM chain ID it answers, the default
// limits, and no URL (DialNode reaches it).
func NodeChain(info host.ChainInfo, evmChainID uint64) Chain {
	name := info.ID.String()
	if len(info.Aliases) > 0 {
		name = info.Aliases[0]
	}
	return Chain{Name: name, ChainID: evmChainID, BlockchainID: info.ID.String()}.WithDefaults()
}

// Names reports whether c, an entry of a module's external-chains, names
// the chain of the node info that answers EVM chain ID evmChainID: the
// same blockchain ID or EVM chain ID. Such an entry wins: the module
// reads the chain as the entry says, once.
func (c Chain) Names(info host.ChainInfo, evmChainID uint64) bool {
	id, err := c.ID()
	return c.ChainID == evmChainID || (err == nil && id == info.ID)
}

// OpenNodeChain probes a chain of the node that ServesRPC and, if it
// answers eth_chainId and no entry of external names it, returns its
// config (NodeChain) and a Client of it; ok is false otherwise, with why
// logged, the chain then being "<use> not" (indexed, counted) by the
// module.
func OpenNodeChain(ctx context.Context, calls host.ChainCaller, info host.ChainInfo, external []Chain, log hclog.Logger, use string) (cfg Chain, client *Client, ok bool) {
	chain := info.ID.String()
	evmID, err := Probe(ctx, calls, chain)
	if err != nil {
		log.Debug("a chain serving rpc answers no eth_chainId: not an EVM chain, not "+use, "chain", chain, "error", err)
		return Chain{}, nil, false
	}
	for _, e := range external {
		if e.Names(info, evmID) {
			log.Info("a chain of the node is "+use+" as the external chain that names it", "chain", chain, "external", e.Name)
			return Chain{}, nil, false
		}
	}
	cfg = NodeChain(info, evmID)
	if client, err = DialNode(ctx, calls, chain, OptionsOf(cfg)); err != nil {
		log.Warn("a chain of the node answers eth_chainId but cannot be read: not "+use, "chain", cfg.Name, "error", err)
		return Chain{}, nil, false
	}
	return cfg, client, true
}
