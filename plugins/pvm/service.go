package pvm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// newServer returns the JSON-RPC server of the API (docs/pchain.md):
// avalanchego's platform methods, chainhost's read methods and, with
// dev-api-enabled, the dev methods that move the clock.
func (vm *VM) newServer() *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	for name, h := range map[string]jsonrpc.Handler{
		"issueTx":              jsonrpc.Method(vm.issueTx),
		"getTx":                jsonrpc.Method(vm.getTx),
		"getTxStatus":          jsonrpc.Method(vm.getTxStatus),
		"getUTXOs":             jsonrpc.Method(vm.getUTXOs),
		"getBalance":           jsonrpc.Method(vm.getBalance),
		"getHeight":            jsonrpc.Method(vm.getHeight),
		"getBlock":             jsonrpc.Method(vm.getBlock),
		"getBlockByHeight":     jsonrpc.Method(vm.getBlockByHeight),
		"getTimestamp":         jsonrpc.Method(vm.getTimestamp),
		"getCurrentValidators": jsonrpc.Method(vm.getCurrentValidators),
		"getSubnets":           jsonrpc.Method(vm.getSubnets),
		"getSubnet":            jsonrpc.Method(vm.getSubnet),
		"getBlockchains":       jsonrpc.Method(vm.getBlockchains),
		"getL1Validator":       jsonrpc.Method(vm.getL1Validator),
		"getStakingAssetID":    jsonrpc.Method(vm.getStakingAssetID),
		"getMinStake":          jsonrpc.Method(vm.getMinStake),
	} {
		s.Register("platform."+name, h)
	}
	vm.registerReads(s)
	s.Register(pvmapi.GetConfigMethod, jsonrpc.Method(vm.getConfig))
	if vm.cfg.DevAPIEnabled {
		s.Register(pvmapi.IncreaseTimeMethod, jsonrpc.Method(vm.increaseTime))
		s.Register(pvmapi.SetTimeMethod, jsonrpc.Method(vm.setTime))
	}
	return s
}

// issueTx verifies a signed transaction and adds it to the next block. It
// answers once the transaction is accepted (or after issue-wait, with the
// ID of a transaction still processing).
func (vm *VM) issueTx(ctx context.Context, a utxoapi.IssueTxArgs) (utxoapi.TxIDReply, error) {
	raw, err := a.TxBytes()
	if err != nil {
		return utxoapi.TxIDReply{}, err
	}
	tx, err := txs.Parse(raw)
	if err != nil {
		return utxoapi.TxIDReply{}, jsonrpc.InvalidParams(`"tx": %v`, err)
	}
	return utxoapi.TxIDReply{TxID: tx.ID()}, vm.issue(ctx, tx)
}

// issue verifies tx against the state at the chain's time and the
// mempool, adds it to the mempool and waits for its acceptance.
func (vm *VM) issue(ctx context.Context, tx *txs.Tx) error {
	id := tx.ID()
	vm.mu.Lock()
	p, waiting := vm.pool.byID[id]
	if !waiting {
		if err := vm.admitLocked(ctx, tx); err != nil {
			vm.mu.Unlock()
			return err
		}
		p = vm.pool.byID[id]
	}
	vm.mu.Unlock()
	timer := time.NewTimer(time.Duration(vm.cfg.IssueWait) * time.Second)
	defer timer.Stop()
	select {
	case <-p.done:
		return p.err
	case <-timer.C:
		return nil // still processing: getTxStatus follows it
	case <-ctx.Done():
		return ctx.Err()
	}
}

