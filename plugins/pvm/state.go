package pvm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/pvm/blocks"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Keys of the VM's state in its host database namespace (docs/pchain.md),
// besides the UTXO set's (utxostore: 'u', 'a', 's').
const (
	prefixTx       = 't' // t <txID> -> tx record
	prefixBlock    = 'b' // b <height> -> block bytes
	prefixBlockID  = 'B' // B <blockID> -> height
	prefixStaker   = 'S' // S <txID> -> staker (JSON), while pending or current
	prefixSubnet   = 'k' // k <subnetID> -> subnet (JSON)
	prefixChain    = 'c' // c <chainID> -> chain (JSON)
	prefixL1       = 'l' // l <validationID> -> L1 validator (JSON), until removed
	prefixExpiry   = 'x' // x <validationID> -> expiry of its register message
	prefixTotals   = 'h' // h <height> -> staking totals after that block (JSON)
	prefixFeeDay   = 'g' // g <validationID> <day> -> fee it paid that UTC day
	prefixFeeTotal = 'F' // F <day> -> fees of every L1 validator that day, and how many paid
	keyMeta        = "m" // the chain's counters and head
	keyClock       = "C" // the clock's offset or manual time
)

func key(prefix byte, parts ...[]byte) []byte {
	k := []byte{prefix}
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func txKey(id ids.ID) []byte                 { return key(prefixTx, id[:]) }
func blockKey(h uint64) []byte               { return key(prefixBlock, u64(h)) }
func blockIDKey(id ids.ID) []byte            { return key(prefixBlockID, id[:]) }
func stakerKey(id ids.ID) []byte             { return key(prefixStaker, id[:]) }
func subnetKey(id ids.ID) []byte             { return key(prefixSubnet, id[:]) }
func chainKey(id ids.ID) []byte              { return key(prefixChain, id[:]) }
func l1Key(id ids.ID) []byte                 { return key(prefixL1, id[:]) }
func expiryKey(id ids.ID) []byte             { return key(prefixExpiry, id[:]) }
func totalsKey(h uint64) []byte              { return key(prefixTotals, u64(h)) }
func feeDayKey(id ids.ID, day uint64) []byte { return key(prefixFeeDay, id[:], u64(day)) }
func feeTotalKey(day uint64) []byte          { return key(prefixFeeTotal, u64(day)) }

func sha256ID(b []byte) ids.ID { return sha256.Sum256(b) }

// meta is the chain's counters and head, written with every block.
type meta struct {
	// Height, LastBlockID and Time are the last block's (height 0 is the
	// genesis block, which holds no transaction and is not indexed).
	Height      uint64 `json:"height"`
	LastBlockID ids.ID `json:"lastBlockID"`
	Time        uint64 `json:"time"`
	// GenesisTime is the chain's time at genesis.
	GenesisTime uint64 `json:"genesisTime"`
	// TxCount is the number of accepted transactions.
	TxCount uint64 `json:"txCount"`
	// Burned is what transactions burned: their fees, and whatever their
	// inputs gave beyond what they produced.
	Burned uint64 `json:"burned"`
	// L1FeesPaid is what L1 validators paid up to Time.
	L1FeesPaid uint64 `json:"l1FeesPaid"`
}

// readMeta returns the stored meta; found is false on a new chain.
func readMeta(ctx context.Context, db host.Database) (m meta, found bool, err error) {
	found, err = readJSON(ctx, db, []byte(keyMeta), &m)
	if err != nil {
		return meta{}, false, fmt.Errorf("read chain state: %w", err)
	}
	return m, found, nil
}

// readJSON reads a JSON record; found is false when it does not exist.
func readJSON(ctx context.Context, db host.Database, k []byte, v any) (bool, error) {
	b, err := db.Get(ctx, k)
	if errors.Is(err, host.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("record %x: %w", k, err)
	}
	return true, nil
}

// jsonOp is the write of a JSON record.
func jsonOp(k []byte, v any) host.Op {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode record %x: %v", k, err)) // plain data: cannot fail
	}
	return host.Op{Key: k, Value: b}
}

// staker is a primary-network validator or delegator, pending (before its
// start) or current.
type staker struct {
	TxID      ids.ID     `json:"txID"`
	NodeID    txs.NodeID `json:"nodeID"`
	Delegator bool       `json:"delegator,omitempty"`
	Start     uint64     `json:"start"`
	End       uint64     `json:"end"`
	Weight    uint64     `json:"weight"`
	Current   bool       `json:"current"`
	// PublicKey is a validator's compressed BLS key, if it has one.
	PublicKey []byte `json:"publicKey,omitempty"`
	// Stake are the UTXOs (their bytes) the stake becomes at the end.
	Stake [][]byte `json:"stake"`
}

