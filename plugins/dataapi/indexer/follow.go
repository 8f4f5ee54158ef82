package indexer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/dataapi/derive"
	"github.com/chainhost/chainhost/plugins/dataapi/evmrpc"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/tokens"
	"github.com/chainhost/chainhost/sdk/follow"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// blockKind is the index kind of the EVM's accepted blocks.
const blockKind = "block"

// maxCached is how many token and NFT metadata records a follower keeps
// in memory before it starts over.
const maxCached = 100_000

// follower indexes one chain: it learns which blocks are accepted from the
// host's index feed, reads them in bulk through the chain's indexer
// handler with several requests in flight (follow.Blocks), derives their
// records and writes each answer's blocks, with the chain's new state, in
// one atomic write.
type follower struct {
	x     *Indexer
	chain ids.ID
	name  string // primary alias, for logs and metrics
	rpc   *evmrpc.Client
	tok   *tokens.Reader

	wake chan struct{} // the chain (re)started

	tokenCache cache[common.Address, store.Token]
	nftCache   cache[derive.NFTKey, store.NFT]

	remote *remote // an external chain's; nil for the node's own chains
}

// newFollower returns the follower of a chain of x.
func newFollower(x *Indexer, info host.ChainInfo) *follower {
	name := info.ID.String()
	if len(info.Aliases) > 0 {
		name = info.Aliases[0]
	}
	rpc := evmrpc.New(x.opts.Host.Calls, info.ID.String())
	return &follower{
		x: x, chain: info.ID, name: name, rpc: rpc, tok: tokens.NewReader(rpc, x.opts.Tokens),
		wake:       make(chan struct{}, 1),
		tokenCache: cache[common.Address, store.Token]{},
		nftCache:   cache[derive.NFTKey, store.NFT]{},
	}
}

// newRemoteFollower returns the follower of an external chain of x,
// reached through client.
func newRemoteFollower(x *Indexer, cfg evmremote.Chain, client *evmremote.Client) *follower {
	f := newFollower(x, externalInfo(cfg))
	f.rpc = evmrpc.New(client, cfg.Name)
	f.tok = tokens.NewReader(f.rpc, x.opts.Tokens)
	f.remote = &remote{cfg: cfg, client: client}
	return f
}

// run follows the chain until ctx ends, starting over after a failure
// (with a growing pause) from the state in the store.
func (f *follower) run(ctx context.Context) {
	retry := follow.Retry{Min: f.x.opts.RetryMin, Max: f.x.opts.RetryMax, Wake: f.wake}
	run := f.follow
	if f.remote != nil {
		run = f.followRemote
	}
	retry.Run(ctx, run, func(err error, pause time.Duration) {
		f.x.setError(f.chain, err)
		f.x.metrics.errors.WithLabelValues(f.name).Inc()
		if f.remote != nil {
			f.failedRemote(err, pause)
			return
		}
		f.x.log.Warn("indexing stopped; starting over", "chain", f.name, "error", err, "retry_in", pause.Round(time.Millisecond).String())
	})
}

// restarted makes a follower waiting to start over start at once.
func (f *follower) restarted() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// follow indexes from the store's state until ctx ends or something
// fails. Position p of the chain's block index holds block p+1: the
// genesis block is not indexed, and always accepted.
func (f *follower) follow(ctx context.Context) error {
	state, err := f.x.store.State(ctx, f.chain)
	if err != nil {
		return err
	}
	if state.EVMChainID == 0 {
		if state.EVMChainID, err = f.rpc.ChainID(ctx); err != nil {
			return err
		}
	}
	f.x.setProgress(f.chain, state)
	if state.Next == 0 {
		if state, err = f.genesis(ctx, state); err != nil {
			return err
		}
	}
	polling := false
	blocks := follow.Blocks[evmapi.Block]{
		Index: f.x.opts.Host.Index, Chain: f.chain.String(), Kind: blockKind,
		Read: f.read, Batch: f.x.opts.BlocksPerRequest, InFlight: f.x.opts.InFlight,
		// On a node without an index, the chain's head says how many
		// positions it would hold.
		Poll: func(ctx context.Context) (uint64, error) {
			if !polling {
				polling = true
				f.x.log.Warn("the node keeps no index: polling the chain's head instead", "chain", f.name)
			}
			return f.rpc.BlockNumber(ctx)
		},
		Accepted: func(n uint64) { f.x.setAccepted(f.chain, n) },
	}
	return blocks.Run(ctx, state.Next-1, func(_ uint64, blocks []evmapi.Block) error {
		state, err = f.index(ctx, state, blocks)
		return err
	})
}

// genesis indexes the genesis block, which the index does not hold, when
// the chain serves it, and returns the new state; a chain that does not
// serve it answers from block 1 on, or nothing.
func (f *follower) genesis(ctx context.Context, state store.ChainState) (store.ChainState, error) {
	blocks, err := f.rpc.GetBlocks(ctx, 0, 1)
	if err != nil {
		return state, err
	}
	if len(blocks) == 0 || blocks[0].Number != 0 {
		state.Next = 1
		return state, nil
	}
	return f.index(ctx, state, blocks[:1])
}

// read reads the blocks at positions from on, at most count: blocks from+1
// on, through indexer_getBlocks.
func (f *follower) read(ctx context.Context, from uint64, count int) ([]evmapi.Block, error) {
	begin := time.Now()
	blocks, err := f.rpc.GetBlocks(ctx, from+1, uint64(count))
	f.x.metrics.fetchSeconds.WithLabelValues(f.name).Observe(time.Since(begin).Seconds())
	if err != nil {
		return nil, err
	}
	return blocks, checkBlocks(blocks, from+1, count)
}

