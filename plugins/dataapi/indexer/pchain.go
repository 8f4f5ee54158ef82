package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/follow"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// isPChain reports whether a chain is a P-Chain the indexer follows: it
// runs the P-Chain VM with its internal indexer handler.
func isPChain(c host.ChainInfo) bool {
	return c.VMName == pvmapi.VMName && slices.Contains(c.InternalHandlers, pvmapi.IndexerHandler)
}

// pFollower indexes the node's P-Chain (docs/data-api.md, "The P-Chain"):
// it learns which blocks are accepted from the host's index feed, reads
// them with their transactions through the VM's pvm.getBlocks, and writes
// each answer's blocks, the subnets and blockchains they create and the
// conversions, with the chain's new state, in one write. Position p of the
// chain's block index holds block p+1; the genesis block is read first.
type pFollower struct {
	x     *Indexer
	chain ids.ID
	wake  chan struct{}

	mu     sync.Mutex
	status PChain
}

// PChain is the state of the P-Chain's indexing.
type PChain struct {
	// ID is the chain's blockchain ID.
	ID ids.ID
	// Indexed says whether a block is indexed; Height is the last one.
	Indexed bool
	Height  uint64
	// Accepted is the highest block known accepted.
	Accepted uint64
	// Err is why indexing last stopped; nil while it runs.
	Err error
}

