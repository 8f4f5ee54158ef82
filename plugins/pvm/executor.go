package pvm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/utxostore"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/bls"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// rejected returns an error matching utxovm.ErrRejected that says why.
var rejected = utxovm.Rejected

// registerExpiryWindow is how far ahead of the chain's time a register
// message may expire, as in avalanchego.
const registerExpiryWindow = pvmapi.SecondsPerDay

// execution is one transaction applied to a diff at the diff's time: its
// checks first, then its changes, so that a refused transaction changes
// nothing.
type execution struct {
	vm   *VM
	ctx  context.Context
	d    *diff
	tx   *txs.Tx
	id   ids.ID
	now  uint64
	hash [32]byte
	// pool is the mempool, whose transactions' spends and imports a new
	// transaction may not repeat (nil when building a block: they are in
	// the diff then).
	pool *utxovm.Mempool[txs.Unsigned, struct{}]
	// spends are the UTXOs the inputs spend, in order.
	spends []avax.UTXO
}

// execute applies tx to d: it checks the transaction against the state
// (and, with pool, against the mempool) and, if it is valid, applies its
// changes. A refused transaction leaves d unchanged.
func (vm *VM) execute(ctx context.Context, d *diff, tx *txs.Tx, pool *utxovm.Mempool[txs.Unsigned, struct{}]) error {
	e := &execution{vm: vm, ctx: ctx, d: d, tx: tx, id: tx.ID(), now: d.Time, hash: sha256.Sum256(tx.UnsignedBytes()), pool: pool}
	if err := txs.Verify(tx, vm.txCtx); err != nil {
		return rejected(e.id, "%v", err)
	}
	if err := e.checkInputs(); err != nil {
		return err
	}
	var (
		apply    func()
		imported uint64 // AVAX the transaction imports besides its inputs
		extra    uint64 // AVAX the transaction locks, exports or gives L1 validators besides its outputs
		err      error
	)
	fee := uint64(vm.cfg.TxFee)
	switch u := tx.Unsigned.(type) {
	case *txs.BaseTx:
		apply = func() {}
	case *txs.ImportTx:
		apply, imported, err = e.importUTXOs(u)
	case *txs.ExportTx:
		apply, extra, err = e.export(u)
	case *txs.AddValidatorTx:
		apply, err = e.addValidator(u.Validator, u.StakeOuts, u.DelegationShares, nil)
		extra = u.Validator.Weight
	case *txs.AddPermissionlessValidatorTx:
		apply, err = e.addValidator(u.Validator, u.StakeOuts, u.DelegationShares, u.Signer)
		extra = u.Validator.Weight
	case *txs.AddDelegatorTx:
		apply, err = e.addDelegator(u.Validator, u.StakeOuts)
		extra = u.Validator.Weight
	case *txs.AddPermissionlessDelegatorTx:
		apply, err = e.addDelegator(u.Validator, u.StakeOuts)
		extra = u.Validator.Weight
	case *txs.CreateSubnetTx:
		fee = uint64(vm.cfg.CreateSubnetTxFee)
		apply = func() {
			d.subnets[e.id] = &subnet{ID: e.id, Owner: u.Owner}
			d.touchSubnet(e.id)
		}
	case *txs.CreateChainTx:
		fee = uint64(vm.cfg.CreateChainTxFee)
		apply, err = e.createChain(u)
	case *txs.ConvertSubnetToL1Tx:
		apply, extra, err = e.convert(u)
	case *txs.RegisterL1ValidatorTx:
		apply, err = e.register(u)
		extra = u.Balance
	case *txs.SetL1ValidatorWeightTx:
		apply, err = e.setWeight(u)
	case *txs.IncreaseL1ValidatorBalanceTx:
		apply, err = e.increaseBalance(u)
		extra = u.Balance
	case *txs.DisableL1ValidatorTx:
		apply, err = e.disable(u)
	default:
		err = rejected(e.id, "unsupported transaction type %T", u)
	}
	if err != nil {
		return err
	}
	burned, err := e.flow(fee, imported, extra)
	if err != nil {
		return err
	}
	apply()
	e.commit(burned)
	return nil
}

