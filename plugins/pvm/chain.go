package pvm

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// chainState is the chain's state the VM keeps in memory: its head, the
// primary network's stakers, the subnets and their chains, the L1
// validators and the expiries of register messages. UTXOs, transactions,
// blocks and the fee records stay in the database. Every block is built
// on a copy (a diff) that replaces it once the host has the block.
type chainState struct {
	meta
	stakers  map[ids.ID]*staker
	subnets  map[ids.ID]*subnet
	chains   map[ids.ID]*chainRec
	l1       map[ids.ID]*l1Validator
	expiries map[ids.ID]uint64
}

func newChainState(m meta) *chainState {
	return &chainState{meta: m, stakers: map[ids.ID]*staker{}, subnets: map[ids.ID]*subnet{},
		chains: map[ids.ID]*chainRec{}, l1: map[ids.ID]*l1Validator{}, expiries: map[ids.ID]uint64{}}
}

// loadState reads the state from the database.
func loadState(ctx context.Context, st utxovm.Store) (*chainState, bool, error) {
	var m meta
	found, err := st.ReadMeta(ctx, &m)
	if err != nil || !found {
		return nil, found, err
	}
	s := newChainState(m)
	err = errors.Join(
		loadRecords(ctx, st, prefixStaker, func(r *staker) { s.stakers[r.TxID] = r }),
		loadRecords(ctx, st, prefixSubnet, func(r *subnet) { s.subnets[r.ID] = r }),
		loadRecords(ctx, st, prefixChain, func(r *chainRec) { s.chains[r.ID] = r }),
		loadRecords(ctx, st, prefixL1, func(r *l1Validator) { s.l1[r.ValidationID] = r }),
		st.Iterate(ctx, []byte{prefixExpiry}, nil, func(k, v []byte) error {
			id, err := ids.FromBytes(k[1:])
			if err != nil || len(v) != 8 {
				return fmt.Errorf("corrupt expiry %x", k)
			}
			s.expiries[id] = binary.BigEndian.Uint64(v)
			return nil
		}))
	if err != nil {
		return nil, true, fmt.Errorf("load chain state: %w", err)
	}
	return s, true, nil
}

// loadRecords reads every JSON record under prefix and adds each.
func loadRecords[T any](ctx context.Context, st utxovm.Store, prefix byte, add func(*T)) error {
	return st.Iterate(ctx, []byte{prefix}, nil, func(_, v []byte) error {
		r := new(T)
		if err := json.Unmarshal(v, r); err != nil {
			return err
		}
		add(r)
		return nil
	})
}

// clone returns a deep copy: records are copied, their slices shared
// (never changed in place).
func (s *chainState) clone() *chainState {
	c := &chainState{meta: s.meta, stakers: make(map[ids.ID]*staker, len(s.stakers)),
		subnets: make(map[ids.ID]*subnet, len(s.subnets)), chains: maps.Clone(s.chains),
		l1: make(map[ids.ID]*l1Validator, len(s.l1)), expiries: maps.Clone(s.expiries)}
	for k, v := range s.stakers {
		r := *v
		c.stakers[k] = &r
	}
	for k, v := range s.subnets {
		r := *v
		c.subnets[k] = &r
	}
	for k, v := range s.l1 {
		r := *v
		c.l1[k] = &r
	}
	return c
}

// sortedIDs returns a map's keys in order, so that every walk of the state
// is deterministic.
func sortedIDs[V any](m map[ids.ID]V) []ids.ID {
	out := slices.Collect(maps.Keys(m))
	slices.SortFunc(out, ids.ID.Compare)
	return out
}

// validatorsOf returns the node's validator stakers, pending or current.
func (s *chainState) validatorsOf(node avax.NodeID) []*staker {
	var out []*staker
	for _, id := range sortedIDs(s.stakers) {
		if st := s.stakers[id]; !st.Delegator && st.NodeID == node {
			out = append(out, st)
		}
	}
	return out
}

// l1OfNode returns the L1 validator of a node on a subnet, if any.
func (s *chainState) l1OfNode(subnetID ids.ID, node avax.NodeID) *l1Validator {
	for _, v := range s.l1 {
		if v.SubnetID == subnetID && v.NodeID == node {
			return v
		}
	}
	return nil
}

// subnetTotals are a subnet's validators and delegators at one moment:
// how many, and their weight (a primary-network validator's own stake; an
// L1 validator's weight). An L1's counts are its active validators'.
type subnetTotals struct {
	ValidatorCount  uint64 `json:"validatorCount"`
	ValidatorWeight uint64 `json:"validatorWeight"`
	DelegatorCount  uint64 `json:"delegatorCount"`
	DelegatorWeight uint64 `json:"delegatorWeight"`
}

// stakingTotals is the totals of every subnet after a block.
type stakingTotals struct {
	Time    uint64                   `json:"time"`
	Subnets map[ids.ID]*subnetTotals `json:"subnets"`
}

// totals counts the current stakers and the active L1 validators of every
// subnet (the primary network and each subnet the chain knows).
func (s *chainState) totals() stakingTotals {
	t := stakingTotals{Time: s.Time, Subnets: map[ids.ID]*subnetTotals{txs.PrimaryNetworkID: {}}}
	for id := range s.subnets {
		t.Subnets[id] = &subnetTotals{}
	}
	for _, st := range s.stakers {
		if !st.Current {
			continue
		}
		p := t.Subnets[txs.PrimaryNetworkID]
		if st.Delegator {
			p.DelegatorCount++
			p.DelegatorWeight += st.Weight
		} else {
			p.ValidatorCount++
			p.ValidatorWeight += st.Weight
		}
	}
	for _, v := range s.l1 {
		if v.Active {
			st := t.Subnets[v.SubnetID]
			st.ValidatorCount++
			st.ValidatorWeight += v.Weight
		}
	}
	return t
}

