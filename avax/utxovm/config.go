package utxovm

import (
	"fmt"
	"strings"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/confjson"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Config is the part of a UTXO chain's config (its `config` in the node
// config) that every UTXO VM reads; a VM's config embeds it.
// docs/xvm.md and docs/pchain.md describe the keys.
type Config struct {
	// TxFee is burned by every transaction (a VM may name exceptions), in
	// the fee asset's smallest unit.
	TxFee jsonrpc.Uint64 `json:"tx-fee"`
	// MaxBlockTxs is the most transactions in one block.
	MaxBlockTxs int `json:"max-block-txs"`
	// IssueWait is how long issueTx waits for its transaction to be
	// accepted before it answers with the ID of a transaction still
	// processing.
	IssueWait confjson.Duration `json:"issue-wait"`
	// MempoolSize is the most transactions waiting for a block.
	MempoolSize int `json:"mempool-size"`
}

// DefaultConfig is the common part of a config that sets nothing:
// avalanchego's local network's fee.
func DefaultConfig() Config {
	return Config{TxFee: 1_000_000, MaxBlockTxs: 256, IssueWait: confjson.Duration(30 * time.Second), MempoolSize: 4096}
}

// Check checks the common part of a config.
func (c Config) Check() error {
	switch {
	case c.MaxBlockTxs < 1:
		return fmt.Errorf("max-block-txs must be at least 1, got %d", c.MaxBlockTxs)
	case c.MempoolSize < 1:
		return fmt.Errorf("mempool-size must be at least 1, got %d", c.MempoolSize)
	}
	return nil
}

// DecodeConfig reads a chain config over cfg, which holds the defaults,
// strictly (confjson); errors name the VM's chain config.
func DecodeConfig(vm string, raw []byte, cfg any) error {
	if err := confjson.Decode(raw, cfg); err != nil {
		return fmt.Errorf("%s chain config: %w", vm, err)
	}
	return nil
}

// DecodeGenesis reads a chain's genesis strictly (confjson); errors name
// the VM's genesis.
func DecodeGenesis(vm string, raw []byte, g any) error {
	if err := confjson.Decode(raw, g); err != nil {
		return fmt.Errorf("%s genesis: %w", vm, err)
	}
	return nil
}

// GenesisAddress reads a genesis address, "<chain>-<hrp>1..." or
// "<hrp>1...", on the network of hrp.
func GenesisAddress(s, hrp string) (avax.ShortID, error) {
	if _, rest, ok := strings.Cut(s, "-"); ok {
		s = rest
	}
	got, addr, err := avax.ParseBech32(s)
	if err != nil {
		return avax.ShortID{}, err
	}
	if got != hrp {
		return avax.ShortID{}, fmt.Errorf("address %q has HRP %q; this network's is %q", s, got, hrp)
	}
	return addr, nil
}
