package pvm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/utxovm"
	"github.com/chainhost/chainhost/plugins/pvm/txs"
	"github.com/chainhost/chainhost/plugins/pvm/warp"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Keys of the VM's state in its host database namespace (docs/pchain.md),
// besides the core's (utxovm: transactions, blocks, the meta) and the
// UTXO set's (utxostore).
const (
	prefixStaker   = 'S' // S <txID> -> staker (JSON), while pending or current
	prefixSubnet   = 'k' // k <subnetID> -> subnet (JSON)
	prefixChain    = 'c' // c <chainID> -> chain (JSON)
	prefixL1       = 'l' // l <validationID> -> L1 validator (JSON), until removed
	prefixExpiry   = 'x' // x <validationID> -> expiry of its register message
	prefixTotals   = 'h' // h <height> -> staking totals after that block (JSON)
	prefixFeeDay   = 'g' // g <validationID> <day> -> fee it paid that UTC day
	prefixFeeTotal = 'F' // F <day> -> fees of every L1 validator that day, and how many paid
	keyClock       = "C" // the clock's offset or manual time
)

func stakerKey(id ids.ID) []byte             { return utxovm.Key(prefixStaker, id[:]) }
func subnetKey(id ids.ID) []byte             { return utxovm.Key(prefixSubnet, id[:]) }
func chainKey(id ids.ID) []byte              { return utxovm.Key(prefixChain, id[:]) }
func l1Key(id ids.ID) []byte                 { return utxovm.Key(prefixL1, id[:]) }
func expiryKey(id ids.ID) []byte             { return utxovm.Key(prefixExpiry, id[:]) }
func totalsKey(h uint64) []byte              { return utxovm.Key(prefixTotals, utxovm.U64(h)) }
func feeDayKey(id ids.ID, day uint64) []byte { return utxovm.Key(prefixFeeDay, id[:], utxovm.U64(day)) }
func feeTotalKey(day uint64) []byte          { return utxovm.Key(prefixFeeTotal, utxovm.U64(day)) }

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

// staker is a primary-network validator or delegator, pending (before its
// start) or current.
type staker struct {
	TxID      ids.ID      `json:"txID"`
	NodeID    avax.NodeID `json:"nodeID"`
	Delegator bool        `json:"delegator,omitempty"`
	Start     uint64      `json:"start"`
	End       uint64      `json:"end"`
	Weight    uint64      `json:"weight"`
	Current   bool        `json:"current"`
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
	NodeID                avax.NodeID      `json:"nodeID"`
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

func (r txRecord) encode() []byte { return append(utxovm.U64(r.Height), r.Bytes...) }

func decodeTxRecord(b []byte) (txRecord, error) {
	if len(b) < 8 {
		return txRecord{}, errors.New("corrupt transaction record")
	}
	return txRecord{Height: binary.BigEndian.Uint64(b[:8]), Bytes: b[8:]}, nil
}

// storedTx returns an accepted transaction (a genesis validator's too).
func (vm *VM) storedTx(ctx context.Context, id ids.ID) (*txs.Tx, bool, error) {
	b, found, err := vm.Store.TxRecord(ctx, id)
	if err != nil || !found {
		return nil, false, err
	}
	r, err := decodeTxRecord(b)
	if err != nil {
		return nil, false, err
	}
	t, err := txs.Parse(r.Bytes)
	if err != nil {
		return nil, false, fmt.Errorf("stored tx %s: %w", id, err)
	}
	return t, true, nil
}

// feeTotal is the fees of every L1 validator in one UTC day, and how many
// of them paid.
type feeTotal struct {
	Fees   uint64 `json:"fees"`
	Paying uint64 `json:"paying"`
}

// storedFeeTotal returns a day's totals, up to the last block.
func storedFeeTotal(ctx context.Context, s utxovm.Store, day uint64) (feeTotal, error) {
	var t feeTotal
	_, err := s.ReadJSON(ctx, feeTotalKey(day), &t)
	return t, err
}