// checkInputs checks that every input spends an existing UTXO that no
// transaction of the block or the mempool spends, of its asset and amount,
// signed by its owners.
func (e *execution) checkInputs() error {
	b := e.tx.Unsigned.Base()
	for i, in := range b.Ins {
		utxoID := in.InputID()
		if s, ok := e.d.spent[utxoID]; ok {
			return rejected(e.id, "input %d: double spend: UTXO %s is spent by tx %s of the same block", i, in.UTXOID, s.by)
		}
		if other, ok := e.pendingSpender(utxoID); ok {
			return rejected(e.id, "input %d: double spend: UTXO %s is spent by pending tx %s", i, in.UTXOID, other)
		}
		u, found, err := utxostore.Get(e.ctx, e.vm.Store, utxoID)
		if err != nil {
			return err
		}
		if !found {
			spender, spent, err := utxostore.SpentBy(e.ctx, e.vm.Store, utxoID)
			switch {
			case err != nil:
				return err
			case spent:
				return rejected(e.id, "input %d: double spend: UTXO %s was spent by tx %s", i, in.UTXOID, spender)
			}
			return rejected(e.id, "input %d: UTXO %s does not exist", i, in.UTXOID)
		}
		if u.AssetID != in.AssetID {
			return rejected(e.id, "input %d: names asset %s, but UTXO %s holds asset %s", i, in.AssetID, u.UTXOID, u.AssetID)
		}
		if err := avax.VerifySpend(e.hash[:], &in.In, &e.tx.Creds[i], &u.Out, e.now); err != nil {
			return rejected(e.id, "input %d (UTXO %s): %v", i, in.UTXOID, err)
		}
		e.spends = append(e.spends, u)
	}
	return nil
}

// pendingSpender returns the pending transaction that spends a UTXO.
func (e *execution) pendingSpender(utxoID ids.ID) (ids.ID, bool) {
	if e.pool == nil {
		return ids.ID{}, false
	}
	return e.pool.SpentBy(utxoID)
}

// checkPeer checks that chain, the source of an import or the
// destination of an export, is another chain of the node.
func (e *execution) checkPeer(role string, chain ids.ID) error {
	if e.vm.Env.Host.SharedMemory == nil {
		return rejected(e.id, "this host has no shared memory (docs/shared-memory.md)")
	}
	if chain == e.vm.Env.ChainID {
		return rejected(e.id, "the %s chain is this chain", role)
	}
	if !e.vm.isNodeChain(e.ctx, chain) {
		return rejected(e.id, "the %s chain %s is not a chain of this node", role, chain)
	}
	return nil
}

// importUTXOs checks an import's imported inputs: each spends a UTXO the
// source chain put in shared memory for the P-Chain, that no other
// transaction of the block or the mempool imports, signed by its owners.
// It returns the change (the UTXOs leave shared memory) and the AVAX
// imported.
func (e *execution) importUTXOs(u *txs.ImportTx) (func(), uint64, error) {
	if err := e.checkPeer("source", u.SourceChain); err != nil {
		return nil, 0, err
	}
	var sum uint64
	utxoIDs := make([]ids.ID, len(u.ImportedIns))
	for j, in := range u.ImportedIns {
		what := fmt.Sprintf("imported input %d", j)
		utxoID := in.InputID()
		if other, ok := e.d.imported[utxoID]; ok {
			return nil, 0, rejected(e.id, "%s: UTXO %s is imported by tx %s of the same block", what, in.UTXOID, other)
		}
		if e.pool != nil {
			if other, ok := e.pool.ImportedBy(utxoID); ok {
				return nil, 0, rejected(e.id, "%s: UTXO %s is imported by pending tx %s already", what, in.UTXOID, other)
			}
		}
		utxo, err := utxovm.Imported(e.ctx, e.vm.Env.Host.SharedMemory, e.id, what, u.SourceChain, in)
		if err != nil {
			return nil, 0, err
		}
		cred := &e.tx.Creds[len(u.Ins)+j]
		if err := avax.VerifySpend(e.hash[:], &in.In, cred, &utxo.Out, e.now); err != nil {
			return nil, 0, rejected(e.id, "%s (UTXO %s): %v", what, in.UTXOID, err)
		}
		if sum > math.MaxUint64-in.In.Amt {
			return nil, 0, rejected(e.id, "imported amounts overflow")
		}
		sum += in.In.Amt
		utxoIDs[j] = utxoID
	}
	return func() {
		for _, id := range utxoIDs {
			e.d.imported[id] = e.id
			e.d.shared.Remove(u.SourceChain, id[:])
		}
	}, sum, nil
}

