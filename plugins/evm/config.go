package evm

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chainhost/chainhost/plugins/evm/atomicvm"
	"github.com/chainhost/chainhost/sdk/confjson"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Block production modes of Config.BlockProduction.
const (
	// produceAuto builds a block as soon as transactions are pending.
	produceAuto = "auto"
	// produceInterval builds a block every BlockInterval, empty or not.
	produceInterval = "interval"
	// produceManual builds blocks only on evm_mine.
	produceManual = "manual"
	// produceNone builds no block at all (a chain serving imported history,
	// the conformance mode).
	produceNone = "none"
)

// atomicFee is the fee rule of atomic transactions (docs/evm.md). In JSON
// it is the string "dynamic" or a number of nAVAX.
type atomicFee atomicvm.Fee

// atomicFeeDynamic is the JSON of the dynamic rule.
const atomicFeeDynamic = "dynamic"

// MarshalJSON writes "dynamic" or the fixed fee.
func (f atomicFee) MarshalJSON() ([]byte, error) {
	if f.Dynamic {
		return json.Marshal(atomicFeeDynamic)
	}
	return json.Marshal(f.Fixed)
}

// UnmarshalJSON reads "dynamic" or a number of nAVAX (a JSON number or a
// decimal string).
func (f *atomicFee) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil && strings.EqualFold(s, atomicFeeDynamic) {
		*f = atomicFee{Dynamic: true}
		return nil
	}
	var q quantity
	if err := q.UnmarshalJSON(b); err != nil {
		return fmt.Errorf(`atomic-tx-fee must be "dynamic" or a number of nAVAX, got %s`, b)
	}
	*f = atomicFee{Fixed: uint64(q)}
	return nil
}