// diff is a block being built: the state after it (a copy of the chain's
// state, changed in place) and what it changes besides, the database
// writes of which ops returns.
type diff struct {
	*chainState
	// dirty names the changed records by their keys; a record no longer
	// in the state is deleted.
	dirty map[string]func() host.Op
	// spent are the UTXOs the block's transactions spend, by ID, with the
	// spender; created the UTXOs they and the ends of staking periods make.
	spent   map[ids.ID]spentUTXO
	created []avax.UTXO
	// feeDays and feeTotals are what L1 validators paid during the block's
	// advance of time: per validation ID and UTC day, and per day.
	feeDays   map[feeDayRef]uint64
	feeTotals map[uint64]*feeTotal
	// txOps are the writes of the block's transactions (their records).
	txOps []host.Op
	// imported are the shared-memory UTXOs the block's transactions
	// import, by ID, with the importer; shared the block's shared-memory
	// requests (those imports' removals, the exports' puts).
	imported map[ids.ID]ids.ID
	shared   host.SharedBatch
}

type spentUTXO struct {
	utxo avax.UTXO
	by   ids.ID
}

type feeDayRef struct {
	id  ids.ID
	day uint64
}

func newDiff(s *chainState) *diff {
	return &diff{chainState: s.clone(), dirty: map[string]func() host.Op{}, spent: map[ids.ID]spentUTXO{},
		imported: map[ids.ID]ids.ID{}, feeDays: map[feeDayRef]uint64{}, feeTotals: map[uint64]*feeTotal{}}
}

// touch marks a record changed: at the end its current value is written,
// or it is deleted when gone.
func (d *diff) touch(k []byte, current func() (any, bool)) {
	d.dirty[string(k)] = func() host.Op {
		if v, ok := current(); ok {
			return utxovm.JSONOp(k, v)
		}
		return host.Op{Key: k, Delete: true}
	}
}

func (d *diff) touchStaker(id ids.ID) {
	d.touch(stakerKey(id), func() (any, bool) { v, ok := d.stakers[id]; return v, ok })
}

func (d *diff) touchSubnet(id ids.ID) {
	d.touch(subnetKey(id), func() (any, bool) { v, ok := d.subnets[id]; return v, ok })
}

func (d *diff) touchChain(id ids.ID) {
	d.touch(chainKey(id), func() (any, bool) { v, ok := d.chains[id]; return v, ok })
}

func (d *diff) touchL1(id ids.ID) {
	d.touch(l1Key(id), func() (any, bool) { v, ok := d.l1[id]; return v, ok })
}

func (d *diff) touchExpiry(id ids.ID) {
	k := expiryKey(id)
	d.dirty[string(k)] = func() host.Op {
		if v, ok := d.expiries[id]; ok {
			return host.Op{Key: k, Value: utxovm.U64(v)}
		}
		return host.Op{Key: k, Delete: true}
	}
}

// addFee records that v paid amount in a UTC day.
func (d *diff) addFee(v *l1Validator, day, amount uint64) {
	d.feeDays[feeDayRef{v.ValidationID, day}] += amount
	t, ok := d.feeTotals[day]
	if !ok {
		t = &feeTotal{}
		d.feeTotals[day] = t
	}
	t.Fees += amount
	if v.PaidDays < day+1 {
		v.PaidDays = day + 1
		t.Paying++
	}
	v.Paid += amount
	d.L1FeesPaid += amount
}

// ops returns the database writes of the block: the changed records, the
// UTXOs, the fee records (added to what the database holds) and the
// staking totals after the block, without the block itself and the meta.
func (d *diff) ops(ctx context.Context, store utxovm.Store) ([]host.Op, error) {
	ops := append([]host.Op{}, d.txOps...)
	for _, k := range slices.Sorted(maps.Keys(d.dirty)) {
		ops = append(ops, d.dirty[k]())
	}
	for _, id := range slices.SortedFunc(maps.Keys(d.spent), ids.ID.Compare) {
		s := d.spent[id]
		ops = utxostore.Spend(ops, s.utxo, s.by)
	}
	for _, u := range d.created {
		ops = utxostore.Put(ops, u)
	}
	for _, r := range slices.SortedFunc(maps.Keys(d.feeDays), func(a, b feeDayRef) int {
		if c := a.id.Compare(b.id); c != 0 {
			return c
		}
		return cmpU64(a.day, b.day)
	}) {
		was, err := store.Counter(ctx, feeDayKey(r.id, r.day))
		if err != nil {
			return nil, err
		}
		ops = append(ops, host.Op{Key: feeDayKey(r.id, r.day), Value: utxovm.U64(was + d.feeDays[r])})
	}
	for _, day := range slices.Sorted(maps.Keys(d.feeTotals)) {
		t, err := storedFeeTotal(ctx, store, day)
		if err != nil {
			return nil, err
		}
		t.Fees += d.feeTotals[day].Fees
		t.Paying += d.feeTotals[day].Paying
		ops = append(ops, utxovm.JSONOp(feeTotalKey(day), t))
	}
	ops = append(ops, utxovm.JSONOp(totalsKey(d.Height), d.totals()))
	return ops, nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
