package pvm

import (
	"context"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// getValidations returns the validations the blocks from a height on
// started, read from their transactions (at height 0, the genesis
// validators'): what the metrics module keeps of each subnet's and node's
// validations as the blocks are accepted (docs/pchain.md).
func (vm *VM) getValidations(ctx context.Context, a pvmapi.ValidationsArgs) ([]pvmapi.BlockValidations, error) {
	s, _ := vm.current()
	out := []pvmapi.BlockValidations{}
	from := uint64(a.Height)
	if from > s.Height {
		return out, nil
	}
	n := min(uint64(a.Count), pvmapi.MaxValidationBlocks, s.Height-from+1)
	for h := from; h < from+n; h++ {
		b, err := vm.Block(ctx, h)
		if err != nil {
			return nil, err
		}
		bv := pvmapi.BlockValidations{Height: jsonrpc.Uint64(h), Time: jsonrpc.Uint64(b.Time),
			Validators: []pvmapi.Validation{}, L1Validators: []pvmapi.L1Validation{}}
		list := b.Txs
		if h == 0 {
			list = vm.genesis.validators
		}
		for _, t := range list {
			if err := vm.validationsOf(t, b.Time, &bv); err != nil {
				return nil, fmt.Errorf("block at height %d: %w", h, err)
			}
		}
		out = append(out, bv)
	}
	return out, nil
}

// validationsOf adds to bv the validations an accepted transaction of a
// block made at time started.
func (vm *VM) validationsOf(t *txs.Tx, time uint64, bv *pvmapi.BlockValidations) error {
	primary := func(v txs.Validator, rewards avax.OutputOwners) {
		bv.Validators = append(bv.Validators, pvmapi.Validation{TxID: t.ID(), NodeID: v.NodeID,
			StartTime: jsonrpc.Uint64(periodStart(v, time)), EndTime: jsonrpc.Uint64(v.End), RewardAddresses: vm.FormatAddresses(rewards.Addrs)})
	}
	l1 := func(v pvmapi.L1Validation) {
		v.StartTime = jsonrpc.Uint64(time)
		bv.L1Validators = append(bv.L1Validators, v)
	}
	switch u := t.Unsigned.(type) {
	case *txs.AddValidatorTx:
		primary(u.Validator, u.RewardsOwner)
	case *txs.AddPermissionlessValidatorTx:
		primary(u.Validator, u.ValidatorRewardsOwner)
	case *txs.ConvertSubnetToL1Tx:
		for i, v := range u.Validators {
			nodeID, _ := avax.NodeIDFromBytes(v.NodeID) // checked by txs.Verify
			l1(pvmapi.L1Validation{ValidationID: txs.ConvertValidationID(u.Subnet, uint32(i)), SubnetID: u.Subnet, NodeID: nodeID})
		}
	case *txs.RegisterL1ValidatorTx:
		r, err := registerMessage(u)
		if err != nil {
			return fmt.Errorf("tx %s: %w", t.ID(), err)
		}
		nodeID, _ := avax.NodeIDFromBytes(r.NodeID) // checked by r.Verify when accepted
		l1(pvmapi.L1Validation{ValidationID: r.ValidationID(), SubnetID: r.SubnetID, NodeID: nodeID})
	}
	return nil
}

// registerMessage returns the RegisterL1Validator message of an accepted
// registration.
func registerMessage(u *txs.RegisterL1ValidatorTx) (*warp.RegisterL1Validator, error) {
	_, _, payload, err := parseWarp(u.Message)
	if err != nil {
		return nil, err
	}
	r, ok := payload.(*warp.RegisterL1Validator)
	if !ok {
		return nil, fmt.Errorf("the Warp message carries a %T, not a RegisterL1Validator", payload)
	}
	return r, nil
}