// admitLocked checks a new transaction and adds it to the mempool. vm.mu
// is held.
func (vm *VM) admitLocked(ctx context.Context, tx *txs.Tx) error {
	id := tx.ID()
	if _, _, accepted, err := vm.db.tx(ctx, id); err != nil {
		return err
	} else if accepted {
		return rejected(id, "it is accepted already")
	}
	if len(vm.pool.order) >= vm.cfg.MempoolSize {
		return fmt.Errorf("the mempool is full (%d transactions); try again", vm.cfg.MempoolSize)
	}
	if err := vm.buildDueLocked(); err != nil && !errors.Is(err, errShuttingDown) {
		vm.env.Logger.Debug("verifying against a state behind the clock", "error", err)
	}
	d := newDiff(vm.state)
	if err := d.advance(vm.nowLocked(), uint64(vm.cfg.L1FeeRate)); err != nil {
		return err
	}
	if err := vm.execute(ctx, d, tx, vm.pool.spent); err != nil {
		return err
	}
	p := &pending{tx: tx, done: make(chan struct{})}
	for _, in := range tx.Unsigned.Base().Ins {
		p.spends = append(p.spends, in.InputID())
	}
	vm.pool.add(p)
	vm.signal()
	return nil
}

// parseSubnetID reads an optional subnet ID param; empty is the primary
// network.
func parseSubnetID(param, s string) (ids.ID, error) {
	if s == "" {
		return txs.PrimaryNetworkID, nil
	}
	return utxoapi.ParseID(param, s)
}

// getTx returns an accepted transaction (a genesis validator's too).
func (vm *VM) getTx(ctx context.Context, a utxoapi.GetTxArgs) (utxoapi.GetTxReply, error) {
	return utxoapi.GetTx(ctx, a, func(ctx context.Context, id ids.ID) (*txs.Tx, bool, error) {
		t, _, found, err := vm.db.tx(ctx, id)
		return t, found, err
	}, func(t *txs.Tx) any { return vm.txJSON(t) })
}

// getTxStatus answers Committed (accepted, avalanchego's P-Chain word),
// Processing (waiting in the mempool) or Unknown.
func (vm *VM) getTxStatus(ctx context.Context, a utxoapi.GetTxStatusArgs) (utxoapi.GetTxStatusReply, error) {
	return utxoapi.GetTxStatus(ctx, a, "Committed", func(ctx context.Context, id ids.ID) (bool, error) {
		return vm.db.Has(ctx, txKey(id))
	}, vm.pooled)
}

// pooled reports whether the mempool holds a transaction.
func (vm *VM) pooled(id ids.ID) bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	_, ok := vm.pool.byID[id]
	return ok
}

// apiChain is what the API's params are read against: this chain, on its
// network.
func (vm *VM) apiChain() utxoapi.Chain { return utxoapi.Chain{Env: vm.env, HRP: vm.hrp} }

// parseAddresses reads a list of address params, sorted and unique.
func (vm *VM) parseAddresses(ctx context.Context, param string, list []string) ([]avax.ShortID, error) {
	if err := utxoapi.CheckAddressCount(param, list); err != nil {
		return nil, err
	}
	return vm.apiChain().ParseAddressList(ctx, param, list)
}

// getUTXOs returns a page of the UTXOs the addresses own, by address, then
// UTXO ID, after startIndex.
func (vm *VM) getUTXOs(ctx context.Context, a utxoapi.GetUTXOsArgs) (utxoapi.GetUTXOsReply, error) {
	if a.SourceChain != "" && !vm.isThisChain(ctx, a.SourceChain) {
		return utxoapi.GetUTXOsReply{}, jsonrpc.InvalidParams(`"sourceChain": the P-Chain imports from no chain; leave it out`)
	}
	addrs, err := vm.parseAddresses(ctx, "addresses", a.Addresses)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, false)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	page, err := vm.apiChain().ParsePage(ctx, a)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	out, endAddr, endUTXO, err := utxoapi.PageAddresses(ctx, vm.db, addrs, page)
	if err != nil {
		return utxoapi.GetUTXOsReply{}, err
	}
	return utxoapi.NewGetUTXOsReply(enc, out, vm.formatAddress(endAddr), endUTXO), nil
}

