package hostsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"sync"

	"github.com/ava-labs/avalanchego/cache/lru"
	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"

	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/avax/txjson"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

var _ validators.State = (*ValidatorState)(nil)

// cachedHeights is how many heights' validator sets ValidatorState keeps,
// per subnet and for warp.
const cachedHeights = 64

// ValidatorState is avalanchego's validators.State from the node's P-Chain,
// read through its JSON-RPC API with host chain calls.
//
// chainhost's P-Chain answers its validators now, not at a past height:
// the set at a height at or below the P-Chain's is the current set when
// it is first asked, and that answer is kept for the height, so that the
// same height always gets the same set. On a one-node network the set
// changes only through staking transactions. The minimum height is the
// current one.
type ValidatorState struct {
	calls    host.ChainCaller
	pChain   string
	subnetOf func(avaids.ID) (avaids.ID, bool)

	mu       sync.Mutex
	chainSub map[avaids.ID]avaids.ID // the subnets of chains the P-Chain created

	sets *lru.Cache[setKey, map[avaids.NodeID]*validators.GetValidatorOutput]
	warp *lru.Cache[uint64, map[avaids.ID]validators.WarpSet]
}

type setKey struct {
	height uint64
	subnet avaids.ID
}

// NewValidatorState returns the validator state of the P-Chain named
// pChain (its ID or alias) reached through calls. subnetOf tells the
// subnet of a chain of the node's config (false for other chains), which
// the P-Chain does not know: it lists them as chains of the primary
// network.
func NewValidatorState(calls host.ChainCaller, pChain string, subnetOf func(chainID avaids.ID) (avaids.ID, bool)) *ValidatorState {
	return &ValidatorState{
		calls: calls, pChain: pChain, subnetOf: subnetOf,
		chainSub: map[avaids.ID]avaids.ID{},
		sets:     lru.NewCache[setKey, map[avaids.NodeID]*validators.GetValidatorOutput](cachedHeights),
		warp:     lru.NewCache[uint64, map[avaids.ID]validators.WarpSet](cachedHeights),
	}
}