// PChain returns the P-Chain the indexer follows, if the node runs one.
func (x *Indexer) PChain() (PChain, bool) {
	x.mu.RLock()
	f := x.pchain
	x.mu.RUnlock()
	if f == nil {
		return PChain{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status, true
}

// seePChainLocked starts following the P-Chain the first time the registry
// shows it, and wakes its follower when it starts again; x.mu is held.
func (x *Indexer) seePChainLocked(ctx context.Context, info host.ChainInfo) {
	if x.pchain != nil {
		if x.pchain.chain == info.ID && info.Running {
			select {
			case x.pchain.wake <- struct{}{}:
			default:
			}
		}
		return
	}
	f := &pFollower{x: x, chain: info.ID, wake: make(chan struct{}, 1), status: PChain{ID: info.ID}}
	if st, ok := x.states[info.ID]; ok {
		f.status.Height, f.status.Indexed = st.Height()
	}
	x.pchain = f
	x.log.Info("indexing the P-Chain", "id", info.ID)
	x.wg.Go(func() { f.run(ctx) })
}

// run follows the P-Chain until ctx ends, starting over after a failure.
func (f *pFollower) run(ctx context.Context) {
	retry := follow.Retry{Min: f.x.opts.RetryMin, Max: f.x.opts.RetryMax, Wake: f.wake}
	retry.Run(ctx, f.follow, func(err error, pause time.Duration) {
		f.update(func(s *PChain) { s.Err = err })
		f.x.metrics.errors.WithLabelValues(pChainName).Inc()
		f.x.log.Warn("indexing the P-Chain stopped; starting over", "error", err, "retry_in", pause.Round(time.Millisecond).String())
	})
}

// pChainName is the P-Chain's label in the indexer's metrics and logs.
const pChainName = "P"

// update changes the follower's status.
func (f *pFollower) update(change func(*PChain)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.status)
}

// follow indexes from the store's state until ctx ends or something fails.
func (f *pFollower) follow(ctx context.Context) error {
	state, err := f.x.store.State(ctx, f.chain)
	if err != nil {
		return err
	}
	if state.Next == 0 {
		genesis, err := f.read(ctx, 0, 1)
		if err != nil {
			return err
		}
		if len(genesis) != 1 {
			return fmt.Errorf("%s(0, 1) answered %d blocks", pvmapi.GetBlocksMethod, len(genesis))
		}
		if state, err = f.index(ctx, state, genesis); err != nil {
			return err
		}
	}
	blocks := follow.Blocks[pvmapi.Block]{
		Index: f.x.opts.Host.Index, Chain: f.chain.String(), Kind: blockKind,
		Read: func(ctx context.Context, from uint64, count int) ([]pvmapi.Block, error) {
			return f.read(ctx, from+1, count)
		},
		Batch:    pvmapi.MaxBlocks,
		Accepted: func(n uint64) { f.update(func(s *PChain) { s.Accepted = max(s.Accepted, n) }) },
	}
	return blocks.Run(ctx, state.Next-1, func(_ uint64, blocks []pvmapi.Block) error {
		state, err = f.index(ctx, state, blocks)
		return err
	})
}

// read reads count blocks from height on through pvm.getBlocks, and checks
// that they are consecutive from it.
func (f *pFollower) read(ctx context.Context, height uint64, count int) ([]pvmapi.Block, error) {
	var blocks []pvmapi.Block
	args := pvmapi.BlocksArgs{Height: jsonrpc.Uint64(height), Count: jsonrpc.Uint64(count)}
	if err := f.call(ctx, args, &blocks); err != nil {
		return nil, err
	}
	if len(blocks) > count {
		return nil, fmt.Errorf("%s(%d, %d) answered %d blocks", pvmapi.GetBlocksMethod, height, count, len(blocks))
	}
	for i := range blocks {
		if uint64(blocks[i].Height) != height+uint64(i) {
			return nil, fmt.Errorf("%s(%d, %d) answered block %d at position %d", pvmapi.GetBlocksMethod, height, count, blocks[i].Height, i)
		}
	}
	return blocks, nil
}

// call calls pvm.getBlocks on the chain's internal handler.
func (f *pFollower) call(ctx context.Context, args pvmapi.BlocksArgs, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": pvmapi.GetBlocksMethod, "params": args})
	if err != nil {
		return err
	}
	_, answer, err := f.x.opts.Host.Calls.Call(ctx, f.chain.String(), pvmapi.IndexerHandler, body)
	if err != nil {
		return fmt.Errorf("%s: %w", pvmapi.GetBlocksMethod, err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return fmt.Errorf("%s: not a JSON-RPC answer: %w", pvmapi.GetBlocksMethod, err)
	}
	if resp.Error != nil {
		return fmt.Errorf("%s: %w", pvmapi.GetBlocksMethod, resp.Error)
	}
	if err := json.Unmarshal(resp.Result, result); err != nil {
		return fmt.Errorf("%s: decode the result: %w", pvmapi.GetBlocksMethod, err)
	}
	return nil
}

// index writes one run of blocks and returns the new state.
func (f *pFollower) index(ctx context.Context, state store.ChainState, blocks []pvmapi.Block) (store.ChainState, error) {
	begin := time.Now()
	b, err := f.batch(ctx, state, blocks)
	if err != nil {
		return state, err
	}
	if err := f.x.store.Write(ctx, b); err != nil {
		return state, err
	}
	f.x.metrics.writeSeconds.WithLabelValues(pChainName).Observe(time.Since(begin).Seconds())
	f.x.metrics.blocks.WithLabelValues(pChainName).Add(float64(len(blocks)))
	f.update(func(s *PChain) {
		s.Height, s.Indexed = b.State.Height()
		s.Accepted = max(s.Accepted, s.Height)
		s.Err = nil
	})
	return b.State, nil
}

// batch makes the records of a run of blocks: the blocks, a subnet per
// CreateSubnetTx, a blockchain per CreateChainTx, and per
// ConvertSubnetToL1Tx its subnet again, converted.
func (f *pFollower) batch(ctx context.Context, state store.ChainState, blocks []pvmapi.Block) (*store.Batch, error) {
	b := &store.Batch{Chain: f.chain, State: state}
	subnets := map[ids.ID]int{} // in b.Subnets, the last record of each
	for _, blk := range blocks {
		pb := store.PBlock{Height: uint64(blk.Height), ID: blk.ID, ParentID: blk.ParentID, Timestamp: uint64(blk.Time),
			Size: uint64(blk.Size), Type: blk.Type, TxIDs: make([]ids.ID, len(blk.Txs))}
		for i, tx := range blk.Txs {
			pb.TxIDs[i] = tx.ID
			created := store.Created{Block: pb.Height, Timestamp: pb.Timestamp, TxIndex: uint64(i), TxID: tx.ID}
			switch tx.Type {
			case "CreateSubnetTx":
				var u pvmapi.CreateSubnetTx
				if err := decodeTx(tx, &u); err != nil {
					return nil, err
				}
				subnets[tx.ID] = len(b.Subnets)
				b.Subnets = append(b.Subnets, store.Subnet{ID: tx.ID, Created: created, Owner: store.Owner{
					Addresses: u.Owner.Addresses, Threshold: uint64(u.Owner.Threshold), Locktime: u.Owner.Locktime}})
			case "CreateChainTx":
				var u pvmapi.CreateChainTx
				if err := decodeTx(tx, &u); err != nil {
					return nil, err
				}
				b.Blockchains = append(b.Blockchains, store.Blockchain{ID: tx.ID, SubnetID: u.SubnetID, VMID: u.VMID, Name: u.ChainName,
					Genesis: u.GenesisData, Created: created})
			case "ConvertSubnetToL1Tx":
				var u pvmapi.ConvertSubnetToL1Tx
				if err := decodeTx(tx, &u); err != nil {
					return nil, err
				}
				sn, err := f.subnet(ctx, b, subnets, u.SubnetID)
				if err != nil {
					return nil, fmt.Errorf("block %d: %s converts subnet %s: %w", pb.Height, tx.ID, u.SubnetID, err)
				}
				sn.L1, sn.ConversionTx, sn.ManagerChain, sn.ManagerAddress = true, tx.ID, u.ChainID, u.Address
				subnets[u.SubnetID] = len(b.Subnets)
				b.Subnets = append(b.Subnets, sn)
			}
		}
		b.PBlocks = append(b.PBlocks, pb)
		b.State.Next = pb.Height + 1
		b.State.CumulativeTxs += uint64(len(blk.Txs))
	}
	return b, nil
}

// subnet returns a subnet as the batch or, before it, the store holds it.
func (f *pFollower) subnet(ctx context.Context, b *store.Batch, inBatch map[ids.ID]int, id ids.ID) (store.Subnet, error) {
	if at, ok := inBatch[id]; ok {
		return b.Subnets[at], nil
	}
	return f.x.store.Subnet(ctx, f.chain, id)
}

// decodeTx reads the fields of a transaction's JSON into u.
func decodeTx(tx pvmapi.BlockTx, u any) error {
	if err := json.Unmarshal(tx.Unsigned, u); err != nil {
		return fmt.Errorf("%s %s: %w", tx.Type, tx.ID, err)
	}
	return nil
}
