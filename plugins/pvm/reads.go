package pvm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/sdk/blockinfo"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// prefixRemoved keys what stays of an L1 validator once removed (weight 0):
// r <validationID> -> removedL1 (JSON), so that its fees can be read.
const prefixRemoved = 'r'

func removedKey(id ids.ID) []byte { return utxovm.Key(prefixRemoved, id[:]) }

// removedL1 is an L1 validator removed from its L1.
type removedL1 struct {
	SubnetID  ids.ID `json:"subnetID"`
	StartTime uint64 `json:"startTime"`
	Removed   uint64 `json:"removed"`
}

// registerReads registers chainhost's read methods (pvmapi) on s.
func (vm *VM) registerReads(s *jsonrpc.Server) {
	s.Register(pvmapi.GetStakingTotalsMethod, jsonrpc.Method(vm.getStakingTotals))
	s.Register(pvmapi.GetL1ValidatorFeesMethod, jsonrpc.Method(vm.getL1ValidatorFees))
	s.Register(pvmapi.GetL1FeeTotalsMethod, jsonrpc.Method(vm.getL1FeeTotals))
	s.Register(pvmapi.GetValidationsMethod, jsonrpc.Method(vm.getValidations))
	s.Register(pvmapi.GetBlocksMethod, jsonrpc.Method(vm.getBlocks))
}

// blockType is the type name of the chain's one block format (the genesis
// block's too), as avalanchego's block JSON writes it.
const blockType = "BanffStandardBlock"

// getBlocks returns the accepted blocks from a height on, each with its
// transactions in their JSON form, for a module that indexes the chain.
func (vm *VM) getBlocks(ctx context.Context, a pvmapi.BlocksArgs) ([]pvmapi.Block, error) {
	last, err := vm.AcceptedCount(ctx, kindBlock) // the last height: block 0 is not counted
	if err != nil {
		return nil, err
	}
	from := uint64(a.Height)
	if from > last {
		return []pvmapi.Block{}, nil
	}
	n := min(uint64(a.Count), pvmapi.MaxBlocks, last-from+1)
	out := make([]pvmapi.Block, 0, n)
	for h := from; h < from+n; h++ {
		b, err := vm.Block(ctx, h)
		if err != nil {
			return nil, err
		}
		blk := pvmapi.Block{ID: b.ID(), ParentID: b.Parent, Height: jsonrpc.Uint64(h), Time: jsonrpc.Uint64(b.Time),
			Size: jsonrpc.Uint64(len(b.Bytes())), Type: blockType, Txs: make([]pvmapi.BlockTx, len(b.Txs))}
		for i, t := range b.Txs {
			raw, err := json.Marshal(vm.txJSON(t).Unsigned)
			if err != nil {
				return nil, fmt.Errorf("block %d: transaction %s: %w", h, t.ID(), err)
			}
			// The transaction types are named as avalanchego names them.
			blk.Txs[i] = pvmapi.BlockTx{ID: t.ID(), Type: reflect.TypeOf(t.Unsigned).Elem().Name(), Unsigned: raw}
		}
		out = append(out, blk)
	}
	return out, nil
}

// newIndexerServer returns the JSON-RPC server of the internal handler.
func (vm *VM) newIndexerServer() *jsonrpc.Server {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	vm.registerReads(s)
	s.Register(blockinfo.Method, jsonrpc.Method(vm.GetBlockInfo))
	return s
}

// totalsAt reads the staking totals stored after the block at a height.
func (vm *VM) totalsAt(ctx context.Context, h uint64) (stakingTotals, error) {
	var t stakingTotals
	found, err := vm.Store.ReadJSON(ctx, totalsKey(h), &t)
	if err == nil && !found {
		err = fmt.Errorf("no staking totals at height %d", h)
	}
	return t, err
}

