package hostsvc

import (
	"context"

	avaids "github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
)

// Alone is the validator state of a node that runs no P-Chain: the node
// is the one validator of every subnet, with weight 1, at P-Chain height
// 0, so that a VM that asks for validators (subnet-evm does as it starts)
// runs as on a network of one validator.
type Alone struct {
	id       *Identity
	subnetOf func(chainID avaids.ID) (avaids.ID, bool)
}

// NewAlone returns the validator state of a node without a P-Chain, whose
// identity is id; subnetOf tells the subnet of a chain of the node's
// config (false: the primary network).
func NewAlone(id *Identity, subnetOf func(chainID avaids.ID) (avaids.ID, bool)) *Alone {
	return &Alone{id: id, subnetOf: subnetOf}
}

// GetMinimumHeight is 0: there is no P-Chain.
func (*Alone) GetMinimumHeight(context.Context) (uint64, error) { return 0, nil }

// GetCurrentHeight is 0: there is no P-Chain.
func (*Alone) GetCurrentHeight(context.Context) (uint64, error) { return 0, nil }

// GetSubnetID is the chain's subnet-id, or the primary network.
func (a *Alone) GetSubnetID(_ context.Context, chainID avaids.ID) (avaids.ID, error) {
	subnet, _ := a.subnetOf(chainID)
	return subnet, nil
}

func (a *Alone) set() map[avaids.NodeID]*validators.GetValidatorOutput {
	return map[avaids.NodeID]*validators.GetValidatorOutput{
		a.id.NodeID: {NodeID: a.id.NodeID, PublicKey: a.id.PublicKey(), Weight: 1},
	}
}

// GetValidatorSet is the node alone, whatever the height and subnet.
func (a *Alone) GetValidatorSet(context.Context, uint64, avaids.ID) (map[avaids.NodeID]*validators.GetValidatorOutput, error) {
	return a.set(), nil
}

// GetWarpValidatorSets is the node alone for the primary network; the
// subnets of the node's chains sign with the same key.
func (a *Alone) GetWarpValidatorSets(context.Context, uint64) (map[avaids.ID]validators.WarpSet, error) {
	set, err := validators.FlattenValidatorSet(a.set())
	if err != nil {
		return nil, err
	}
	return map[avaids.ID]validators.WarpSet{avaids.Empty: set}, nil
}

// GetCurrentValidatorSet is the node alone, keyed by an empty validation
// ID, at height 0.
func (a *Alone) GetCurrentValidatorSet(context.Context, avaids.ID) (map[avaids.ID]*validators.GetCurrentValidatorOutput, uint64, error) {
	return map[avaids.ID]*validators.GetCurrentValidatorOutput{
		avaids.Empty: {NodeID: a.id.NodeID, PublicKey: a.id.PublicKey(), Weight: 1, IsActive: true},
	}, 0, nil
}

var _ validators.State = (*Alone)(nil)