// export checks an export's destination and returns the change (its
// exported outputs go to shared memory, numbered after the outputs) and
// the AVAX exported.
func (e *execution) export(u *txs.ExportTx) (func(), uint64, error) {
	if err := e.checkPeer("destination", u.DestinationChain); err != nil {
		return nil, 0, err
	}
	var sum uint64
	for _, o := range u.ExportedOuts {
		if sum > math.MaxUint64-o.Out.Amt {
			return nil, 0, rejected(e.id, "exported amounts overflow")
		}
		sum += o.Out.Amt
	}
	return func() {
		for j, o := range u.ExportedOuts {
			utxovm.Export(&e.d.shared, u.DestinationChain, avax.UTXO{
				UTXOID: avax.UTXOID{TxID: e.id, OutputIndex: uint32(len(u.Outs) + j)}, AssetID: o.AssetID, Out: o.Out})
		}
	}, sum, nil
}

// flow checks that the inputs and imported AVAX cover the outputs, extra
// and the fee, and returns what the transaction burns: the fee and
// anything left over.
func (e *execution) flow(fee, imported, extra uint64) (uint64, error) {
	b := e.tx.Unsigned.Base()
	in, out := imported, uint64(0)
	for _, i := range b.Ins {
		if in > math.MaxUint64-i.In.Amt {
			return 0, rejected(e.id, "input amounts overflow")
		}
		in += i.In.Amt
	}
	for _, o := range b.Outs {
		if out > math.MaxUint64-o.Out.Amt {
			return 0, rejected(e.id, "output amounts overflow")
		}
		out += o.Out.Amt
	}
	if out > math.MaxUint64-extra || out+extra > math.MaxUint64-fee {
		return 0, rejected(e.id, "amounts overflow")
	}
	if need := out + extra + fee; in < need {
		return 0, rejected(e.id, "insufficient funds: the inputs give %d nAVAX, the tx needs %d (outputs %d, stake, exports or L1 balance %d, fee %d)",
			in, need, out, extra, fee)
	}
	return in - out - extra, nil
}

// commit applies the transaction's spends and outputs and records it.
func (e *execution) commit(burned uint64) {
	for _, u := range e.spends {
		e.d.spent[u.InputID()] = spentUTXO{utxo: u, by: e.id}
	}
	for i, o := range e.tx.Unsigned.Base().Outs {
		e.d.created = append(e.d.created, avax.UTXO{UTXOID: avax.UTXOID{TxID: e.id, OutputIndex: uint32(i)}, AssetID: o.AssetID, Out: o.Out})
	}
	e.d.Burned += burned
	e.d.TxCount++
	e.d.txOps = append(e.d.txOps, host.Op{Key: utxovm.TxKey(e.id), Value: txRecord{Height: e.d.Height, Bytes: e.tx.Bytes()}.encode()})
}

// refund makes a UTXO of amount for owner, numbered after the outputs.
func (e *execution) refund(amount uint64, owner warp.PChainOwner) {
	e.d.created = append(e.d.created, avax.UTXO{
		UTXOID:  avax.UTXOID{TxID: e.id, OutputIndex: uint32(len(e.tx.Unsigned.Base().Outs))},
		AssetID: e.vm.txCtx.AVAXAssetID,
		Out:     avax.TransferOutput{Amt: amount, OutputOwners: owner.Owners()},
	})
}