// checkBlocks checks that an answer to indexer_getBlocks(first, count)
// holds consecutive blocks from first.
func checkBlocks(blocks []evmapi.Block, first uint64, count int) error {
	if len(blocks) > count {
		return fmt.Errorf("%s(%d, %d) answered %d blocks", evmapi.GetBlocksMethod, first, count, len(blocks))
	}
	for i := range blocks {
		if uint64(blocks[i].Number) != first+uint64(i) {
			return fmt.Errorf("%s(%d, %d) answered block %d at position %d", evmapi.GetBlocksMethod, first, count, blocks[i].Number, i)
		}
	}
	return nil
}

// maxRebuilds bounds how often a run is derived again with balances read
// from tokens whose events fell short.
const maxRebuilds = 3

// index derives and writes one run of blocks; it returns the new state.
func (f *follower) index(ctx context.Context, state store.ChainState, blocks []evmapi.Block) (store.ChainState, error) {
	begin := time.Now()
	d := derive.Decode(blocks)
	r, err := f.resolve(ctx, d.Needs())
	if err != nil {
		return state, err
	}
	batch, shortfalls := d.Build(f.chain, state, r)
	for round := 0; len(shortfalls) > 0 && round < maxRebuilds; round++ {
		got, err := f.tok.BalancesOf(ctx, shortfalls)
		if err != nil {
			return state, err
		}
		if r.Overrides == nil {
			r.Overrides = map[derive.BalanceAt]*big.Int{}
		}
		for k, v := range got {
			r.Overrides[k] = v
		}
		batch, shortfalls = d.Build(f.chain, state, r)
	}
	if f.remote != nil {
		f.remote.undo(batch)
	}
	if err := f.x.store.Write(ctx, batch); err != nil {
		return state, err
	}
	for _, t := range batch.Tokens {
		f.tokenCache.put(t.Address, t)
	}
	for _, n := range batch.NFTs {
		f.nftCache.put(derive.NFTKey{Token: n.Token, ID: common.BigToHash(n.NFT.TokenID)}, n.NFT)
	}
	f.x.metrics.writeSeconds.WithLabelValues(f.name).Observe(time.Since(begin).Seconds())
	f.x.metrics.blocks.WithLabelValues(f.name).Add(float64(len(batch.Blocks)))
	f.x.metrics.txs.WithLabelValues(f.name).Add(float64(batch.State.CumulativeTxs - state.CumulativeTxs))
	f.x.setProgress(f.chain, batch.State)
	return batch.State, nil
}

// resolve answers what a run needs: token and NFT metadata (from memory,
// the store, or the chain the first time), current balances from the
// store, and probes of new contracts.
func (f *follower) resolve(ctx context.Context, n *derive.Needs) (*derive.Resolved, error) {
	r := &derive.Resolved{Balances: make(map[derive.BalanceKey]*big.Int, len(n.Balances)), Contracts: map[common.Address]store.Token{}}
	var err error
	r.Tokens, r.NewTokens, err = metadata(ctx, n.Tokens, f.tokenCache,
		func(ctx context.Context, a common.Address) (store.Token, error) {
			return f.x.store.Token(ctx, f.chain, a)
		},
		f.tok.Tokens, func(_ common.Address, t store.Token) store.Token { return t })
	if err != nil {
		return nil, err
	}
	r.NFTs, r.NewNFTs, err = metadata(ctx, n.NFTs, f.nftCache,
		func(ctx context.Context, k derive.NFTKey) (store.NFT, error) {
			return f.x.store.NFT(ctx, f.chain, k.Token, k.BigID())
		},
		f.tok.NFTs, func(k derive.NFTKey, t store.NFT) store.NFTRecord { return store.NFTRecord{Token: k.Token, NFT: t} })
	if err != nil {
		return nil, err
	}
	for k := range n.Balances {
		var id *big.Int
		if k.ERC1155 {
			id = k.BigID()
		}
		bal, err := f.x.store.Balance(ctx, f.chain, k.Holder, k.Token, id)
		if err != nil {
			return nil, err
		}
		r.Balances[k] = bal
	}
	if len(n.Contracts) > 0 {
		if r.Contracts, err = f.tok.Probe(ctx, n.Contracts); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// metadata finds the metadata of each key needs names: in memory, then in
// the store (then kept in memory), then, for the rest, from the chain with
// fetch; those fetched are also returned as new records, made by record.
func metadata[K comparable, N, V, R any](ctx context.Context, needs map[K]N, mem cache[K, V],
	stored func(context.Context, K) (V, error), fetch func(context.Context, map[K]N) (map[K]V, error), record func(K, V) R,
) (found map[K]V, fresh []R, err error) {
	found = make(map[K]V, len(needs))
	missing := map[K]N{}
	for k, need := range needs {
		if v, ok := mem[k]; ok {
			found[k] = v
			continue
		}
		v, err := stored(ctx, k)
		switch {
		case err == nil:
			found[k] = v
			mem.put(k, v)
		case errors.Is(err, store.ErrNotFound):
			missing[k] = need
		default:
			return nil, nil, err
		}
	}
	if len(missing) == 0 {
		return found, nil, nil
	}
	got, err := fetch(ctx, missing)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range got {
		found[k] = v
		fresh = append(fresh, record(k, v))
	}
	return found, fresh, nil
}

// cache is metadata kept in memory, up to maxCached records: then it
// starts over.
type cache[K comparable, V any] map[K]V

// put remembers v for k.
func (c cache[K, V]) put(k K, v V) {
	if len(c) >= maxCached {
		clear(c)
	}
	c[k] = v
}
