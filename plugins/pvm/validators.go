package pvm

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/txjson"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

type getCurrentValidatorsArgs struct {
	SubnetID string   `json:"subnetID"`
	NodeIDs  []string `json:"nodeIDs"`
}

type getCurrentValidatorsReply struct {
	Validators []any `json:"validators"`
}

// getCurrentValidators returns a subnet's current validators: the primary
// network's stakers with their delegators, or an L1's validators (active
// and inactive).
func (vm *VM) getCurrentValidators(ctx context.Context, a getCurrentValidatorsArgs) (getCurrentValidatorsReply, error) {
	subnetID, err := parseSubnetID("subnetID", a.SubnetID)
	if err != nil {
		return getCurrentValidatorsReply{}, err
	}
	only, err := parseNodeIDs(a.NodeIDs)
	if err != nil {
		return getCurrentValidatorsReply{}, err
	}
	s, now := vm.current()
	want := func(n avax.NodeID) bool { return len(only) == 0 || only[n] }
	out := getCurrentValidatorsReply{Validators: []any{}}
	if subnetID != txs.PrimaryNetworkID {
		if _, ok := s.subnets[subnetID]; !ok {
			return getCurrentValidatorsReply{}, jsonrpc.InvalidParams(`"subnetID": unknown subnet %s`, subnetID)
		}
		for _, id := range sortedIDs(s.l1) {
			if v := s.l1[id]; v.SubnetID == subnetID && want(v.NodeID) {
				out.Validators = append(out.Validators, vm.apiL1Validator(v, now))
			}
		}
		return out, nil
	}
	delegators := map[avax.NodeID][]*staker{}
	for _, id := range sortedIDs(s.stakers) {
		if st := s.stakers[id]; st.Current && st.Delegator {
			delegators[st.NodeID] = append(delegators[st.NodeID], st)
		}
	}
	for _, id := range sortedIDs(s.stakers) {
		st := s.stakers[id]
		if !st.Current || st.Delegator || !want(st.NodeID) {
			continue
		}
		v, err := vm.apiValidator(ctx, st, delegators[st.NodeID])
		if err != nil {
			return getCurrentValidatorsReply{}, err
		}
		out.Validators = append(out.Validators, v)
	}
	return out, nil
}

// apiValidator reads a validator's transaction for its owners, fee and key.
func (vm *VM) apiValidator(ctx context.Context, st *staker, dels []*staker) (pvmapi.Validator, error) {
	t, _, err := vm.storedTx(ctx, st.TxID)
	if err != nil {
		return pvmapi.Validator{}, err
	}
	v := pvmapi.Validator{Staker: st.apiStaker(), Delegators: []pvmapi.Delegator{}}
	var shares uint32
	switch u := t.Unsigned.(type) {
	case *txs.AddValidatorTx:
		v.ValidationRewardOwner, v.DelegationRewardOwner, shares = vm.apiOwner(u.RewardsOwner), vm.apiOwner(u.RewardsOwner), u.DelegationShares
	case *txs.AddPermissionlessValidatorTx:
		v.ValidationRewardOwner, v.DelegationRewardOwner, shares = vm.apiOwner(u.ValidatorRewardsOwner), vm.apiOwner(u.DelegatorRewardsOwner), u.DelegationShares
		sj := signerJSONOf(u.Signer)
		v.Signer = &sj
	}
	v.DelegationFee = strconv.FormatFloat(100*float64(shares)/txs.PercentDenominator, 'f', 4, 32)
	for _, d := range dels {
		dt, _, err := vm.storedTx(ctx, d.TxID)
		if err != nil {
			return pvmapi.Validator{}, err
		}
		var owner *pvmapi.Owner
		switch u := dt.Unsigned.(type) {
		case *txs.AddDelegatorTx:
			owner = vm.apiOwner(u.RewardsOwner)
		case *txs.AddPermissionlessDelegatorTx:
			owner = vm.apiOwner(u.RewardsOwner)
		}
		v.Delegators = append(v.Delegators, pvmapi.Delegator{Staker: d.apiStaker(), RewardOwner: owner})
		v.DelegatorCount++
		v.DelegatorWeight += jsonrpc.Uint64(d.Weight)
	}
	return v, nil
}

// apiStaker is what the API's answers say of a validator or delegator.
func (st *staker) apiStaker() pvmapi.Staker {
	return pvmapi.Staker{TxID: st.TxID, StartTime: jsonrpc.Uint64(st.Start), EndTime: jsonrpc.Uint64(st.End),
		Weight: jsonrpc.Uint64(st.Weight), NodeID: st.NodeID}
}

func (vm *VM) apiL1Validator(v *l1Validator, now uint64) pvmapi.L1Validator {
	out := pvmapi.L1Validator{NodeID: v.NodeID, Weight: jsonrpc.Uint64(v.Weight), StartTime: jsonrpc.Uint64(v.StartTime),
		ValidationID: v.ValidationID, PublicKey: v.PublicKey, MinNonce: jsonrpc.Uint64(v.MinNonce),
		RemainingBalanceOwner: vm.apiOwner(v.RemainingBalanceOwner.Owners()),
		DeactivationOwner:     vm.apiOwner(v.DeactivationOwner.Owners())}
	if v.Active {
		out.Balance = jsonrpc.Uint64(v.Balance - paidBy(v, uint64(vm.cfg.L1FeeRate), now))
	}
	return out
}

type getL1ValidatorArgs struct {
	ValidationID string `json:"validationID"`
}