// verifyAuth checks the transaction's last credential against an owner:
// the authorization names exactly Threshold of its addresses, the owner's
// locktime has passed, and each signature is by the address it stands for.
func (e *execution) verifyAuth(what string, auth *txs.Auth, owner avax.OutputOwners) error {
	cred := &e.tx.Creds[len(e.tx.Creds)-1]
	n := len(auth.SigIndices)
	switch {
	case owner.Locktime > e.now:
		return rejected(e.id, "%s: the owner is locked until %d (now %d)", what, owner.Locktime, e.now)
	case uint32(n) != owner.Threshold:
		return rejected(e.id, "%s: %d signers, the owner's threshold is %d", what, n, owner.Threshold)
	case len(cred.Sigs) != n:
		return rejected(e.id, "%s: the last credential has %d signatures for %d signers", what, len(cred.Sigs), n)
	}
	for i, idx := range auth.SigIndices {
		if idx >= uint32(len(owner.Addrs)) {
			return rejected(e.id, "%s: signature index %d is out of the owner's %d addresses", what, idx, len(owner.Addrs))
		}
		got, err := avax.RecoverAddress(e.hash[:], cred.Sigs[i])
		if err != nil {
			return rejected(e.id, "%s: signature %d: %v", what, i, err)
		}
		if want := owner.Addrs[idx]; got != want {
			return rejected(e.id, "%s: signature %d is by %s, not by the owner's address %s", what, i, got, want)
		}
	}
	return nil
}

// periodStart is when a staking period accepted at time now starts: at
// its start, or now when that has passed.
func periodStart(v txs.Validator, now uint64) uint64 { return max(v.Start, now) }

// period returns a staking period as it will be: from its start, or from
// now when that has passed, to its end, after checking its length and how
// far ahead it starts.
func (e *execution) period(v txs.Validator) (start, end uint64, err error) {
	cfg := e.vm.cfg
	start = periodStart(v, e.now)
	if start-e.now > uint64(cfg.MaxFutureStartTime) {
		return 0, 0, rejected(e.id, "the staking period starts at %d, more than %ds after the chain's time %d", v.Start, cfg.MaxFutureStartTime, e.now)
	}
	if v.End <= start {
		return 0, 0, rejected(e.id, "the staking period ends at %d, not after it starts (%d)", v.End, start)
	}
	switch d := v.End - start; {
	case d < uint64(cfg.MinStakeDuration):
		return 0, 0, rejected(e.id, "staking period of %ds, shorter than the minimum %ds", d, cfg.MinStakeDuration)
	case d > uint64(cfg.MaxStakeDuration):
		return 0, 0, rejected(e.id, "staking period of %ds, longer than the maximum %ds", d, cfg.MaxStakeDuration)
	}
	return start, v.End, nil
}

// stakeUTXOs returns the bytes of the UTXOs a staker's stake becomes at
// its end: numbered after the transaction's outputs.
func (e *execution) stakeUTXOs(stake []avax.TransferableOutput) [][]byte {
	n := len(e.tx.Unsigned.Base().Outs)
	out := make([][]byte, len(stake))
	for i, o := range stake {
		u := avax.UTXO{UTXOID: avax.UTXOID{TxID: e.id, OutputIndex: uint32(n + i)}, AssetID: o.AssetID, Out: o.Out}
		out[i] = u.Bytes()
	}
	return out
}

func (e *execution) addValidator(v txs.Validator, stake []avax.TransferableOutput, shares uint32, signer *txs.ProofOfPossession) (func(), error) {
	cfg := e.vm.cfg
	switch {
	case v.Weight < uint64(cfg.MinValidatorStake):
		return nil, rejected(e.id, "weight %d is below the minimum validator stake %d", v.Weight, cfg.MinValidatorStake)
	case v.Weight > uint64(cfg.MaxValidatorStake):
		return nil, rejected(e.id, "weight %d is above the maximum validator stake %d", v.Weight, cfg.MaxValidatorStake)
	case shares < cfg.MinDelegationFee:
		return nil, rejected(e.id, "delegation fee of %d millionths is below the minimum %d", shares, cfg.MinDelegationFee)
	}
	start, end, err := e.period(v)
	if err != nil {
		return nil, err
	}
	for _, other := range e.d.validatorsOf(v.NodeID) {
		if start < other.End && other.Start < end {
			return nil, rejected(e.id, "node %s already validates from %d to %d (tx %s): the periods overlap", v.NodeID, other.Start, other.End, other.TxID)
		}
	}
	var pk []byte
	if signer != nil {
		if _, err := signer.Verify(); err != nil {
			return nil, rejected(e.id, "%v", err)
		}
		pk = signer.PublicKey[:]
	}
	st := &staker{TxID: e.id, NodeID: v.NodeID, Start: start, End: end, Weight: v.Weight,
		Current: start <= e.now, PublicKey: pk, Stake: e.stakeUTXOs(stake)}
	return func() {
		e.d.stakers[e.id] = st
		e.d.touchStaker(e.id)
	}, nil
}

