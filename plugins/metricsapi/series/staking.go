package series

import (
	"context"
	"fmt"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/metricsapi/pchain"
	"github.com/chainhost/chainhost/plugins/metricsapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// followStaking keeps the staking series of a P-Chain: from the stored
// progress on, live, it asks the chain for the totals after each block
// (P/block position p holds height p+1; the genesis, height 0, comes
// first) and stores those of each subnet, and their sum, that changed, at
// the block's hour. A later block of the same hour replaces them, so an
// hour's record is the state at its end (docs/metrics-api.md, "Staking").
func (f *Follower) followStaking(ctx context.Context, c *chain) error {
	p, err := f.opts.Store.StakingProgress(c.id)
	if err != nil {
		return err
	}
	c.staking.read.Store(p.Next)
	pc := pchain.New(f.opts.Host.Calls, c.id.String())
	st := totals{subnets: map[ids.ID]store.Totals{}}
	// The totals the next block's are compared with: after the last block
	// read, or none before the genesis.
	base, err := pc.StakingTotals(ctx, p.Next)
	if err != nil {
		return fmt.Errorf("staking totals after block %d: %w", p.Next, err)
	}
	changes := st.apply(base, nil)
	if !p.Genesis {
		if p.Next != 0 {
			return fmt.Errorf("staking progress at position %d without the genesis", p.Next)
		}
		p.Genesis, p.LastBlockTime = true, int64(base.Time)
		if err := f.opts.Store.AddStaking(c.id, p, changes); err != nil {
			return err
		}
	}
	// The totals after the blocks at positions from on: position p holds
	// height p+1.
	read := func(ctx context.Context, from uint64, count int) ([]pvmapi.StakingTotals, error) {
		out := make([]pvmapi.StakingTotals, count)
		for i := range out {
			height := from + uint64(i) + 1
			t, err := pc.StakingTotals(ctx, height)
			if err != nil {
				return nil, fmt.Errorf("staking totals after block %d: %w", height, err)
			}
			if uint64(t.Height) != height {
				return nil, fmt.Errorf("staking totals after block %d: the chain answered height %d", height, t.Height)
			}
			out[i] = t
		}
		return out, nil
	}
	return blocks(f, c, read).Run(ctx, p.Next, func(_ uint64, batch []pvmapi.StakingTotals) error {
		changes = changes[:0]
		for _, t := range batch {
			changes = st.apply(t, changes)
			p.Next, p.LastBlockTime = uint64(t.Height), int64(t.Time)
		}
		if err := f.opts.Store.AddStaking(c.id, p, changes); err != nil {
			return err
		}
		c.staking.read.Store(p.Next)
		c.staking.err.Store(nil)
		return nil
	})
}

// totals are the totals after the last block read, by subnet, and their
// sum.
type totals struct {
	subnets map[ids.ID]store.Totals
	all     store.Totals
	hasAll  bool
}

// apply takes the totals after a block and appends to changes the series
// whose totals it changes, at the block's hour.
func (s *totals) apply(t pvmapi.StakingTotals, changes []store.StakingChange) []store.StakingChange {
	hour := store.HourOf(int64(t.Time))
	var all store.Totals
	for _, sub := range t.Subnets {
		v := store.Totals{
			ValidatorCount: uint64(sub.ValidatorCount), ValidatorWeight: uint64(sub.ValidatorWeight),
			DelegatorCount: uint64(sub.DelegatorCount), DelegatorWeight: uint64(sub.DelegatorWeight),
		}
		all = all.Add(v)
		if old, ok := s.subnets[sub.SubnetID]; !ok || old != v {
			s.subnets[sub.SubnetID] = v
			changes = append(changes, store.StakingChange{Series: store.SubnetSeries(sub.SubnetID), HourTotals: store.HourTotals{Hour: hour, Totals: v}})
		}
	}
	if !s.hasAll || all != s.all {
		s.all, s.hasAll = all, true
		changes = append(changes, store.StakingChange{Series: store.AllSubnets, HourTotals: store.HourTotals{Hour: hour, Totals: all}})
	}
	return changes
}