// getStakingTotals returns the subnets' validators and delegators after
// the block at a height, or after the last block at or before a time (a
// change of the validator set always has a block at its exact time).
func (vm *VM) getStakingTotals(ctx context.Context, a pvmapi.StakingTotalsArgs) (pvmapi.StakingTotals, error) {
	var subnetID ids.ID
	if a.SubnetID != "" {
		id, err := utxoapi.ParseID("subnetID", a.SubnetID)
		if err != nil {
			return pvmapi.StakingTotals{}, err
		}
		subnetID = id
	}
	s, now := vm.current()
	h := s.Height
	switch {
	case a.Time != nil && a.Height != nil:
		return pvmapi.StakingTotals{}, jsonrpc.InvalidParams(`give "time" or "height", not both`)
	case a.Height != nil:
		if uint64(*a.Height) > s.Height {
			return pvmapi.StakingTotals{}, jsonrpc.InvalidParams(`"height": %d is above the last accepted block, %d`, *a.Height, s.Height)
		}
		h = uint64(*a.Height)
	case a.Time != nil:
		t := uint64(*a.Time)
		switch {
		case t > now:
			return pvmapi.StakingTotals{}, jsonrpc.InvalidParams(`"time": %d is after the chain's time, %d`, t, now)
		case t < s.GenesisTime:
			return pvmapi.StakingTotals{}, jsonrpc.InvalidParams(`"time": %d is before the chain's genesis, %d`, t, s.GenesisTime)
		}
		// The last height whose block's time is at most t.
		lo, hi := uint64(0), s.Height
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			tot, err := vm.totalsAt(ctx, mid)
			if err != nil {
				return pvmapi.StakingTotals{}, err
			}
			if tot.Time <= t {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		h = lo
	}
	tot, err := vm.totalsAt(ctx, h)
	if err != nil {
		return pvmapi.StakingTotals{}, err
	}
	out := pvmapi.StakingTotals{Height: jsonrpc.Uint64(h), Time: jsonrpc.Uint64(tot.Time), Subnets: []pvmapi.SubnetTotals{}}
	if a.SubnetID != "" {
		if _, ok := tot.Subnets[subnetID]; !ok {
			return pvmapi.StakingTotals{}, jsonrpc.InvalidParams(`"subnetID": no subnet %s at height %d`, subnetID, h)
		}
	}
	for _, id := range sortedIDs(tot.Subnets) {
		if a.SubnetID != "" && id != subnetID {
			continue
		}
		st := tot.Subnets[id]
		out.Subnets = append(out.Subnets, pvmapi.SubnetTotals{SubnetID: id, ValidatorCount: jsonrpc.Uint64(st.ValidatorCount),
			ValidatorWeight: jsonrpc.Uint64(st.ValidatorWeight), DelegatorCount: jsonrpc.Uint64(st.DelegatorCount),
			DelegatorWeight: jsonrpc.Uint64(st.DelegatorWeight)})
	}
	return out, nil
}

// dayRange returns the UTC days that meet [startTime, endTime] of a
// (endTime 0: until), clipped to [from, until].
func dayRange(a pvmapi.FeesArgs, from, until uint64) (first, last uint64, empty bool, err error) {
	end := uint64(a.EndTime)
	if end == 0 || end > until {
		end = until
	}
	start := max(uint64(a.StartTime), from)
	if uint64(a.EndTime) != 0 && a.EndTime < a.StartTime {
		return 0, 0, false, jsonrpc.InvalidParams(`"endTime" %d is before "startTime" %d`, a.EndTime, a.StartTime)
	}
	if start > end {
		return 0, 0, true, nil
	}
	first, last = start/pvmapi.SecondsPerDay, end/pvmapi.SecondsPerDay
	if last-first+1 > pvmapi.MaxDays {
		return 0, 0, false, jsonrpc.InvalidParams("%d days asked, more than %d: narrow startTime and endTime", last-first+1, pvmapi.MaxDays)
	}
	return first, last, false, nil
}

// getL1ValidatorFees returns what an L1 validator paid in each UTC day, and
// up to the end of each, counted to the chain's time.
func (vm *VM) getL1ValidatorFees(ctx context.Context, a pvmapi.FeesArgs) (pvmapi.L1ValidatorFees, error) {
	id, err := utxoapi.ParseID("validationID", a.ValidationID)
	if err != nil {
		return pvmapi.L1ValidatorFees{}, err
	}
	s, now := vm.current()
	var subnetID ids.ID
	start, end := uint64(0), now
	pendingFees := map[uint64]uint64{}
	if v, ok := s.l1[id]; ok {
		subnetID, start = v.SubnetID, v.StartTime
		payDays(v, uint64(vm.cfg.L1FeeRate), max(s.Time, v.Since), now, func(day, amount uint64) { pendingFees[day] += amount })
	} else {
		var r removedL1
		found, err := vm.Store.ReadJSON(ctx, removedKey(id), &r)
		if err != nil {
			return pvmapi.L1ValidatorFees{}, err
		}
		if !found {
			return pvmapi.L1ValidatorFees{}, jsonrpc.NewError(pvmapi.CodeNotFound, "L1 validator %s not found", id)
		}
		subnetID, start, end = r.SubnetID, r.StartTime, r.Removed
	}
	out := pvmapi.L1ValidatorFees{ValidationID: id, SubnetID: subnetID, AsOf: jsonrpc.Uint64(now), Days: []pvmapi.FeeDay{}}
	first, last, empty, err := dayRange(a, start, end)
	if err != nil || empty {
		return out, err
	}
	recorded := map[uint64]uint64{}
	var cum uint64 // paid before the first day
	prefix := utxovm.Key(prefixFeeDay, id[:])
	err = vm.Store.Iterate(ctx, prefix, nil, func(k, v []byte) error {
		day := binary.BigEndian.Uint64(k[len(prefix):])
		fee := binary.BigEndian.Uint64(v)
		if day < first {
			cum += fee
		} else {
			recorded[day] = fee
		}
		return nil
	})
	if err != nil {
		return pvmapi.L1ValidatorFees{}, fmt.Errorf("read fees of %s: %w", id, err)
	}
	for day, fee := range pendingFees {
		if day < first {
			cum += fee
		}
	}
	for day := first; day <= last; day++ {
		fees := recorded[day] + pendingFees[day]
		cum += fees
		out.Days = append(out.Days, pvmapi.FeeDay{Day: jsonrpc.Uint64(day * pvmapi.SecondsPerDay), Fees: jsonrpc.Uint64(fees), CumulativeFees: jsonrpc.Uint64(cum)})
	}
	return out, nil
}

// getL1FeeTotals returns what all L1 validators paid in each UTC day, up to
// the end of each, and how many paid, counted to the chain's time.
func (vm *VM) getL1FeeTotals(ctx context.Context, a pvmapi.FeesArgs) (pvmapi.FeeTotals, error) {
	if a.ValidationID != "" {
		return pvmapi.FeeTotals{}, jsonrpc.InvalidParams(`"validationID": the totals are of every L1 validator (%s gives one's)`, pvmapi.GetL1ValidatorFeesMethod)
	}
	s, now := vm.current()
	out := pvmapi.FeeTotals{AsOf: jsonrpc.Uint64(now), Days: []pvmapi.FeeDay{}}
	first, last, empty, err := dayRange(a, s.GenesisTime, now)
	if err != nil || empty {
		return out, err
	}
	days := map[uint64]feeTotal{}
	var cum uint64
	err = vm.Store.Iterate(ctx, []byte{prefixFeeTotal}, nil, func(k, v []byte) error {
		day := binary.BigEndian.Uint64(k[1:])
		var t feeTotal
		if err := json.Unmarshal(v, &t); err != nil {
			return err
		}
		if day < first {
			cum += t.Fees
		} else {
			days[day] = t
		}
		return nil
	})
	if err != nil {
		return pvmapi.FeeTotals{}, fmt.Errorf("read fee totals: %w", err)
	}
	rate := uint64(vm.cfg.L1FeeRate)
	for _, id := range sortedIDs(s.l1) {
		v := s.l1[id]
		payDays(v, rate, max(s.Time, v.Since), now, func(day, amount uint64) {
			if day < first {
				cum += amount
				return
			}
			t := days[day]
			t.Fees += amount
			if v.PaidDays < day+1 {
				t.Paying++
			}
			days[day] = t
		})
	}
	for day := first; day <= last; day++ {
		t := days[day]
		cum += t.Fees
		paying := jsonrpc.Uint64(t.Paying)
		out.Days = append(out.Days, pvmapi.FeeDay{Day: jsonrpc.Uint64(day * pvmapi.SecondsPerDay), Fees: jsonrpc.Uint64(t.Fees),
			CumulativeFees: jsonrpc.Uint64(cum), PayingValidators: &paying})
	}
	return out, nil
}
