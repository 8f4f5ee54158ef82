package pvm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// methodPrefixes are the names the API answers under: avalanchego's
// platform names.
var methodPrefixes = []string{"platform."}

// newServer returns the JSON-RPC server of the API (docs/pchain.md):
// avalanchego's platform methods, chainhost's read methods and, with
// dev-api-enabled, the dev methods that move the clock.
func (vm *VM) newServer() *jsonrpc.Server {
	s := vm.NewServer(methodPrefixes, map[string]jsonrpc.Handler{
		"getBalance":           jsonrpc.Method(vm.getBalance),
		"getTimestamp":         jsonrpc.Method(vm.getTimestamp),
		"getCurrentValidators": jsonrpc.Method(vm.getCurrentValidators),
		"getSubnets":           jsonrpc.Method(vm.getSubnets),
		"getSubnet":            jsonrpc.Method(vm.getSubnet),
		"getBlockchains":       jsonrpc.Method(vm.getBlockchains),
		"getL1Validator":       jsonrpc.Method(vm.getL1Validator),
		"getStakingAssetID":    jsonrpc.Method(vm.getStakingAssetID),
		"getMinStake":          jsonrpc.Method(vm.getMinStake),
	})
	vm.registerReads(s)
	s.Register(pvmapi.GetConfigMethod, jsonrpc.Method(vm.getConfig))
	if vm.cfg.DevAPIEnabled {
		s.Register(pvmapi.IncreaseTimeMethod, jsonrpc.Method(vm.increaseTime))
		s.Register(pvmapi.SetTimeMethod, jsonrpc.Method(vm.setTime))
	}
	return s
}

// checkLocked verifies a new transaction against the state at the
// chain's time and the mempool. Mu is held.
func (vm *VM) checkLocked(ctx context.Context, tx *txs.Tx) (*pending, error) {
	if err := vm.buildDueLocked(); err != nil && !errors.Is(err, utxovm.ErrShuttingDown) {
		vm.Env.Logger.Debug("verifying against a state behind the clock", "error", err)
	}
	d := newDiff(vm.state)
	if err := d.advance(vm.nowLocked(), uint64(vm.cfg.L1FeeRate)); err != nil {
		return nil, err
	}
	if err := vm.execute(ctx, d, tx, vm.Pool); err != nil {
		return nil, err
	}
	p := &pending{Tx: tx}
	for _, in := range tx.Unsigned.Base().Ins {
		p.Spends = append(p.Spends, in.InputID())
	}
	p.Imports = slices.Collect(maps.Keys(d.imported))
	return p, nil
}

// parseSubnetID reads an optional subnet ID param; empty is the primary
// network.
func parseSubnetID(param, s string) (ids.ID, error) {
	if s == "" {
		return txs.PrimaryNetworkID, nil
	}
	return utxoapi.ParseID(param, s)
}

// parseAddresses reads a list of address params, sorted and unique.
func (vm *VM) parseAddresses(ctx context.Context, param string, list []string) ([]avax.ShortID, error) {
	if err := utxoapi.CheckAddressCount(param, list); err != nil {
		return nil, err
	}
	return vm.APIChain().ParseAddressList(ctx, param, list)
}

type getBalanceArgs struct {
	Addresses []string `json:"addresses"`
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
	UTXOIDs             []utxovm.UTXORef          `json:"utxoIDs"`
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
	out := getBalanceReply{UTXOIDs: []utxovm.UTXORef{}}
	seen := map[ids.ID]bool{}
	for _, addr := range addrs {
		err := vm.Store.OwnedUTXOs(ctx, addr, func(u avax.UTXO) error {
			if seen[u.InputID()] {
				return nil
			}
			seen[u.InputID()] = true
			if u.Out.Locktime <= now {
				unlocked += u.Out.Amt
			} else {
				locked += u.Out.Amt
			}
			out.UTXOIDs = append(out.UTXOIDs, utxovm.UTXORef{TxID: u.TxID, OutputIndex: u.OutputIndex})
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

// lastHeight is the height of the last accepted block, once every block
// that is due is made.
func (vm *VM) lastHeight() (uint64, error) {
	s, _ := vm.current()
	return s.Height, nil
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

// primaryOnly reads the subnetID param of a method only the primary
// network answers; why says so.
func primaryOnly(a stakingAssetArgs, why string) error {
	id, err := parseSubnetID("subnetID", a.SubnetID)
	if err == nil && id != txs.PrimaryNetworkID {
		err = jsonrpc.InvalidParams(`"subnetID": %s`, why)
	}
	return err
}

// getStakingAssetID returns AVAX's ID: the primary network stakes AVAX.
func (vm *VM) getStakingAssetID(_ context.Context, a stakingAssetArgs) (stakingAssetReply, error) {
	if err := primaryOnly(a, "only the primary network has a staking asset"); err != nil {
		return stakingAssetReply{}, err
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
	if err := primaryOnly(a, "only the primary network takes stake"); err != nil {
		return minStakeReply{}, err
	}
	return minStakeReply{MinValidatorStake: vm.cfg.MinValidatorStake, MinDelegatorStake: vm.cfg.MinDelegatorStake}, nil
}

// parseNodeIDs reads a nodeIDs param.
func parseNodeIDs(list []string) (map[avax.NodeID]bool, error) {
	out := map[avax.NodeID]bool{}
	for i, s := range list {
		n, err := avax.ParseNodeID(s)
		if err != nil {
			return nil, jsonrpc.InvalidParams("%q: %v", fmt.Sprintf("nodeIDs[%d]", i), err)
		}
		out[n] = true
	}
	return out, nil
}