// subnet is a subnet, and its conversion once it is an L1.
type subnet struct {
	ID             ids.ID            `json:"id"`
	Owner          avax.OutputOwners `json:"owner"`
	Converted      bool              `json:"converted,omitempty"`
	ConversionID   ids.ID            `json:"conversionID"`
	ManagerChain   ids.ID            `json:"managerChain"`
	ManagerAddress []byte            `json:"managerAddress,omitempty"`
}

// chainRec is a chain created by a CreateChainTx.
type chainRec struct {
	ID       ids.ID `json:"id"`
	SubnetID ids.ID `json:"subnetID"`
	Name     string `json:"name"`
	VMID     ids.ID `json:"vmID"`
}

// l1Validator is an L1 validator. An active one pays the L1 fee rate per
// second from Balance, counted from Since, until the balance runs out.
type l1Validator struct {
	ValidationID          ids.ID           `json:"validationID"`
	SubnetID              ids.ID           `json:"subnetID"`
	NodeID                txs.NodeID       `json:"nodeID"`
	PublicKey             []byte           `json:"publicKey"`
	RemainingBalanceOwner warp.PChainOwner `json:"remainingBalanceOwner"`
	DeactivationOwner     warp.PChainOwner `json:"deactivationOwner"`
	StartTime             uint64           `json:"startTime"`
	Weight                uint64           `json:"weight"`
	MinNonce              uint64           `json:"minNonce"`
	Active                bool             `json:"active"`
	// Balance is what is left at Since; 0 when inactive.
	Balance uint64 `json:"balance"`
	Since   uint64 `json:"since"`
	// Paid is what it paid up to the chain's last block.
	Paid uint64 `json:"paid"`
	// PaidDays is one more than the last UTC day it paid in (0: none), to
	// count each validator once among a day's paying validators.
	PaidDays uint64 `json:"paidDays"`
}

// txRecord is a stored transaction and where it was accepted.
type txRecord struct {
	// Height is the block's height; genesisHeight marks a genesis
	// validator's transaction.
	Height uint64
	Bytes  []byte
}

// genesisHeight marks a transaction of the genesis.
const genesisHeight = ^uint64(0)

func (r txRecord) encode() []byte { return append(u64(r.Height), r.Bytes...) }

func decodeTxRecord(b []byte) (txRecord, error) {
	if len(b) < 8 {
		return txRecord{}, errors.New("corrupt transaction record")
	}
	return txRecord{Height: binary.BigEndian.Uint64(b[:8]), Bytes: b[8:]}, nil
}

// db reads the VM's stored state.
type db struct {
	host.Database
}

// tx returns a stored transaction, parsed, and its record.
func (d db) tx(ctx context.Context, id ids.ID) (*txs.Tx, txRecord, bool, error) {
	b, err := d.Get(ctx, txKey(id))
	if errors.Is(err, host.ErrNotFound) {
		return nil, txRecord{}, false, nil
	}
	if err != nil {
		return nil, txRecord{}, false, fmt.Errorf("read tx %s: %w", id, err)
	}
	r, err := decodeTxRecord(b)
	if err != nil {
		return nil, txRecord{}, false, err
	}
	t, err := txs.Parse(r.Bytes)
	if err != nil {
		return nil, txRecord{}, false, fmt.Errorf("stored tx %s: %w", id, err)
	}
	return t, r, true, nil
}

// block returns the block at a height.
func (d db) block(ctx context.Context, height uint64) (*blocks.Block, error) {
	b, err := d.Get(ctx, blockKey(height))
	if err != nil {
		return nil, fmt.Errorf("block at height %d: %w", height, err)
	}
	return blocks.Parse(b)
}

// blockHeight returns the height of a block ID.
func (d db) blockHeight(ctx context.Context, id ids.ID) (uint64, error) {
	b, err := d.Get(ctx, blockIDKey(id))
	if err != nil {
		return 0, fmt.Errorf("block %s: %w", id, err)
	}
	if len(b) != 8 {
		return 0, errors.New("corrupt block height")
	}
	return binary.BigEndian.Uint64(b), nil
}

// feeDay returns what a validator paid in a UTC day, up to the last block.
func (d db) feeDay(ctx context.Context, id ids.ID, day uint64) (uint64, error) {
	return d.u64(ctx, feeDayKey(id, day))
}

// u64 reads an 8-byte counter; a missing one is 0.
func (d db) u64(ctx context.Context, k []byte) (uint64, error) {
	b, err := d.Get(ctx, k)
	if errors.Is(err, host.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("corrupt counter %x", k)
	}
	return binary.BigEndian.Uint64(b), nil
}

// feeTotal is the fees of every L1 validator in one UTC day, and how many
// of them paid.
type feeTotal struct {
	Fees   uint64 `json:"fees"`
	Paying uint64 `json:"paying"`
}

// feeTotal returns a day's totals, up to the last block.
func (d db) feeTotal(ctx context.Context, day uint64) (feeTotal, error) {
	var t feeTotal
	_, err := readJSON(ctx, d, feeTotalKey(day), &t)
	return t, err
}