// call calls a method of the P-Chain's API and decodes its result.
func (v *ValidatorState) call(ctx context.Context, method string, params, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	status, answer, err := v.calls.Call(ctx, v.pChain, "", body)
	if err != nil {
		return fmt.Errorf("%s on chain %s: %w", method, v.pChain, err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return fmt.Errorf("%s on chain %s: HTTP %d, not a JSON-RPC answer: %w", method, v.pChain, status, err)
	}
	if resp.Error != nil {
		return fmt.Errorf("%s on chain %s: %w", method, v.pChain, resp.Error)
	}
	if status != http.StatusOK {
		return fmt.Errorf("%s on chain %s: HTTP %d", method, v.pChain, status)
	}
	if err := json.Unmarshal(resp.Result, result); err != nil {
		return fmt.Errorf("%s on chain %s: decode the result: %w", method, v.pChain, err)
	}
	return nil
}

// GetMinimumHeight returns the P-Chain's height.
func (v *ValidatorState) GetMinimumHeight(ctx context.Context) (uint64, error) {
	return v.GetCurrentHeight(ctx)
}

// GetCurrentHeight returns the height of the P-Chain's last accepted block.
func (v *ValidatorState) GetCurrentHeight(ctx context.Context) (uint64, error) {
	var t pvmapi.StakingTotals
	err := v.call(ctx, pvmapi.GetStakingTotalsMethod, pvmapi.StakingTotalsArgs{}, &t)
	return uint64(t.Height), err
}

// GetSubnetID returns the subnet of a chain: that of the node's config for
// its chains, else the one the P-Chain created it on.
func (v *ValidatorState) GetSubnetID(ctx context.Context, chainID avaids.ID) (avaids.ID, error) {
	if s, ok := v.subnetOf(chainID); ok {
		return s, nil
	}
	v.mu.Lock()
	s, ok := v.chainSub[chainID]
	v.mu.Unlock()
	if ok {
		return s, nil
	}
	var reply struct {
		Blockchains []pvmapi.Blockchain `json:"blockchains"`
	}
	if err := v.call(ctx, "platform.getBlockchains", struct{}{}, &reply); err != nil {
		return avaids.Empty, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range reply.Blockchains {
		v.chainSub[avaids.ID(c.ID)] = avaids.ID(c.SubnetID)
	}
	s, ok = v.chainSub[chainID]
	if !ok {
		return avaids.Empty, fmt.Errorf("chain %s is neither a chain of the node nor one the P-Chain created", chainID)
	}
	return s, nil
}

// current is what the P-Chain tells of one validator now.
type current struct {
	out    validators.GetCurrentValidatorOutput
	active bool
}

// currentValidators returns a subnet's validators now: the primary
// network's with their delegators' weight (their weight in consensus), or
// an L1's, active or not.
func (v *ValidatorState) currentValidators(ctx context.Context, subnetID avaids.ID) ([]current, error) {
	var reply struct {
		Validators []struct {
			pvmapi.Validator
			PublicKey    txjson.HexBytes `json:"publicKey"` // an L1 validator's
			ValidationID *avaids.ID      `json:"validationID"`
			MinNonce     jsonrpc.Uint64  `json:"minNonce"`
			Balance      jsonrpc.Uint64  `json:"balance"`
		} `json:"validators"`
	}
	if err := v.call(ctx, "platform.getCurrentValidators", map[string]string{"subnetID": subnetID.String()}, &reply); err != nil {
		return nil, err
	}
	out := make([]current, 0, len(reply.Validators))
	for _, r := range reply.Validators {
		c := current{active: true, out: validators.GetCurrentValidatorOutput{
			NodeID: avaids.NodeID(r.NodeID), Weight: uint64(r.Weight), StartTime: uint64(r.StartTime), IsActive: true,
		}}
		key := r.PublicKey
		if r.ValidationID != nil {
			c.out.ValidationID, c.out.MinNonce, c.out.IsL1Validator = *r.ValidationID, uint64(r.MinNonce), true
			c.active = r.Balance > 0
			c.out.IsActive = c.active
		} else {
			c.out.ValidationID = avaids.ID(r.TxID)
			c.out.Weight += uint64(r.DelegatorWeight)
			if r.Signer != nil {
				key = r.Signer.PublicKey
			}
		}
		if len(key) > 0 {
			pk, err := bls.PublicKeyFromCompressedBytes(key)
			if err != nil {
				return nil, fmt.Errorf("validator %s of subnet %s: public key: %w", c.out.NodeID, subnetID, err)
			}
			c.out.PublicKey = pk
		}
		out = append(out, c)
	}
	return out, nil
}

// GetValidatorSet returns the validators of a subnet at a height, which
// is their current set (see ValidatorState). As in avalanchego, the
// weight of an L1's inactive validators is one entry of the empty node
// ID, without a key; a height above the P-Chain's is an error matching
// validators.ErrUnfinalizedHeight.
func (v *ValidatorState) GetValidatorSet(ctx context.Context, height uint64, subnetID avaids.ID) (map[avaids.NodeID]*validators.GetValidatorOutput, error) {
	if set, ok := v.sets.Get(setKey{height: height, subnet: subnetID}); ok {
		return maps.Clone(set), nil
	}
	if err := v.checkHeight(ctx, height); err != nil {
		return nil, err
	}
	set, err := v.setAt(ctx, height, subnetID)
	if err != nil {
		return nil, err
	}
	return maps.Clone(set), nil
}

// setAt returns the set of a subnet at a height at or below the P-Chain's:
// the one kept for it, else the current one, then kept.
func (v *ValidatorState) setAt(ctx context.Context, height uint64, subnetID avaids.ID) (map[avaids.NodeID]*validators.GetValidatorOutput, error) {
	k := setKey{height: height, subnet: subnetID}
	if set, ok := v.sets.Get(k); ok {
		return set, nil
	}
	vals, err := v.currentValidators(ctx, subnetID)
	if err != nil {
		return nil, err
	}
	set := map[avaids.NodeID]*validators.GetValidatorOutput{}
	var inactive uint64
	for _, c := range vals {
		if !c.active {
			inactive += c.out.Weight
			continue
		}
		set[c.out.NodeID] = &validators.GetValidatorOutput{NodeID: c.out.NodeID, PublicKey: c.out.PublicKey, Weight: c.out.Weight}
	}
	if inactive > 0 {
		set[avaids.EmptyNodeID] = &validators.GetValidatorOutput{NodeID: avaids.EmptyNodeID, Weight: inactive}
	}
	v.sets.Put(k, set)
	return set, nil
}

// checkHeight refuses a height above the P-Chain's.
func (v *ValidatorState) checkHeight(ctx context.Context, height uint64) error {
	cur, err := v.GetCurrentHeight(ctx)
	if err != nil {
		return err
	}
	if height > cur {
		return fmt.Errorf("%w: the P-Chain's height is %d, %d asked", validators.ErrUnfinalizedHeight, cur, height)
	}
	return nil
}

// GetWarpValidatorSets returns, per subnet, the validators that sign warp
// messages at a height (see GetValidatorSet), as avalanchego flattens them.
func (v *ValidatorState) GetWarpValidatorSets(ctx context.Context, height uint64) (map[avaids.ID]validators.WarpSet, error) {
	if sets, ok := v.warp.Get(height); ok {
		return sets, nil
	}
	var reply struct {
		Subnets []struct {
			ID avaids.ID `json:"id"`
		} `json:"subnets"`
	}
	if err := v.call(ctx, "platform.getSubnets", struct{}{}, &reply); err != nil {
		return nil, err
	}
	if err := v.checkHeight(ctx, height); err != nil {
		return nil, err
	}
	sets := make(map[avaids.ID]validators.WarpSet, len(reply.Subnets))
	for _, s := range reply.Subnets {
		set, err := v.setAt(ctx, height, s.ID)
		if err != nil {
			return nil, err
		}
		ws, err := validators.FlattenValidatorSet(set)
		if err != nil {
			continue // as avalanchego: a set it cannot flatten signs nothing
		}
		sets[s.ID] = ws
	}
	v.warp.Put(height, sets)
	return sets, nil
}

// GetCurrentValidatorSet returns a subnet's current validators by
// validation ID (a primary-network validator's is its staking
// transaction's ID) and the P-Chain's height.
func (v *ValidatorState) GetCurrentValidatorSet(ctx context.Context, subnetID avaids.ID) (map[avaids.ID]*validators.GetCurrentValidatorOutput, uint64, error) {
	height, err := v.GetCurrentHeight(ctx)
	if err != nil {
		return nil, 0, err
	}
	vals, err := v.currentValidators(ctx, subnetID)
	if err != nil {
		return nil, 0, err
	}
	out := make(map[avaids.ID]*validators.GetCurrentValidatorOutput, len(vals))
	for _, c := range vals {
		out[c.out.ValidationID] = &c.out
	}
	return out, height, nil
}