func (e *execution) addDelegator(v txs.Validator, stake []avax.TransferableOutput) (func(), error) {
	cfg := e.vm.cfg
	if v.Weight < uint64(cfg.MinDelegatorStake) {
		return nil, rejected(e.id, "weight %d is below the minimum delegator stake %d", v.Weight, cfg.MinDelegatorStake)
	}
	start, end, err := e.period(v)
	if err != nil {
		return nil, err
	}
	vdrs := e.d.validatorsOf(v.NodeID)
	if len(vdrs) == 0 {
		return nil, rejected(e.id, "node %s is not a validator of the primary network", v.NodeID)
	}
	var vdr *staker
	for _, s := range vdrs {
		if s.Start <= start && end <= s.End {
			vdr = s
		}
	}
	if vdr == nil {
		return nil, rejected(e.id, "no validation period of node %s covers the delegation from %d to %d", v.NodeID, start, end)
	}
	limit := uint64(cfg.MaxValidatorStake)
	if vdr.Weight <= limit/cfg.MaxValidatorWeightFactor {
		limit = vdr.Weight * cfg.MaxValidatorWeightFactor
	}
	// The validator's weight is highest when the most delegations overlap:
	// at the start of the new one or of another within it.
	var others []*staker
	for _, s := range e.d.stakers {
		if s.Delegator && s.NodeID == v.NodeID && s.Start < end && start < s.End {
			others = append(others, s)
		}
	}
	for _, t := range append([]uint64{start}, startsWithin(others, start, end)...) {
		w := vdr.Weight + v.Weight
		for _, s := range others {
			if s.Start <= t && t < s.End {
				w += s.Weight
			}
		}
		if w > limit {
			return nil, rejected(e.id, "node %s would weigh %d at %d with this delegation, above its maximum %d (min(max stake, %d x its own stake))",
				v.NodeID, w, t, limit, cfg.MaxValidatorWeightFactor)
		}
	}
	st := &staker{TxID: e.id, NodeID: v.NodeID, Delegator: true, Start: start, End: end, Weight: v.Weight,
		Current: start <= e.now, Stake: e.stakeUTXOs(stake)}
	return func() {
		e.d.stakers[e.id] = st
		e.d.touchStaker(e.id)
	}, nil
}

// startsWithin returns the starts of stakers within [from, to).
func startsWithin(list []*staker, from, to uint64) []uint64 {
	var out []uint64
	for _, s := range list {
		if from <= s.Start && s.Start < to {
			out = append(out, s.Start)
		}
	}
	return out
}

// subnetToChange returns a subnet its owner may still change: one that
// exists and is not an L1.
func (e *execution) subnetToChange(id ids.ID) (*subnet, error) {
	s, ok := e.d.subnets[id]
	switch {
	case id == txs.PrimaryNetworkID:
		return nil, rejected(e.id, "the primary network is not a subnet its owner changes")
	case !ok:
		return nil, rejected(e.id, "unknown subnet %s", id)
	case s.Converted:
		return nil, rejected(e.id, "subnet %s is an L1: its validator manager, not its owner, manages it", id)
	}
	return s, nil
}

func (e *execution) createChain(u *txs.CreateChainTx) (func(), error) {
	s, err := e.subnetToChange(u.SubnetID)
	if err != nil {
		return nil, err
	}
	if err := e.verifyAuth("subnet authorization", &u.SubnetAuth, s.Owner); err != nil {
		return nil, err
	}
	return func() {
		e.d.chains[e.id] = &chainRec{ID: e.id, SubnetID: u.SubnetID, Name: u.ChainName, VMID: u.VMID}
		e.d.touchChain(e.id)
	}, nil
}

