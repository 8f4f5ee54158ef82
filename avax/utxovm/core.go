// Package utxovm is the core the UTXO chains' VMs are built on, the
// X-Chain's (docs/xvm.md) and the P-Chain's (docs/pchain.md): the mempool
// of pending transactions and the issue that waits for acceptance, the
// block builder's loop and Shutdown, the atomic append whose lost answer
// the stored state settles, the standard block's frame, the stored state's
// keys and records, the config's common keys, the genesis' reading, and
// the API methods every UTXO chain answers alike. A VM embeds Core and
// brings its Rules: its transactions' checks, its blocks' making and its
// JSON forms.
package utxovm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
	"github.com/chainhost/chainhost/avax/utxoapi"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// ErrRejected is matched by the error of a transaction the chain refuses.
var ErrRejected = errors.New("tx rejected")

// Rejected returns an error matching ErrRejected that says why.
func Rejected(id ids.ID, format string, args ...any) error {
	return fmt.Errorf("%w: tx %s: %s", ErrRejected, id, fmt.Sprintf(format, args...))
}

// Rules are what a VM brings to the core: what is its own.
type Rules[U signedtx.Unsigned, I any] struct {
	// ParseTx reads a transaction's bytes.
	ParseTx func([]byte) (*signedtx.Tx[U], error)
	// Check verifies a new transaction against the state it will be
	// accepted on and the mempool, and returns it as it waits. Mu is held.
	Check func(context.Context, *signedtx.Tx[U]) (*Pending[U, I], error)
	// Build makes the blocks that are due and returns how long the builder
	// may sleep before it looks again (UntilWoken: until a transaction
	// arrives). Mu is not held.
	Build func() time.Duration
	// StoredTx returns an accepted transaction.
	StoredTx func(context.Context, ids.ID) (*signedtx.Tx[U], bool, error)
	// LastHeight is the last accepted block's height, or why there is
	// none.
	LastHeight func() (uint64, error)
	// AcceptedCount is how many containers of an index kind the stored
	// state holds, read without Mu (the host asks while the VM may wait on
	// an append).
	AcceptedCount func(ctx context.Context, kind string) (uint64, error)
	// SourceChain reads getUTXOs' sourceChain param (never ""): the
	// chain whose exports to this one the addresses' UTXOs are read from,
	// or this chain.
	SourceChain func(context.Context, string) (ids.ID, error)
	// TxJSON and BlockJSON are the JSON forms of getTx and getBlock.
	TxJSON    func(*signedtx.Tx[U]) any
	BlockJSON func(*Block[U]) any
	// Accepted is getTxStatus's word for an accepted transaction.
	Accepted string
}

// Core is the part of a UTXO VM every such VM shares. The VM embeds it,
// and Init fills it.
type Core[U signedtx.Unsigned, I any] struct {
	Env    *sdk.Env
	Config Config
	Store  Store
	Index  host.BatchIndex
	HRP    string // the network's
	Blocks BlockFormat[U]
	rules  Rules[U, I]

	// Mu guards the mempool and the VM's state, and serialises
	// verification with acceptance, so that a transaction is checked
	// against the state it will be accepted on.
	Mu   sync.Mutex
	Pool *Mempool[U, I]
	// Stale is set when the VM's state may be behind the stored state (an
	// append's outcome is unknown): the VM reads it again before the next
	// block.
	Stale bool

	wake chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

// Init fills the core of the VM named vm whose chain is env's, after
// checking that the host appends atomic batches.
func (c *Core[U, I]) Init(vm string, env *sdk.Env, cfg Config, blocks BlockFormat[U], rules Rules[U, I]) error {
	bi, ok := env.Host.Index.(host.BatchIndex)
	if !ok {
		return fmt.Errorf("%s needs a host with atomic batches", vm)
	}
	c.Env, c.Config, c.Store, c.Index, c.HRP = env, cfg, Store{env.Host.DB}, bi, avax.HRP(env.NetworkID)
	c.Blocks, c.rules = blocks, rules
	c.Pool = NewMempool[U, I]()
	return nil
}

// APIChain is what the API's params are read against: this chain, on its
// network.
func (c *Core[U, I]) APIChain() utxoapi.Chain { return utxoapi.Chain{Env: c.Env, HRP: c.HRP} }

// FormatAddress returns an address as this chain shows it:
// "<alias>-<hrp>1...".
func (c *Core[U, I]) FormatAddress(a avax.ShortID) string {
	s, err := avax.FormatAddress(c.Env.Name, c.HRP, a)
	if err != nil {
		return a.String()
	}
	return s
}

// FormatAddresses writes addresses as this chain shows them.
func (c *Core[U, I]) FormatAddresses(list []avax.ShortID) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = c.FormatAddress(a)
	}
	return out
}
