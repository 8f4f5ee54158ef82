package evm

import "github.com/ethereum/go-ethereum/params"

// chainConfigAPI adds eth_getChainConfig: the chain's fork configuration as
// in its genesis (chainId, fork blocks and times, blob schedule).
type chainConfigAPI struct {
	config *params.ChainConfig
}

// GetChainConfig is eth_getChainConfig.
func (a chainConfigAPI) GetChainConfig() *params.ChainConfig { return a.config }