// getL1Validator returns an L1 validator by validation ID.
func (vm *VM) getL1Validator(_ context.Context, a getL1ValidatorArgs) (pvmapi.L1ValidatorReply, error) {
	id, err := utxoapi.ParseID("validationID", a.ValidationID)
	if err != nil {
		return pvmapi.L1ValidatorReply{}, err
	}
	s, now := vm.current()
	v, ok := s.l1[id]
	if !ok {
		return pvmapi.L1ValidatorReply{}, fmt.Errorf("L1 validator %s not found (never registered, or removed)", id)
	}
	return pvmapi.L1ValidatorReply{L1Validator: vm.apiL1Validator(v, now), SubnetID: v.SubnetID, Height: jsonrpc.Uint64(s.Height)}, nil
}

type getSubnetsArgs struct {
	IDs []string `json:"ids"`
}

type apiSubnet struct {
	ID          ids.ID         `json:"id"`
	ControlKeys []string       `json:"controlKeys"`
	Threshold   jsonrpc.Uint64 `json:"threshold"`
}

type getSubnetsReply struct {
	Subnets []apiSubnet `json:"subnets"`
}

// getSubnets returns the subnets (all, or those named) and the primary
// network, which has no control keys.
func (vm *VM) getSubnets(_ context.Context, a getSubnetsArgs) (getSubnetsReply, error) {
	s, _ := vm.current()
	var list []ids.ID
	if len(a.IDs) == 0 {
		list = append(sortedIDs(s.subnets), txs.PrimaryNetworkID)
	}
	for i, str := range a.IDs {
		id, err := utxoapi.ParseID(fmt.Sprintf("ids[%d]", i), str)
		if err != nil {
			return getSubnetsReply{}, err
		}
		if !slices.Contains(list, id) {
			list = append(list, id)
		}
	}
	out := getSubnetsReply{Subnets: []apiSubnet{}}
	for _, id := range list {
		if id == txs.PrimaryNetworkID {
			out.Subnets = append(out.Subnets, apiSubnet{ID: id, ControlKeys: []string{}})
			continue
		}
		sn, ok := s.subnets[id]
		if !ok {
			continue
		}
		out.Subnets = append(out.Subnets, apiSubnet{ID: id, ControlKeys: vm.FormatAddresses(sn.Owner.Addrs), Threshold: jsonrpc.Uint64(sn.Owner.Threshold)})
	}
	return out, nil
}

type getSubnetArgs struct {
	SubnetID string `json:"subnetID"`
}

// getSubnet describes a subnet: its owner, and its conversion once it is an
// L1.
func (vm *VM) getSubnet(_ context.Context, a getSubnetArgs) (pvmapi.Subnet, error) {
	id, err := utxoapi.ParseID("subnetID", a.SubnetID)
	if err != nil {
		return pvmapi.Subnet{}, err
	}
	if id == txs.PrimaryNetworkID {
		return pvmapi.Subnet{}, jsonrpc.InvalidParams(`"subnetID": the primary network is not a subnet`)
	}
	s, _ := vm.current()
	sn, ok := s.subnets[id]
	if !ok {
		return pvmapi.Subnet{}, fmt.Errorf("subnet %s not found", id)
	}
	out := pvmapi.Subnet{IsPermissioned: !sn.Converted, ControlKeys: vm.FormatAddresses(sn.Owner.Addrs),
		Threshold: jsonrpc.Uint64(sn.Owner.Threshold), Locktime: jsonrpc.Uint64(sn.Owner.Locktime)}
	if sn.Converted {
		addr := txjson.HexBytes(sn.ManagerAddress)
		out.ConversionID, out.ManagerChainID, out.ManagerAddress = sn.ConversionID, sn.ManagerChain, &addr
	}
	return out, nil
}

type getBlockchainsReply struct {
	Blockchains []pvmapi.Blockchain `json:"blockchains"`
}

// getBlockchains returns the chains of the subnets (created by
// CreateChainTx), then the node's other chains, of the primary network.
func (vm *VM) getBlockchains(ctx context.Context, _ struct{}) (getBlockchainsReply, error) {
	s, _ := vm.current()
	out := getBlockchainsReply{Blockchains: []pvmapi.Blockchain{}}
	for _, id := range sortedIDs(s.chains) {
		c := s.chains[id]
		out.Blockchains = append(out.Blockchains, pvmapi.Blockchain{ID: c.ID, Name: c.Name, SubnetID: c.SubnetID, VMID: c.VMID})
	}
	chains, err := vm.Env.Host.Chains.List(ctx)
	if err != nil {
		return getBlockchainsReply{}, fmt.Errorf("list the node's chains: %w", err)
	}
	for _, c := range chains {
		if c.ID == vm.Env.ChainID {
			continue
		}
		name := c.ID.String()
		if len(c.Aliases) > 0 {
			name = c.Aliases[0]
		}
		out.Blockchains = append(out.Blockchains, pvmapi.Blockchain{ID: c.ID, Name: name, SubnetID: txs.PrimaryNetworkID, VMID: c.VMID})
	}
	return out, nil
}

// getConfig returns the rules a wallet needs (chainhost's own method).
func (vm *VM) getConfig(context.Context, struct{}) (pvmapi.Config, error) {
	c := vm.cfg
	return pvmapi.Config{AVAXAssetID: vm.txCtx.AVAXAssetID, TxFee: c.TxFee, CreateSubnetTxFee: c.CreateSubnetTxFee,
		CreateChainTxFee: c.CreateChainTxFee, MinValidatorStake: c.MinValidatorStake, MaxValidatorStake: c.MaxValidatorStake,
		MinDelegatorStake: c.MinDelegatorStake, MinDelegationFee: jsonrpc.Uint64(c.MinDelegationFee),
		MaxValidatorWeightFactor: jsonrpc.Uint64(c.MaxValidatorWeightFactor), MinStakeDuration: c.MinStakeDuration,
		MaxStakeDuration: c.MaxStakeDuration, L1FeeRate: c.L1FeeRate, Clock: c.Clock}, nil
}
