package pvm

import (
	"crypto/sha256"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// genesis is a P-Chain's genesis (the chain's `genesis` in the node
// config): the AVAX asset, the chain's time, the funded addresses and the
// primary network's first validators.
type genesis struct {
	// AVAXAssetID is the ID of AVAX, the X-Chain's asset the P-Chain
	// holds and stakes.
	AVAXAssetID string `json:"avaxAssetID"`
	// Timestamp is the chain's time at genesis, unix seconds.
	Timestamp jsonrpc.Uint64 `json:"timestamp"`
	// Allocations are the chain's first UTXOs.
	Allocations []genesisAllocation `json:"allocations"`
	// Validators validate the primary network from genesis.
	Validators []genesisValidator `json:"validators"`
}

// genesisAllocation is an amount of nAVAX an address ("P-local1..." or
// "local1...") holds at genesis.
type genesisAllocation struct {
	Address string         `json:"address"`
	Amount  jsonrpc.Uint64 `json:"amount"`
}

// genesisValidator validates the primary network from genesis until
// EndTime with Weight, whose stake goes to RewardAddress at the end.
type genesisValidator struct {
	NodeID        string         `json:"nodeID"`
	Weight        jsonrpc.Uint64 `json:"weight"`
	EndTime       jsonrpc.Uint64 `json:"endTime"`
	RewardAddress string         `json:"rewardAddress"`
	// DelegationFee is in millionths (20000 is 2%).
	DelegationFee uint32 `json:"delegationFee"`
	// Signer is the validator's BLS key and proof of possession, hex;
	// without it the validator has no BLS key.
	Signer *genesisSigner `json:"signer"`
}

// genesisSigner is a BLS public key and its proof of possession, "0x" hex.
type genesisSigner struct {
	PublicKey         string `json:"publicKey"`
	ProofOfPossession string `json:"proofOfPossession"`
}

// genesisState is what the genesis makes: its UTXOs, the transactions of
// its validators (avalanchego's genesis validators are transactions too)
// and its time.
type genesisState struct {
	assetID    ids.ID
	time       uint64
	utxos      []avax.UTXO
	validators []*txs.Tx
	// blockParent is the parent of the first block: the SHA-256 of the
	// genesis bytes.
	blockParent ids.ID
}

// parseGenesis reads the genesis as avalanchego builds the P-Chain's: the
// allocations become UTXOs numbered from 0 under the empty transaction ID;
// each validator is an AddValidatorTx (AddPermissionlessValidatorTx with a
// signer) without inputs whose stake is owned by its reward address.
func parseGenesis(raw []byte, networkID uint32) (*genesisState, error) {
	var g genesis
	if err := utxovm.DecodeGenesis(VMName, raw, &g); err != nil {
		return nil, err
	}
	assetID, err := ids.FromString(g.AVAXAssetID)
	if err != nil {
		return nil, fmt.Errorf("pvm genesis: avaxAssetID %q: %w", g.AVAXAssetID, err)
	}
	hrp := avax.HRP(networkID)
	gs := &genesisState{assetID: assetID, time: uint64(g.Timestamp), blockParent: sha256.Sum256(raw)}
	for i, a := range g.Allocations {
		addr, err := utxovm.GenesisAddress(a.Address, hrp)
		if err != nil {
			return nil, fmt.Errorf("pvm genesis: allocations[%d]: %w", i, err)
		}
		if a.Amount == 0 {
			return nil, fmt.Errorf("pvm genesis: allocations[%d]: amount must be positive", i)
		}
		gs.utxos = append(gs.utxos, avax.UTXO{
			UTXOID:  avax.UTXOID{OutputIndex: uint32(i)},
			AssetID: assetID,
			Out:     avax.TransferOutput{Amt: uint64(a.Amount), OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{addr}}},
		})
	}
	seen := map[avax.NodeID]bool{}
	for i, v := range g.Validators {
		where := fmt.Sprintf("pvm genesis: validators[%d]", i)
		nodeID, err := avax.ParseNodeID(v.NodeID)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if seen[nodeID] {
			return nil, fmt.Errorf("%s: node %s is listed twice", where, nodeID)
		}
		seen[nodeID] = true
		addr, err := utxovm.GenesisAddress(v.RewardAddress, hrp)
		if err != nil {
			return nil, fmt.Errorf("%s: rewardAddress: %w", where, err)
		}
		switch {
		case v.Weight == 0:
			return nil, fmt.Errorf("%s: weight must be positive", where)
		case uint64(v.EndTime) <= gs.time:
			return nil, fmt.Errorf("%s: endTime %d is not after the genesis timestamp %d", where, v.EndTime, gs.time)
		case v.DelegationFee > txs.PercentDenominator:
			return nil, fmt.Errorf("%s: delegationFee %d is more than 100%% (%d)", where, v.DelegationFee, txs.PercentDenominator)
		}
		owner := avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{addr}}
		base := txs.BaseTx{NetworkID: networkID}
		vdr := txs.Validator{NodeID: nodeID, Start: gs.time, End: uint64(v.EndTime), Weight: uint64(v.Weight)}
		stake := []avax.TransferableOutput{{AssetID: assetID, Out: avax.TransferOutput{Amt: uint64(v.Weight), OutputOwners: owner}}}
		var u txs.Unsigned = &txs.AddValidatorTx{BaseTx: base, Validator: vdr, StakeOuts: stake, RewardsOwner: owner, DelegationShares: v.DelegationFee}
		if v.Signer != nil {
			pop, err := parseGenesisSigner(v.Signer)
			if err != nil {
				return nil, fmt.Errorf("%s: signer: %w", where, err)
			}
			u = &txs.AddPermissionlessValidatorTx{BaseTx: base, Validator: vdr, Signer: pop, StakeOuts: stake,
				ValidatorRewardsOwner: owner, DelegatorRewardsOwner: owner, DelegationShares: v.DelegationFee}
		}
		gs.validators = append(gs.validators, txs.New(u, nil))
	}
	return gs, nil
}

func parseGenesisSigner(s *genesisSigner) (*txs.ProofOfPossession, error) {
	pk, err := avax.DecodePrefixedHex(s.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("publicKey: %w", err)
	}
	sig, err := avax.DecodePrefixedHex(s.ProofOfPossession)
	if err != nil {
		return nil, fmt.Errorf("proofOfPossession: %w", err)
	}
	var pop txs.ProofOfPossession
	if len(pk) != len(pop.PublicKey) || len(sig) != len(pop.Signature) {
		return nil, fmt.Errorf("want a %d-byte public key and a %d-byte proof", len(pop.PublicKey), len(pop.Signature))
	}
	copy(pop.PublicKey[:], pk)
	copy(pop.Signature[:], sig)
	if _, err := pop.Verify(); err != nil {
		return nil, err
	}
	return &pop, nil
}