func (e *execution) convert(u *txs.ConvertSubnetToL1Tx) (func(), uint64, error) {
	s, err := e.subnetToChange(u.Subnet)
	if err != nil {
		return nil, 0, err
	}
	if err := e.verifyAuth("subnet authorization", &u.SubnetAuth, s.Owner); err != nil {
		return nil, 0, err
	}
	var balances, weights uint64
	conv := make([]warp.ConversionValidator, len(u.Validators))
	vdrs := make([]*l1Validator, len(u.Validators))
	for i, v := range u.Validators {
		nodeID, _ := avax.NodeIDFromBytes(v.NodeID) // checked by txs.Verify
		if _, err := v.Signer.Verify(); err != nil {
			return nil, 0, rejected(e.id, "validator %d (%s): %v", i, nodeID, err)
		}
		if balances > math.MaxUint64-v.Balance || weights > math.MaxUint64-v.Weight {
			return nil, 0, rejected(e.id, "balances or weights overflow")
		}
		balances += v.Balance
		weights += v.Weight
		conv[i] = warp.ConversionValidator{NodeID: v.NodeID, BLSPublicKey: v.Signer.PublicKey, Weight: v.Weight}
		vdrs[i] = &l1Validator{ValidationID: txs.ConvertValidationID(u.Subnet, uint32(i)), SubnetID: u.Subnet, NodeID: nodeID,
			PublicKey: v.Signer.PublicKey[:], RemainingBalanceOwner: v.RemainingBalanceOwner, DeactivationOwner: v.DeactivationOwner,
			StartTime: e.now, Weight: v.Weight, Active: v.Balance > 0, Balance: v.Balance, Since: e.now}
	}
	conversionID := warp.ConversionID(u.Subnet, u.ChainID, u.Address, conv)
	return func() {
		s.Converted, s.ConversionID, s.ManagerChain, s.ManagerAddress = true, conversionID, u.ChainID, u.Address
		e.d.touchSubnet(u.Subnet)
		for _, v := range vdrs {
			e.d.l1[v.ValidationID] = v
			e.d.touchL1(v.ValidationID)
		}
	}, balances, nil
}

// warpPayload reads a transaction's Warp message, its addressed call and
// the L1 validator message it carries, which must be a P (want names it)
// and valid; checkManager checks who sent it.
func warpPayload[P interface{ Verify() error }](e *execution, raw []byte, want string) (*warp.Message, *warp.AddressedCall, P, error) {
	var none P
	msg, call, payload, err := parseWarp(raw)
	if err != nil {
		return nil, nil, none, rejected(e.id, "%v", err)
	}
	p, ok := payload.(P)
	if !ok {
		return nil, nil, none, rejected(e.id, "the Warp message carries a %T, not %s", payload, want)
	}
	if err := p.Verify(); err != nil {
		return nil, nil, none, rejected(e.id, "%v", err)
	}
	return msg, call, p, nil
}

// parseWarp reads a Warp message, its addressed call and the message
// that carries.
func parseWarp(raw []byte) (*warp.Message, *warp.AddressedCall, any, error) {
	msg, err := warp.ParseMessage(raw)
	if err != nil {
		return nil, nil, nil, err
	}
	call, err := warp.ParseAddressedCall(msg.Payload)
	if err != nil {
		return nil, nil, nil, err
	}
	payload, err := warp.ParsePayload(call.Payload)
	return msg, call, payload, err
}

// checkManager checks that a Warp message comes from subnetID's validator
// manager, and that the validators of the manager chain's subnet signed it.
func (e *execution) checkManager(subnetID ids.ID, msg *warp.Message, call *warp.AddressedCall) error {
	s, ok := e.d.subnets[subnetID]
	switch {
	case !ok:
		return rejected(e.id, "unknown subnet %s", subnetID)
	case !s.Converted:
		return rejected(e.id, "subnet %s is not an L1", subnetID)
	case msg.SourceChainID != s.ManagerChain:
		return rejected(e.id, "the Warp message comes from chain %s; the L1's validator manager is on chain %s", msg.SourceChainID, s.ManagerChain)
	case !bytes.Equal(call.SourceAddress, s.ManagerAddress):
		return rejected(e.id, "the Warp message comes from address 0x%x; the L1's validator manager is 0x%x", call.SourceAddress, s.ManagerAddress)
	}
	set, err := e.vm.warpSet(e.ctx, e.d.chainState, msg.SourceChainID)
	if err != nil {
		return rejected(e.id, "%v", err)
	}
	if err := msg.Verify(e.vm.Env.NetworkID, set); err != nil {
		return rejected(e.id, "%v", err)
	}
	return nil
}