// config is the chain config of an EVM chain (the chain's `config` in the
// node config, handed over as JSON). docs/evm.md describes every key.
type config struct {
	// PruningEnabled keeps only recent state (path scheme); false keeps the
	// state of every block (hash scheme, archival), so proofs at any height.
	PruningEnabled bool `json:"pruning-enabled"`
	// HistoricalProofQueryWindow is how many blocks before the last accepted
	// one eth_getProof may query on an archival chain; 0 accepts any block.
	HistoricalProofQueryWindow uint64 `json:"historical-proof-query-window"`
	// APIMaxBatchSize is the most requests one JSON-RPC batch may hold.
	APIMaxBatchSize int `json:"api-max-batch-size"`
	// APIMaxBatchResponseSize is the largest response to a batch, in bytes.
	APIMaxBatchResponseSize int `json:"api-max-batch-response-size"`
	// APIMaxRequestSize is the largest JSON-RPC request body, in bytes.
	APIMaxRequestSize int `json:"api-max-request-size"`
	// BlockProduction is auto, interval, manual or none.
	BlockProduction string `json:"block-production"`
	// BlockInterval is the block period in interval mode.
	BlockInterval confjson.Duration `json:"block-interval"`
	// DebugAPIEnabled serves debug_* (off on a public node).
	DebugAPIEnabled bool `json:"debug-api-enabled"`
	// PersonalAPIEnabled serves personal_* on a keystore in the chain's
	// directory.
	PersonalAPIEnabled bool `json:"personal-api-enabled"`
	// KeystoreLightKDF uses the fast, weak key derivation for keystore
	// files (test and local networks only).
	KeystoreLightKDF bool `json:"keystore-light-kdf"`
	// DevAPIEnabled serves the dev methods evm_mine, evm_setAutomine,
	// evm_setIntervalMining, evm_increaseTime, evm_setNextBlockTimestamp.
	DevAPIEnabled bool `json:"dev-api-enabled"`
	// TestingAPIEnabled serves testing_buildBlockV1 (builds a block without
	// inserting it), for the execution-apis conformance suite.
	TestingAPIEnabled bool `json:"testing-api-enabled"`
	// TxPoolGlobalSlots is the most executable transactions in the pool.
	TxPoolGlobalSlots uint64 `json:"txpool-global-slots"`
	// TxPoolAccountSlots is the executable transactions guaranteed per account.
	TxPoolAccountSlots uint64 `json:"txpool-account-slots"`
	// TxPoolGlobalQueue is the most non-executable transactions in the pool.
	TxPoolGlobalQueue uint64 `json:"txpool-global-queue"`
	// TxPoolAccountQueue is the most non-executable transactions per account.
	TxPoolAccountQueue uint64 `json:"txpool-account-queue"`
	// RPCGasCap caps the gas of eth_call and eth_estimateGas; 0 is no cap.
	RPCGasCap uint64 `json:"rpc-gas-cap"`
	// RPCTxFeeCap caps the fee of a transaction sent by RPC, in ether; 0 is no cap.
	RPCTxFeeCap float64 `json:"rpc-tx-fee-cap"`
	// RPCEVMTimeout bounds eth_call; 0 is no bound.
	RPCEVMTimeout confjson.Duration `json:"rpc-evm-timeout"`
	// RPCTraceTimeout bounds each debug_trace* call, whatever timeout the
	// caller passes; 0 leaves go-ethereum's rule (the caller's timeout, 5s
	// a transaction by default).
	RPCTraceTimeout confjson.Duration `json:"rpc-trace-timeout"`
	// RPCTraceMaxSize is the largest answer of one debug_trace* call, in
	// bytes; 0 is no cap. It also caps go-ethereum's struct logger, so that
	// a long trace stops growing in memory.
	RPCTraceMaxSize int `json:"rpc-trace-max-size"`
	// RPCWSMaxSubscriptions is the most subscriptions one WebSocket
	// connection may hold at once; 0 is no cap.
	RPCWSMaxSubscriptions int `json:"rpc-ws-max-subscriptions"`
	// RPCLogsBlockRange is the widest block range one eth_getLogs (or log
	// filter) may span; 0 (the default) is no bound. go-ethereum counts a
	// range that ends at "latest" as unbounded, so any bound refuses those.
	RPCLogsBlockRange uint64 `json:"rpc-logs-block-range"`
	// RPCLogsQueryLimit is the most addresses, and topics per position, one
	// log query may name.
	RPCLogsQueryLimit int `json:"rpc-logs-query-limit"`
	// AllowUnprotectedTxs accepts transactions without replay protection
	// (EIP-155) over RPC.
	AllowUnprotectedTxs bool `json:"allow-unprotected-txs"`
	// CacheMB is the memory for the database and trie caches, in MiB.
	CacheMB int `json:"cache-mb"`
	// LogLevel is the EVM's initial log level (admin_setLogLevel changes it).
	LogLevel string `json:"log-level"`
	// ImportChainFile is an RLP chain file imported at start (blocks the
	// chain lacks are inserted); relative to the chain's directory.
	ImportChainFile string `json:"import-chain-file"`
	// ImportHead is the block hash made head, safe and finalized after the
	// import; empty keeps the imported chain's last block.
	ImportHead string `json:"import-head"`
	// AtomicTxFee is the fee rule of atomic transactions.
	AtomicTxFee atomicFee `json:"atomic-tx-fee"`
	// AVAXAssetID is the ID of the asset atomic transactions move; empty
	// asks the chain aliased X for its AVAX asset when first needed.
	AVAXAssetID string `json:"avax-asset-id"`
}

