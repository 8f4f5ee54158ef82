package indexer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/derive"
	"github.com/chainhost/chainhost/plugins/dataapi/evmrpc"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/tokens"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// blockKind is the index kind of the EVM's accepted blocks.
const blockKind = "block"

// pollInterval is how often the head is polled on a node without an
// index.
const pollInterval = time.Second

// emptyPauseMin, emptyPauseMax and emptyWait bound the wait for a chain to
// answer for a block the index already holds. The chain serves a block
// once the index has taken it, a moment after the index feed shows it: the
// first retry comes after emptyPauseMin, the pause doubles up to
// emptyPauseMax, and the request gives up after about emptyWait.
const (
	emptyPauseMin = time.Millisecond
	emptyPauseMax = 20 * time.Millisecond
	emptyWait     = 2 * time.Second
)

// maxCached is how many token and NFT metadata records a follower keeps
// in memory before it starts over.
const maxCached = 100_000

// follower indexes one chain: it learns which blocks are accepted from the
// host's index feed, reads them in bulk through the chain's indexer
// handler with several requests in flight, derives their records and
// writes each answer's blocks, with the chain's new state, in one atomic
// write.
type follower struct {
	x     *Indexer
	chain ids.ID
	name  string // primary alias, for logs and metrics
	rpc   *evmrpc.Client
	tok   *tokens.Reader

	accepted atomic.Uint64 // highest block number known accepted
	signal   chan struct{} // a new accepted block, or a wake-up

	tokenCache map[common.Address]store.Token
	nftCache   map[derive.NFTKey]store.NFT
}

// run follows the chain until ctx ends, starting over after a failure
// (with a growing pause) from the state in the store.
func (f *follower) run(ctx context.Context) {
	pause := f.x.opts.RetryMin
	for ctx.Err() == nil {
		started := time.Now()
		err := f.follow(ctx)
		if ctx.Err() != nil {
			return
		}
		f.x.setError(f.chain, err)
		f.x.metrics.errors.WithLabelValues(f.name).Inc()
		f.x.log.Warn("indexing stopped; starting over", "chain", f.name, "error", err, "retry_in", pause)
		if time.Since(started) > f.x.opts.RetryMax {
			pause = f.x.opts.RetryMin
		}
		select {
		case <-ctx.Done():
			return
		case <-f.signal: // the chain (re)started
		case <-time.After(pause):
		}
		pause = min(2*pause, f.x.opts.RetryMax)
	}
}

// wake makes the follower look again at once.
func (f *follower) wake() {
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

// job is one indexer_getBlocks request in flight.
type job struct {
	from, count uint64
	done        chan struct{}
	blocks      []evmapi.Block
	err         error
}

// follow indexes from the store's state until ctx ends or something fails.
func (f *follower) follow(ctx context.Context) error {
	// Every goroutine started here (the feed, the requests in flight) ends
	// before follow returns: cancel, then wait.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	state, err := f.x.store.State(ctx, f.chain)
	if err != nil {
		return err
	}
	if state.EVMChainID == 0 {
		if state.EVMChainID, err = f.rpc.ChainID(ctx); err != nil {
			return err
		}
	}
	f.x.setProgress(f.chain, state, f.accepted.Load(), nil)

	feedErr := make(chan error, 1)
	from := state.Next
	wg.Go(func() { feedErr <- f.feed(ctx, from) })

	next := state.Next // the next block to request
	var inflight []*job
	start := func(from, count uint64) *job {
		j := &job{from: from, count: count, done: make(chan struct{})}
		wg.Go(func() {
			defer close(j.done)
			begin := time.Now()
			for pause, waited := emptyPauseMin, time.Duration(0); ; pause = min(2*pause, emptyPauseMax) {
				j.blocks, j.err = f.rpc.GetBlocks(ctx, from, count)
				// The index may show a block a moment before the chain
				// answers for it: ask again shortly.
				if j.err != nil || len(j.blocks) > 0 || from == 0 || waited >= emptyWait {
					break
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(pause):
				}
				waited += pause
			}
			f.x.metrics.fetchSeconds.WithLabelValues(f.name).Observe(time.Since(begin).Seconds())
		})
		return j
	}
	for {
		for len(inflight) < f.x.opts.InFlight && next <= f.accepted.Load() {
			count := min(uint64(f.x.opts.BlocksPerRequest), f.accepted.Load()-next+1)
			inflight = append(inflight, start(next, count))
			next += count
		}
		if len(inflight) == 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case err := <-feedErr:
				return fmt.Errorf("index feed: %w", err)
			case <-f.signal:
			}
			continue
		}
		j := inflight[0]
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-feedErr:
			return fmt.Errorf("index feed: %w", err)
		case <-j.done:
		}
		inflight = inflight[1:]
		if j.err != nil {
			return j.err
		}
		blocks, err := checkBlocks(j)
		if err != nil {
			return err
		}
		if len(blocks) == 0 {
			if j.from != 0 {
				return fmt.Errorf("%s answered no blocks from %d, which the index holds", evmapi.GetBlocksMethod, j.from)
			}
			// The chain does not serve its genesis block: go on from 1.
			state.Next = 1
			if j.count > 1 {
				inflight = append([]*job{start(1, j.count-1)}, inflight...)
			}
			continue
		}
		if last, want := uint64(blocks[len(blocks)-1].Number), j.from+j.count-1; last < want {
			// A short answer (the transaction cap): ask for the rest first.
			inflight = append([]*job{start(last+1, want-last)}, inflight...)
		}
		if state, err = f.index(ctx, state, blocks); err != nil {
			return err
		}
	}
}

