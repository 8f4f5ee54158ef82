package evm

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/params"
)

// ParseGenesis reads a standard go-ethereum genesis (the `genesis.json` of
// `geth init`). Missing pieces are filled so that the chain can be driven
// by chainhost's block producer, which is a post-merge (proof-of-stake)
// engine: terminalTotalDifficulty defaults to 0, and the blob schedule of
// Cancun and Prague defaults to mainnet's.
func ParseGenesis(raw []byte) (*core.Genesis, error) {
	var g core.Genesis
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("evm genesis: %w", err)
	}
	if g.Config == nil {
		return nil, fmt.Errorf("evm genesis: no \"config\"")
	}
	if g.Config.ChainID == nil || g.Config.ChainID.Sign() <= 0 {
		return nil, fmt.Errorf("evm genesis: config.chainId must be a positive number")
	}
	if g.Config.TerminalTotalDifficulty == nil {
		g.Config.TerminalTotalDifficulty = new(big.Int)
	}
	if g.Config.BlobScheduleConfig == nil && (g.Config.CancunTime != nil || g.Config.PragueTime != nil) {
		g.Config.BlobScheduleConfig = &params.BlobScheduleConfig{
			Cancun: params.DefaultCancunBlobConfig,
			Prague: params.DefaultPragueBlobConfig,
		}
	}
	if g.GasLimit == 0 {
		g.GasLimit = params.GenesisGasLimit
	}
	if err := g.Config.CheckConfigForkOrder(); err != nil {
		return nil, fmt.Errorf("evm genesis: %w", err)
	}
	return &g, nil
}
