package series

import (
	"context"
	"fmt"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/pchain"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
)

// followValidations keeps the validations of a P-Chain: from the stored
// progress on (the genesis' validators first), live, it asks the chain
// for the validations each block started (pvm.getValidations) and stores
// them, so that a subnet's and a node's L1 validators and the
// primary-network validators of a time range are read from the store
// (docs/metrics-api.md, "Validations"). A store from before them starts
// at the genesis, once: they need the chain's history.
func (f *Follower) followValidations(ctx context.Context, c *chain) error {
	p, err := f.opts.Store.ValidationsProgress(c.id)
	if err != nil {
		return err
	}
	pc := pchain.New(f.opts.Host.Calls, c.id.String())
	// Heights from on, each exactly: position p holds height p+1.
	read := func(ctx context.Context, from uint64, count int) ([]store.BlockValidations, error) {
		out := make([]store.BlockValidations, 0, count)
		for len(out) < count {
			height := from + uint64(len(out))
			got, err := pc.Validations(ctx, height, min(count-len(out), pvmapi.MaxValidationBlocks))
			if err != nil {
				return nil, fmt.Errorf("validations from block %d: %w", height, err)
			}
			if len(got) == 0 {
				return nil, fmt.Errorf("validations from block %d: the chain has no such block", height)
			}
			for i, b := range got {
				if uint64(b.Height) != height+uint64(i) {
					return nil, fmt.Errorf("validations of block %d: the chain answered height %d", height+uint64(i), b.Height)
				}
				out = append(out, blockValidations(b))
			}
		}
		return out, nil
	}
	if p.Next == 0 {
		genesis, err := read(ctx, 0, 1)
		if err != nil {
			return err
		}
		p.Next = 1
		if err := f.opts.Store.AddValidations(c.id, p, genesis); err != nil {
			return err
		}
	}
	c.validations.read.Store(p.Next - 1)
	positions := func(ctx context.Context, from uint64, count int) ([]store.BlockValidations, error) {
		return read(ctx, from+1, count)
	}
	return blocks(f, c, positions).Run(ctx, p.Next-1, func(_ uint64, batch []store.BlockValidations) error {
		p.Next += uint64(len(batch))
		if err := f.opts.Store.AddValidations(c.id, p, batch); err != nil {
			return err
		}
		c.validations.read.Store(p.Next - 1)
		c.validations.err.Store(nil)
		return nil
	})
}

// blockValidations returns what the store keeps of a block's validations.
func blockValidations(b pvmapi.BlockValidations) store.BlockValidations {
	out := store.BlockValidations{}
	for _, v := range b.Validators {
		out.Validators = append(out.Validators, store.Validation{TxID: v.TxID, Start: uint64(v.StartTime), NodeID: v.NodeID,
			End: uint64(v.EndTime), Addresses: v.RewardAddresses})
	}
	for _, v := range b.L1Validators {
		out.L1Validators = append(out.L1Validators, store.L1Validation{ID: v.ValidationID, Subnet: v.SubnetID, NodeID: v.NodeID})
	}
	return out
}