// isThisChain reports whether s names this chain: one of its aliases, its
// node ID, or avalanchego's P-Chain ID (the zero ID), which avalanchego's
// wallet names when it reads its UTXOs.
func (vm *VM) isThisChain(ctx context.Context, s string) bool {
	if id, err := ids.FromString(s); err == nil && slices.Contains(vm.txCtx.ChainIDs, id) {
		return true
	}
	info, err := vm.env.Host.Chains.Resolve(ctx, s)
	return err == nil && info.ID == vm.env.ChainID
}

type getBalanceArgs struct {
	Addresses []string `json:"addresses"`
}

type utxoIDJSON struct {
	TxID        ids.ID `json:"txID"`
	OutputIndex uint32 `json:"outputIndex"`
}

type getBalanceReply struct {
	Balance             jsonrpc.Uint64            `json:"balance"`
	Unlocked            jsonrpc.Uint64            `json:"unlocked"`
	LockedStakeable     jsonrpc.Uint64            `json:"lockedStakeable"`
	LockedNotStakeable  jsonrpc.Uint64            `json:"lockedNotStakeable"`
	Balances            map[ids.ID]jsonrpc.Uint64 `json:"balances"`
	Unlockeds           map[ids.ID]jsonrpc.Uint64 `json:"unlockeds"`
	LockedStakeables    map[ids.ID]jsonrpc.Uint64 `json:"lockedStakeables"`
	LockedNotStakeables map[ids.ID]jsonrpc.Uint64 `json:"lockedNotStakeables"`
	UTXOIDs             []utxoIDJSON              `json:"utxoIDs"`
}

// getBalance returns the AVAX the addresses own: unlocked, and locked
// until a later time; staked AVAX is not a UTXO until its period ends.
func (vm *VM) getBalance(ctx context.Context, a getBalanceArgs) (getBalanceReply, error) {
	addrs, err := vm.parseAddresses(ctx, "addresses", a.Addresses)
	if err != nil {
		return getBalanceReply{}, err
	}
	_, now := vm.current()
	var unlocked, locked uint64
	out := getBalanceReply{UTXOIDs: []utxoIDJSON{}}
	seen := map[ids.ID]bool{}
	for _, addr := range addrs {
		prefix := utxostore.AddrPrefix(addr)
		err := vm.db.Iterate(ctx, prefix, nil, func(k, _ []byte) error {
			id, err := ids.FromBytes(k[len(prefix):])
			if err != nil || seen[id] {
				return err
			}
			seen[id] = true
			u, found, err := utxostore.Get(ctx, vm.db, id)
			if err != nil || !found {
				return err
			}
			if u.Out.Locktime <= now {
				unlocked += u.Out.Amt
			} else {
				locked += u.Out.Amt
			}
			out.UTXOIDs = append(out.UTXOIDs, utxoIDJSON{TxID: u.TxID, OutputIndex: u.OutputIndex})
			return nil
		})
		if err != nil {
			return getBalanceReply{}, err
		}
	}
	asset := vm.txCtx.AVAXAssetID
	out.Balance, out.Unlocked, out.LockedNotStakeable = jsonrpc.Uint64(unlocked+locked), jsonrpc.Uint64(unlocked), jsonrpc.Uint64(locked)
	out.Balances = map[ids.ID]jsonrpc.Uint64{asset: out.Balance}
	out.Unlockeds = map[ids.ID]jsonrpc.Uint64{asset: out.Unlocked}
	out.LockedStakeables = map[ids.ID]jsonrpc.Uint64{}
	out.LockedNotStakeables = map[ids.ID]jsonrpc.Uint64{}
	if locked > 0 {
		out.LockedNotStakeables[asset] = out.LockedNotStakeable
	}
	return out, nil
}

// getHeight returns the height of the last accepted block.
func (vm *VM) getHeight(context.Context, struct{}) (utxoapi.HeightReply, error) {
	s, _ := vm.current()
	return utxoapi.HeightReply{Height: jsonrpc.Uint64(s.Height)}, nil
}

