package indexer

import (
	"context"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/sdk/host"
)

// seeRPC records a chain of the node that is not indexed the internal
// way (docs/data-api.md, "Chains of avalanchego VM plugins"): the
// follower of one read through its JSON-RPC is told it runs again; a
// running chain that serves the rpc handler is probed for eth_chainId
// once per start of its plugin, and followed as an external chain if it
// answers.
func (x *Indexer) seeRPC(ctx context.Context, info host.ChainInfo) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c, known := x.chains[info.ID]; known {
		if c.External != nil {
			return // an external chain of the same blockchain ID wins
		}
		c.Info = info
		if f := x.followers[info.ID]; f != nil && info.Running {
			f.restarted()
		}
		return
	}
	if !evmremote.ServesRPC(info) {
		delete(x.probed, info.ID) // probed again when it starts
		return
	}
	if x.probed[info.ID] {
		return
	}
	x.probed[info.ID] = true
	x.wg.Go(func() { x.probe(ctx, info) })
}

// probe asks a chain of the node its EVM chain ID through its rpc
// handler and, if it answers and no external-chains entry names it, starts
// following it through its JSON-RPC.
func (x *Indexer) probe(ctx context.Context, info host.ChainInfo) {
	cfg, client, ok := evmremote.OpenNodeChain(ctx, x.opts.Host.Calls, info, x.opts.External, x.log, "indexed")
	if !ok {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, known := x.chains[info.ID]; known || ctx.Err() != nil {
		client.Close()
		return
	}
	x.clients = append(x.clients, client)
	f := newRemoteFollower(x, cfg, client)
	c := &Chain{Info: info, EVMChainID: cfg.ChainID, ViaRPC: true, Calls: client}
	if st, ok := x.states[info.ID]; ok {
		c.Height, c.Indexed = st.Height()
	}
	x.chains[info.ID], x.followers[info.ID] = c, f
	x.log.Info("indexing EVM chain through its JSON-RPC", "chain", cfg.Name, "id", info.ID, "evmChainId", cfg.ChainID)
	x.wg.Go(func() { f.run(ctx) })
}
