package xvm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// duration is a time.Duration written in JSON as a Go duration string
// ("2s", "500ms"); a JSON number is taken as seconds.
type duration time.Duration

// MarshalJSON writes the duration as a string.
func (d duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var secs float64
		if err2 := json.Unmarshal(b, &secs); err2 != nil {
			return fmt.Errorf("duration must be a string like \"2s\" or a number of seconds: %s", b)
		}
		*d = duration(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	*d = duration(v)
	return nil
}

// config is the chain config of an X-Chain (the chain's `config` in the
// node config, as JSON). docs/xvm.md describes every key.
type config struct {
	// TxFee is burned by every transaction, in the fee asset's smallest
	// unit (avalanchego's local network: 1,000,000 nAVAX).
	TxFee jsonrpc.Uint64 `json:"tx-fee"`
	// CreateAssetTxFee is what getTxFee reports for creating an asset
	// (chainhost takes assets from the genesis only).
	CreateAssetTxFee jsonrpc.Uint64 `json:"create-asset-tx-fee"`
	// LinearizationHeight is the number of vertices the chain accepts
	// before it becomes a chain of blocks; 0 makes blocks from genesis.
	// It is fixed once the chain has accepted a container.
	LinearizationHeight jsonrpc.Uint64 `json:"linearization-height"`
	// MaxBlockTxs is the most transactions in one block or vertex (at most
	// 128 in a vertex).
	MaxBlockTxs int `json:"max-block-txs"`
	// IssueWait is how long issueTx waits for its transaction to be
	// accepted before it answers with the ID of a transaction still
	// processing.
	IssueWait duration `json:"issue-wait"`
	// MempoolSize is the most transactions waiting for a block.
	MempoolSize int `json:"mempool-size"`
}

// defaultConfig returns the config of a chain whose config sets nothing.
func defaultConfig() config {
	return config{
		TxFee:            1_000_000,
		CreateAssetTxFee: 1_000_000,
		MaxBlockTxs:      256,
		IssueWait:        duration(30 * time.Second),
		MempoolSize:      4096,
	}
}

// parseConfig reads a chain config over the defaults; unknown keys are an
// error, as in the node's own config.
func parseConfig(raw []byte) (config, error) {
	cfg := defaultConfig()
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return config{}, fmt.Errorf("xvm chain config: %w", err)
		}
	}
	switch {
	case cfg.MaxBlockTxs < 1:
		return config{}, fmt.Errorf("xvm chain config: max-block-txs must be at least 1, got %d", cfg.MaxBlockTxs)
	case cfg.MempoolSize < 1:
		return config{}, fmt.Errorf("xvm chain config: mempool-size must be at least 1, got %d", cfg.MempoolSize)
	case cfg.IssueWait < 0:
		return config{}, fmt.Errorf("xvm chain config: issue-wait must not be negative")
	}
	return cfg, nil
}