// defaultConfig returns the config of a chain whose config sets nothing.
func defaultConfig() config {
	return config{
		HistoricalProofQueryWindow: 43200,
		APIMaxBatchSize:            40,
		APIMaxBatchResponseSize:    25 * 1000 * 1000,
		APIMaxRequestSize:          5 * 1024 * 1024,
		BlockProduction:            produceAuto,
		BlockInterval:              confjson.Duration(2 * time.Second),
		DebugAPIEnabled:            true,
		TxPoolGlobalSlots:          20000,
		TxPoolAccountSlots:         10000,
		TxPoolGlobalQueue:          5000,
		TxPoolAccountQueue:         1000,
		RPCGasCap:                  50_000_000,
		RPCTxFeeCap:                100,
		RPCEVMTimeout:              confjson.Duration(5 * time.Second),
		RPCTraceTimeout:            confjson.Duration(5 * time.Second),
		RPCTraceMaxSize:            25 * 1000 * 1000,
		RPCWSMaxSubscriptions:      100,
		RPCLogsQueryLimit:          1000,
		CacheMB:                    64,
		LogLevel:                   "warn",
		AtomicTxFee:                atomicFee{Dynamic: true},
	}
}

// CheckConfig reports what is wrong with a chain config, as the VM reads it
// at start: for tools that check a config file without running the chain
// (the doc tests, docs/doctest.md).
func CheckConfig(raw []byte) error {
	_, err := parseConfig(raw)
	return err
}

// parseConfig reads a chain config over the defaults; unknown keys are an
// error, as in the node's own config.
func parseConfig(raw []byte) (config, error) {
	cfg := defaultConfig()
	if err := confjson.Decode(raw, &cfg); err != nil {
		return config{}, fmt.Errorf("evm chain config: %w", err)
	}
	if err := cfg.validate(); err != nil {
		return config{}, fmt.Errorf("evm chain config: %w", err)
	}
	return cfg, nil
}

func (c *config) validate() error {
	c.BlockProduction = strings.ToLower(c.BlockProduction)
	switch c.BlockProduction {
	case produceAuto, produceManual, produceNone:
	case produceInterval:
		if c.BlockInterval.D() < time.Second {
			return fmt.Errorf("block-interval must be at least 1s in interval mode, got %s", c.BlockInterval)
		}
	default:
		return fmt.Errorf("block-production must be auto, interval, manual or none, got %q", c.BlockProduction)
	}
	for _, k := range []struct {
		key          string
		value, least int
	}{
		{"api-max-batch-size", c.APIMaxBatchSize, 1},
		{"api-max-request-size", c.APIMaxRequestSize, 1024},
		{"rpc-logs-query-limit", c.RPCLogsQueryLimit, 1},
		{"api-max-batch-response-size", c.APIMaxBatchResponseSize, 1024},
		{"rpc-trace-max-size", c.RPCTraceMaxSize, 0},
		{"rpc-ws-max-subscriptions", c.RPCWSMaxSubscriptions, 0},
		{"cache-mb", c.CacheMB, 16},
	} {
		if k.value < k.least {
			return fmt.Errorf("%s must be at least %d, got %d", k.key, k.least, k.value)
		}
	}
	if c.TxPoolGlobalSlots == 0 || c.TxPoolAccountSlots == 0 || c.TxPoolGlobalQueue == 0 || c.TxPoolAccountQueue == 0 {
		return fmt.Errorf("txpool-* limits must be positive")
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		return err
	}
	if c.ImportHead != "" && c.ImportChainFile == "" {
		return fmt.Errorf("import-head needs import-chain-file")
	}
	if c.AVAXAssetID != "" {
		if _, err := ids.FromString(c.AVAXAssetID); err != nil {
			return fmt.Errorf("avax-asset-id: %w", err)
		}
	}
	return nil
}

// avaxAsset returns the configured AVAX asset; zero when none is.
func (c config) avaxAsset() ids.ID {
	if c.AVAXAssetID == "" {
		return ids.ID{}
	}
	id, _ := ids.FromString(c.AVAXAssetID) // checked by validate
	return id
}

// notProducing returns errNoProduction on a chain that builds no block,
// nil on one that does.
func (c config) notProducing() error {
	if c.BlockProduction == produceNone {
		return errNoProduction
	}
	return nil
}