// getBlock returns a block by ID.
func (vm *VM) getBlock(ctx context.Context, a utxoapi.GetBlockArgs) (utxoapi.GetBlockReply, error) {
	id, err := utxoapi.ParseID("blockID", a.BlockID)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	h, err := vm.db.blockHeight(ctx, id)
	if errors.Is(err, host.ErrNotFound) {
		return utxoapi.GetBlockReply{}, fmt.Errorf("block %s not found", id)
	}
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	return vm.blockReply(ctx, h, enc)
}

// getBlockByHeight returns the block at a height.
func (vm *VM) getBlockByHeight(ctx context.Context, a utxoapi.GetBlockByHeightArgs) (utxoapi.GetBlockReply, error) {
	enc, err := avax.ParseEncoding(a.Encoding, true)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	if s, _ := vm.current(); uint64(a.Height) > s.Height {
		return utxoapi.GetBlockReply{}, fmt.Errorf("no block at height %d: the last accepted block is at %d", a.Height, s.Height)
	}
	return vm.blockReply(ctx, uint64(a.Height), enc)
}

func (vm *VM) blockReply(ctx context.Context, height uint64, enc string) (utxoapi.GetBlockReply, error) {
	b, err := vm.db.block(ctx, height)
	if err != nil {
		return utxoapi.GetBlockReply{}, err
	}
	raw, err := utxoapi.Encode(enc, b.Bytes(), func() any { return vm.blockJSON(b) })
	return utxoapi.GetBlockReply{Block: raw, Encoding: enc}, err
}

type timestampReply struct {
	Timestamp time.Time `json:"timestamp"`
}

// getTimestamp returns the chain's time: its clock (avalanchego answers
// its last block's time; here every change of the validator set has a
// block at its exact time, and the clock is when the next block would be).
func (vm *VM) getTimestamp(context.Context, struct{}) (timestampReply, error) {
	_, now := vm.current()
	return timestampReply{Timestamp: time.Unix(int64(now), 0).UTC()}, nil
}

type stakingAssetArgs struct {
	SubnetID string `json:"subnetID"`
}

type stakingAssetReply struct {
	AssetID ids.ID `json:"assetID"`
}

// getStakingAssetID returns AVAX's ID: the primary network stakes AVAX.
func (vm *VM) getStakingAssetID(_ context.Context, a stakingAssetArgs) (stakingAssetReply, error) {
	id, err := parseSubnetID("subnetID", a.SubnetID)
	if err != nil {
		return stakingAssetReply{}, err
	}
	if id != txs.PrimaryNetworkID {
		return stakingAssetReply{}, jsonrpc.InvalidParams(`"subnetID": only the primary network has a staking asset`)
	}
	return stakingAssetReply{AssetID: vm.txCtx.AVAXAssetID}, nil
}

type minStakeReply struct {
	MinValidatorStake jsonrpc.Uint64 `json:"minValidatorStake"`
	MinDelegatorStake jsonrpc.Uint64 `json:"minDelegatorStake"`
}

// getMinStake returns the primary network's least validator and
// delegator stakes.
func (vm *VM) getMinStake(_ context.Context, a stakingAssetArgs) (minStakeReply, error) {
	id, err := parseSubnetID("subnetID", a.SubnetID)
	if err != nil {
		return minStakeReply{}, err
	}
	if id != txs.PrimaryNetworkID {
		return minStakeReply{}, jsonrpc.InvalidParams(`"subnetID": only the primary network takes stake`)
	}
	return minStakeReply{MinValidatorStake: vm.cfg.MinValidatorStake, MinDelegatorStake: vm.cfg.MinDelegatorStake}, nil
}

// parseNodeIDs reads a nodeIDs param.
func parseNodeIDs(list []string) (map[txs.NodeID]bool, error) {
	out := map[txs.NodeID]bool{}
	for i, s := range list {
		n, err := txs.ParseNodeID(s)
		if err != nil {
			return nil, jsonrpc.InvalidParams("%q: %v", fmt.Sprintf("nodeIDs[%d]", i), err)
		}
		out[n] = true
	}
	return out, nil
}