// checkBlocks returns the blocks of a job's answer, checking that they are
// consecutive from the number asked for (an answer from 0 may start at 1:
// a chain that does not serve its genesis block).
func checkBlocks(j *job) ([]evmapi.Block, error) {
	blocks := j.blocks
	if uint64(len(blocks)) > j.count {
		return nil, fmt.Errorf("%s(%d, %d) answered %d blocks", evmapi.GetBlocksMethod, j.from, j.count, len(blocks))
	}
	want := j.from
	if j.from == 0 && len(blocks) > 0 && blocks[0].Number == 1 {
		want = 1
	}
	for i := range blocks {
		if uint64(blocks[i].Number) != want+uint64(i) {
			return nil, fmt.Errorf("%s(%d, %d) answered block %d at position %d", evmapi.GetBlocksMethod, j.from, j.count, blocks[i].Number, i)
		}
	}
	return blocks, nil
}

// feed follows the chain's index from the position of block next and
// raises the accepted height as blocks arrive: position p holds block
// p+1 (the genesis block is not indexed, and always accepted). On a node
// without an index it polls eth_blockNumber instead.
func (f *follower) feed(ctx context.Context, next uint64) error {
	start := max(next, 1) - 1
	err := f.x.opts.Host.Index.Feed(ctx, f.chain.String(), blockKind, start, true, func(c host.Container) error {
		f.raise(c.Index + 1)
		return nil
	})
	if !errors.Is(err, host.ErrNoIndex) {
		return err
	}
	f.x.log.Warn("the node keeps no index: polling the chain's head instead", "chain", f.name)
	for {
		head, err := f.rpc.BlockNumber(ctx)
		if err != nil {
			return err
		}
		f.raise(head)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// raise records that block n is accepted.
func (f *follower) raise(n uint64) {
	for {
		cur := f.accepted.Load()
		if n <= cur {
			return
		}
		if f.accepted.CompareAndSwap(cur, n) {
			f.x.setAccepted(f.chain, n)
			f.wake()
			return
		}
	}
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
	if err := f.x.store.Write(ctx, batch); err != nil {
		return state, err
	}
	for _, t := range batch.Tokens {
		f.cacheToken(t)
	}
	for _, n := range batch.NFTs {
		f.cacheNFT(derive.NFTKey{Token: n.Token, ID: common.BigToHash(n.NFT.TokenID)}, n.NFT)
	}
	f.x.metrics.writeSeconds.WithLabelValues(f.name).Observe(time.Since(begin).Seconds())
	f.x.metrics.blocks.WithLabelValues(f.name).Add(float64(len(batch.Blocks)))
	f.x.metrics.txs.WithLabelValues(f.name).Add(float64(batch.State.CumulativeTxs - state.CumulativeTxs))
	f.x.setProgress(f.chain, batch.State, f.accepted.Load(), nil)
	return batch.State, nil
}

// resolve answers what a run needs: token and NFT metadata (from memory,
// the store, or the chain the first time), current balances from the
// store, and probes of new contracts.
func (f *follower) resolve(ctx context.Context, n *derive.Needs) (*derive.Resolved, error) {
	r := &derive.Resolved{
		Tokens:    make(map[common.Address]store.Token, len(n.Tokens)),
		NFTs:      make(map[derive.NFTKey]store.NFT, len(n.NFTs)),
		Balances:  make(map[derive.BalanceKey]*big.Int, len(n.Balances)),
		Contracts: map[common.Address]store.Token{},
	}
	missingTokens := map[common.Address]derive.TokenNeed{}
	for a, need := range n.Tokens {
		if t, ok := f.tokenCache[a]; ok {
			r.Tokens[a] = t
			continue
		}
		t, err := f.x.store.Token(ctx, f.chain, a)
		switch {
		case err == nil:
			r.Tokens[a] = t
			f.cacheToken(t)
		case errors.Is(err, store.ErrNotFound):
			missingTokens[a] = need
		default:
			return nil, err
		}
	}
	missingNFTs := map[derive.NFTKey]derive.NFTNeed{}
	for k, need := range n.NFTs {
		if t, ok := f.nftCache[k]; ok {
			r.NFTs[k] = t
			continue
		}
		t, err := f.x.store.NFT(ctx, f.chain, k.Token, k.BigID())
		switch {
		case err == nil:
			r.NFTs[k] = t
			f.cacheNFT(k, t)
		case errors.Is(err, store.ErrNotFound):
			missingNFTs[k] = need
		default:
			return nil, err
		}
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
	if len(missingTokens) > 0 {
		got, err := f.tok.Tokens(ctx, missingTokens)
		if err != nil {
			return nil, err
		}
		for a, t := range got {
			r.Tokens[a] = t
			r.NewTokens = append(r.NewTokens, t)
		}
	}
	if len(missingNFTs) > 0 {
		got, err := f.tok.NFTs(ctx, missingNFTs)
		if err != nil {
			return nil, err
		}
		for k, t := range got {
			r.NFTs[k] = t
			r.NewNFTs = append(r.NewNFTs, store.NFTRecord{Token: k.Token, NFT: t})
		}
	}
	if len(n.Contracts) > 0 {
		got, err := f.tok.Probe(ctx, n.Contracts)
		if err != nil {
			return nil, err
		}
		r.Contracts = got
	}
	return r, nil
}

// cacheToken remembers a token's metadata.
func (f *follower) cacheToken(t store.Token) {
	if len(f.tokenCache) >= maxCached {
		clear(f.tokenCache)
	}
	f.tokenCache[t.Address] = t
}

// cacheNFT remembers an NFT's metadata.
func (f *follower) cacheNFT(k derive.NFTKey, n store.NFT) {
	if len(f.nftCache) >= maxCached {
		clear(f.nftCache)
	}
	f.nftCache[k] = n
}
