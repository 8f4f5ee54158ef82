package pvm

import (
	"fmt"

	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Clock modes: the chain's clock follows wall time (moved forward by the
// dev methods), or moves only with the dev methods.
const (
	clockWall   = "wall"
	clockManual = "manual"
)

// config is the chain config of a P-Chain (the chain's `config` in the
// node config, as JSON): the UTXO VMs' common keys, and the P-Chain's own.
// docs/pchain.md describes every key. Amounts are in nAVAX, durations in
// seconds.
type config struct {
	// tx-fee (burned by every transaction but CreateSubnetTx and
	// CreateChainTx), max-block-txs, issue-wait and mempool-size.
	utxovm.Config
	// CreateSubnetTxFee and CreateChainTxFee are burned by those.
	CreateSubnetTxFee jsonrpc.Uint64 `json:"create-subnet-tx-fee"`
	CreateChainTxFee  jsonrpc.Uint64 `json:"create-chain-tx-fee"`
	// MinValidatorStake and MaxValidatorStake bound a primary-network
	// validator's own stake; MaxValidatorStake also bounds its weight with
	// its delegations.
	MinValidatorStake jsonrpc.Uint64 `json:"min-validator-stake"`
	MaxValidatorStake jsonrpc.Uint64 `json:"max-validator-stake"`
	// MinDelegatorStake is a delegator's least stake.
	MinDelegatorStake jsonrpc.Uint64 `json:"min-delegator-stake"`
	// MinDelegationFee is the least share of delegators' rewards a
	// validator may ask, in millionths (20000 is 2%).
	MinDelegationFee uint32 `json:"min-delegation-fee"`
	// MaxValidatorWeightFactor bounds a validator's weight with its
	// delegations to this many times its own stake.
	MaxValidatorWeightFactor uint64 `json:"max-validator-weight-factor"`
	// MinStakeDuration and MaxStakeDuration bound a staking period.
	MinStakeDuration jsonrpc.Uint64 `json:"min-stake-duration"`
	MaxStakeDuration jsonrpc.Uint64 `json:"max-stake-duration"`
	// MaxFutureStartTime is how far ahead of the chain's time a staking
	// period may start.
	MaxFutureStartTime jsonrpc.Uint64 `json:"max-future-start-time"`
	// L1FeeRate is what each active L1 validator pays per second from its
	// balance.
	L1FeeRate jsonrpc.Uint64 `json:"l1-fee-rate"`
	// Clock is clockWall or clockManual.
	Clock string `json:"clock"`
	// DevAPIEnabled serves the dev methods that move the clock.
	DevAPIEnabled bool `json:"dev-api-enabled"`
}

// defaultConfig returns the config of a chain whose config sets nothing:
// avalanchego's local network's values, but the L1 fee rate: mainnet's and
// Fuji's minimum price (the local network's is 1 nAVAX per second).
func defaultConfig() config {
	return config{
		Config:                   utxovm.DefaultConfig(),
		CreateSubnetTxFee:        100_000_000,
		CreateChainTxFee:         100_000_000,
		MinValidatorStake:        2_000_000_000_000,
		MaxValidatorStake:        3_000_000_000_000_000,
		MinDelegatorStake:        25_000_000_000,
		MinDelegationFee:         20_000,
		MaxValidatorWeightFactor: 5,
		MinStakeDuration:         24 * 3600,
		MaxStakeDuration:         365 * 24 * 3600,
		MaxFutureStartTime:       14 * 24 * 3600,
		L1FeeRate:                512,
		Clock:                    clockWall,
	}
}

// CheckConfig reports what is wrong with a chain config, as the VM reads it
// at start: for tools that check a config file without running the chain
// (the doc tests, docs/doctest.md).
func CheckConfig(raw []byte) error {
	_, err := parseConfig(raw)
	return err
}

// CheckGenesis reports what is wrong with a genesis of a chain on network
// networkID, as the VM reads it at start.
func CheckGenesis(raw []byte, networkID uint32) error {
	_, err := parseGenesis(raw, networkID)
	return err
}

// parseConfig reads a chain config over the defaults; unknown keys are an
// error, as in the node's own config.
func parseConfig(raw []byte) (config, error) {
	cfg := defaultConfig()
	if err := utxovm.DecodeConfig(VMName, raw, &cfg); err != nil {
		return config{}, err
	}
	if err := cfg.Check(); err != nil {
		return config{}, fmt.Errorf("pvm chain config: %w", err)
	}
	switch {
	case cfg.Clock != clockWall && cfg.Clock != clockManual:
		return config{}, fmt.Errorf("pvm chain config: clock must be %q or %q, got %q", clockWall, clockManual, cfg.Clock)
	case cfg.MinStakeDuration < 1:
		return config{}, fmt.Errorf("pvm chain config: min-stake-duration must be at least 1 second")
	case cfg.MaxStakeDuration < cfg.MinStakeDuration:
		return config{}, fmt.Errorf("pvm chain config: max-stake-duration %d is below min-stake-duration %d", cfg.MaxStakeDuration, cfg.MinStakeDuration)
	case cfg.MinValidatorStake < 1 || cfg.MaxValidatorStake < cfg.MinValidatorStake:
		return config{}, fmt.Errorf("pvm chain config: want 1 <= min-validator-stake <= max-validator-stake")
	case cfg.MinDelegatorStake < 1:
		return config{}, fmt.Errorf("pvm chain config: min-delegator-stake must be at least 1")
	case cfg.MaxValidatorWeightFactor < 1:
		return config{}, fmt.Errorf("pvm chain config: max-validator-weight-factor must be at least 1")
	case cfg.L1FeeRate < 1:
		return config{}, fmt.Errorf("pvm chain config: l1-fee-rate must be at least 1")
	case cfg.MinDelegationFee > 1_000_000:
		return config{}, fmt.Errorf("pvm chain config: min-delegation-fee %d is more than 100%% (1000000)", cfg.MinDelegationFee)
	}
	return cfg, nil
}
