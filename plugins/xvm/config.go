package xvm

import (
	"fmt"

	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// config is the chain config of an X-Chain (the chain's `config` in the
// node config, as JSON): the UTXO VMs' common keys, and the X-Chain's own.
// docs/xvm.md describes every key.
type config struct {
	// tx-fee (in the fee asset's smallest unit: avalanchego's local
	// network's 1,000,000 nAVAX), max-block-txs (in a vertex too, but at
	// most 128 there), issue-wait and mempool-size.
	utxovm.Config
	// CreateAssetTxFee is what getTxFee reports for creating an asset
	// (chainhost takes assets from the genesis only).
	CreateAssetTxFee jsonrpc.Uint64 `json:"create-asset-tx-fee"`
	// LinearizationHeight is the number of vertices the chain accepts
	// before it becomes a chain of blocks; 0 makes blocks from genesis.
	// It is fixed once the chain has accepted a container.
	LinearizationHeight jsonrpc.Uint64 `json:"linearization-height"`
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
	_, _, err := parseGenesis(raw, networkID)
	return err
}

// parseConfig reads a chain config over the defaults; unknown keys are an
// error, as in the node's own config.
func parseConfig(raw []byte) (config, error) {
	cfg := config{Config: utxovm.DefaultConfig(), CreateAssetTxFee: 1_000_000}
	if err := utxovm.DecodeConfig(VMName, raw, &cfg); err != nil {
		return config{}, err
	}
	if err := cfg.Check(); err != nil {
		return config{}, fmt.Errorf("xvm chain config: %w", err)
	}
	return cfg, nil
}
