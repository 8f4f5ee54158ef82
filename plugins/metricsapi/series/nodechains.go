package series

import (
	"context"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/sdk/host"
)

// seeRPC records a chain of the node whose blocks the host's internal
// handler does not tell (docs/metrics-api.md, "Chains of avalanchego VM
// plugins"): a running chain that serves the rpc handler is probed for
// eth_chainId once per start of its plugin, and counted as an external
// chain if it answers; one counted so is read again at once when its
// plugin starts again.
func (f *Follower) seeRPC(ctx context.Context, info host.ChainInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, known := f.chains[info.ID]; known {
		if c.ext != nil && c.ext.node {
			c.info = info
			if info.Running {
				select {
				case c.ext.wake <- struct{}{}:
				default:
				}
			}
		}
		return
	}
	if !evmremote.ServesRPC(info) {
		delete(f.probed, info.ID) // probed again when it starts
		return
	}
	if f.probed[info.ID] {
		return
	}
	f.probed[info.ID] = true
	f.wg.Go(func() { f.probe(ctx, info) })
}

// probe asks a chain of the node its EVM chain ID through its rpc
// handler and, if it answers and no external-chains entry names it,
// starts counting it through its JSON-RPC.
func (f *Follower) probe(ctx context.Context, info host.ChainInfo) {
	cfg, client, ok := evmremote.OpenNodeChain(ctx, f.opts.Host.Calls, info, f.opts.External, f.log, "counted")
	if !ok {
		return
	}
	src := rpcSource{c: client}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, known := f.chains[info.ID]; known || ctx.Err() != nil {
		src.Close()
		return
	}
	c := &chain{id: info.ID, vm: info.VMName, name: cfg.Name, followed: f.opts.Clock().Unix(), info: info, ext: newNodeExternal(cfg, src)}
	f.chains[info.ID] = c
	f.log.Info("counting EVM chain through its JSON-RPC", "chain", cfg.Name, "id", info.ID, "evmChainId", cfg.ChainID)
	f.wg.Go(func() {
		defer src.Close()
		f.runExternal(ctx, c)
	})
}