func (e *execution) register(u *txs.RegisterL1ValidatorTx) (func(), error) {
	msg, call, r, err := warpPayload[*warp.RegisterL1Validator](e, u.Message, "a RegisterL1Validator")
	if err != nil {
		return nil, err
	}
	id := r.ValidationID()
	nodeID, _ := avax.NodeIDFromBytes(r.NodeID) // checked by r.Verify
	switch {
	case r.Expiry <= e.now:
		return nil, rejected(e.id, "the register message expired at %d (now %d)", r.Expiry, e.now)
	case r.Expiry-e.now > registerExpiryWindow:
		return nil, rejected(e.id, "the register message expires at %d, more than %ds after now (%d)", r.Expiry, registerExpiryWindow, e.now)
	}
	if _, ok := e.d.expiries[id]; ok {
		return nil, rejected(e.id, "the register message of validation ID %s was issued already (a replay)", id)
	}
	if _, ok := e.d.l1[id]; ok {
		return nil, rejected(e.id, "validation ID %s is registered already", id)
	}
	if other := e.d.l1OfNode(r.SubnetID, nodeID); other != nil {
		return nil, rejected(e.id, "node %s validates L1 %s already (validation ID %s)", nodeID, r.SubnetID, other.ValidationID)
	}
	if _, err := e.otherWeight(r.SubnetID, id, r.Weight); err != nil {
		return nil, err
	}
	pop := txs.ProofOfPossession{PublicKey: r.BLSPublicKey, Signature: u.ProofOfPossession}
	if _, err := pop.Verify(); err != nil {
		return nil, rejected(e.id, "%v", err)
	}
	if err := e.checkManager(r.SubnetID, msg, call); err != nil {
		return nil, err
	}
	v := &l1Validator{ValidationID: id, SubnetID: r.SubnetID, NodeID: nodeID, PublicKey: r.BLSPublicKey[:],
		RemainingBalanceOwner: r.RemainingBalanceOwner, DeactivationOwner: r.DisableOwner, StartTime: e.now,
		Weight: r.Weight, Active: u.Balance > 0, Balance: u.Balance, Since: e.now}
	return func() {
		e.d.l1[id] = v
		e.d.touchL1(id)
		e.d.expiries[id] = r.Expiry
		e.d.touchExpiry(id)
	}, nil
}

// otherWeight returns the weight of an L1's validators but one, after
// checking that it and weight (the one's new weight) do not overflow: the
// L1's total weight must stay a number, or Warp could not count it.
func (e *execution) otherWeight(subnetID, except ids.ID, weight uint64) (uint64, error) {
	var total uint64
	for id, o := range e.d.l1 {
		if o.SubnetID != subnetID || id == except {
			continue
		}
		if total > math.MaxUint64-o.Weight {
			return 0, rejected(e.id, "the weights of L1 %s overflow", subnetID)
		}
		total += o.Weight
	}
	if total > math.MaxUint64-weight {
		return 0, rejected(e.id, "weight %d would make the total weight of L1 %s overflow", weight, subnetID)
	}
	return total, nil
}

// l1Validator returns an L1 validator the transaction names.
func (e *execution) l1Validator(id ids.ID) (*l1Validator, error) {
	v, ok := e.d.l1[id]
	if !ok {
		return nil, rejected(e.id, "unknown validation ID %s (never registered, or removed)", id)
	}
	return v, nil
}

func (e *execution) setWeight(u *txs.SetL1ValidatorWeightTx) (func(), error) {
	msg, call, w, err := warpPayload[*warp.L1ValidatorWeight](e, u.Message, "an L1ValidatorWeight")
	if err != nil {
		return nil, err
	}
	v, err := e.l1Validator(w.ValidationID)
	if err != nil {
		return nil, err
	}
	if w.Nonce < v.MinNonce {
		return nil, rejected(e.id, "nonce %d is stale: validation ID %s takes nonces from %d", w.Nonce, v.ValidationID, v.MinNonce)
	}
	if err := e.checkManager(v.SubnetID, msg, call); err != nil {
		return nil, err
	}
	others, err := e.otherWeight(v.SubnetID, v.ValidationID, w.Weight)
	if err != nil {
		return nil, err
	}
	if w.Weight == 0 {
		if others == 0 {
			return nil, rejected(e.id, "validation ID %s is the last validator of L1 %s: it cannot be removed", v.ValidationID, v.SubnetID)
		}
		return func() {
			if v.Active && v.Balance > 0 {
				e.refund(v.Balance, v.RemainingBalanceOwner)
			}
			delete(e.d.l1, v.ValidationID)
			e.d.touchL1(v.ValidationID)
			e.d.txOps = append(e.d.txOps, utxovm.JSONOp(removedKey(v.ValidationID), removedL1{SubnetID: v.SubnetID, StartTime: v.StartTime, Removed: e.now}))
		}, nil
	}
	return func() {
		v.MinNonce, v.Weight = w.Nonce+1, w.Weight
		e.d.touchL1(v.ValidationID)
	}, nil
}

func (e *execution) increaseBalance(u *txs.IncreaseL1ValidatorBalanceTx) (func(), error) {
	v, err := e.l1Validator(u.ValidationID)
	if err != nil {
		return nil, err
	}
	if v.Balance > math.MaxUint64-u.Balance {
		return nil, rejected(e.id, "balance overflows")
	}
	return func() {
		if !v.Active {
			v.Active, v.Since, v.Balance = true, e.now, 0
		}
		v.Balance += u.Balance
		e.d.touchL1(v.ValidationID)
	}, nil
}

func (e *execution) disable(u *txs.DisableL1ValidatorTx) (func(), error) {
	v, err := e.l1Validator(u.ValidationID)
	if err != nil {
		return nil, err
	}
	if err := e.verifyAuth("disable authorization", &u.DisableAuth, v.DeactivationOwner.Owners()); err != nil {
		return nil, err
	}
	return func() {
		if v.Active && v.Balance > 0 {
			e.refund(v.Balance, v.RemainingBalanceOwner)
		}
		v.Active, v.Balance = false, 0
		e.d.touchL1(v.ValidationID)
	}, nil
}

// warpSet returns the validator set that signs for a chain: that of the
// chain's subnet. A chain created by CreateChainTx is of its subnet; the
// node's own chains are of the primary network.
func (vm *VM) warpSet(ctx context.Context, s *chainState, chainID ids.ID) (warp.ValidatorSet, error) {
	subnetID := txs.PrimaryNetworkID
	if c, ok := s.chains[chainID]; ok {
		subnetID = c.SubnetID
	} else if !vm.isNodeChain(ctx, chainID) {
		return warp.ValidatorSet{}, fmt.Errorf("chain %s is unknown: neither created on this P-Chain nor a chain of the node", chainID)
	}
	var vs []warp.Validator
	key := func(b []byte) (*bls.PublicKey, error) {
		if len(b) == 0 {
			return nil, nil
		}
		return bls.PublicKeyFromBytes(b)
	}
	if subnetID == txs.PrimaryNetworkID {
		weights := map[avax.NodeID]uint64{}
		for _, st := range s.stakers {
			if st.Current && st.Delegator {
				weights[st.NodeID] += st.Weight
			}
		}
		for _, id := range sortedIDs(s.stakers) {
			st := s.stakers[id]
			if !st.Current || st.Delegator {
				continue
			}
			pk, err := key(st.PublicKey)
			if err != nil {
				return warp.ValidatorSet{}, err
			}
			vs = append(vs, warp.Validator{PublicKey: pk, Weight: st.Weight + weights[st.NodeID]})
		}
	} else {
		for _, id := range sortedIDs(s.l1) {
			v := s.l1[id]
			if v.SubnetID != subnetID {
				continue
			}
			var pk *bls.PublicKey
			if v.Active {
				var err error
				if pk, err = key(v.PublicKey); err != nil {
					return warp.ValidatorSet{}, err
				}
			}
			vs = append(vs, warp.Validator{PublicKey: pk, Weight: v.Weight})
		}
	}
	return warp.NewValidatorSet(vs)
}

// isNodeChain reports whether chainID is one of the node's chains.
func (vm *VM) isNodeChain(ctx context.Context, chainID ids.ID) bool {
	if slices.Contains(vm.nodeChains, chainID) {
		return true
	}
	info, err := vm.Env.Host.Chains.Resolve(ctx, chainID.String())
	if err != nil || info.ID != chainID {
		return false
	}
	vm.nodeChains = append(vm.nodeChains, chainID)
	return true
}
