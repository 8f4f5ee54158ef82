package utxoclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Spendable keeps, in order, the UTXOs of all that owner alone may spend
// at now (time.Now when nil): transfer outputs of one signature of
// owner's, no locktime left (an X-Chain mint output is not spent by a
// transfer). It reuses all's array.
func Spendable(all []avax.UTXO, owner avax.ShortID, now func() time.Time) []avax.UTXO {
	if now == nil {
		now = time.Now
	}
	t := uint64(now().Unix())
	return slices.DeleteFunc(all, func(u avax.UTXO) bool {
		return u.Mint != nil || u.Out.Threshold != 1 || !slices.Contains(u.Out.Addrs, owner) || u.Out.Locktime > t
	})
}

// ErrInsufficientFunds is matched when a key's UTXOs cannot pay for a
// transaction.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Input returns the input spending u with the key of signer, one of its
// owners.
func Input(u avax.UTXO, signer avax.ShortID) avax.TransferableInput {
	idx := uint32(slices.Index(u.Out.Addrs, signer))
	return avax.TransferableInput{UTXOID: u.UTXOID, AssetID: u.AssetID, In: avax.TransferInput{Amt: u.Out.Amt, SigIndices: []uint32{idx}}}
}

// Owner returns the owners of one address.
func Owner(a avax.ShortID) avax.OutputOwners {
	return avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{a}}
}

// Output returns an output of amount of asset to one address.
func Output(asset ids.ID, amount uint64, to avax.ShortID) avax.TransferableOutput {
	return avax.TransferableOutput{AssetID: asset, Out: avax.TransferOutput{Amt: amount, OutputOwners: Owner(to)}}
}

// Spend selects, largest first, UTXOs of owner's (Spendable) covering need
// (an amount per asset) and returns their inputs and the change back to
// owner. It reorders utxos.
func Spend(utxos []avax.UTXO, owner avax.ShortID, need map[ids.ID]uint64) ([]avax.TransferableInput, []avax.TransferableOutput, error) {
	// Largest first: fewer inputs, smaller transactions.
	slices.SortFunc(utxos, func(a, b avax.UTXO) int {
		switch {
		case a.Out.Amt > b.Out.Amt:
			return -1
		case a.Out.Amt < b.Out.Amt:
			return 1
		}
		return a.UTXOID.Compare(b.UTXOID)
	})
	have := map[ids.ID]uint64{}
	var ins []avax.TransferableInput
	for _, u := range utxos {
		if have[u.AssetID] >= need[u.AssetID] {
			continue
		}
		have[u.AssetID] += u.Out.Amt
		ins = append(ins, Input(u, owner))
	}
	var change []avax.TransferableOutput
	for asset, n := range need {
		if have[asset] < n {
			return nil, nil, fmt.Errorf("%w: asset %s: need %d (amount and fee), the key holds %d", ErrInsufficientFunds, asset, n, have[asset])
		}
		if d := have[asset] - n; d > 0 {
			change = append(change, Output(asset, d, owner))
		}
	}
	return ins, change, nil
}

// Keys returns the keys that sign a transaction of n credentials with key
// alone: one signature each.
func Keys(key *avax.PrivateKey, n int) [][]*avax.PrivateKey {
	keys := make([][]*avax.PrivateKey, n)
	for i := range keys {
		keys[i] = []*avax.PrivateKey{key}
	}
	return keys
}

// Account is what every UTXO chain's wallet holds of its own: the key it
// signs with, the network whose addresses it reads and writes, and the
// clock its UTXOs' locktimes are compared with.
type Account struct {
	Key       *avax.PrivateKey
	NetworkID uint32
	// ChainID is the ID of the chain the account acts on, which every
	// transaction names.
	ChainID ids.ID
	// Now is the time locktimes are compared with; time.Now when nil.
	Now func() time.Time
}

// NewAccount returns the account of key on c's chain, reading the network
// ID and the chain's ID from the node.
func NewAccount(ctx context.Context, c *Conn, key *avax.PrivateKey) (Account, error) {
	network, err := c.NetworkID(ctx)
	if err != nil {
		return Account{}, fmt.Errorf("network ID: %w", err)
	}
	chain, err := c.BlockchainID(ctx, c.Chain())
	if err != nil {
		return Account{}, fmt.Errorf("chain ID of %s: %w", c.Chain(), err)
	}
	return Account{Key: key, NetworkID: network, ChainID: chain}, nil
}

// Address returns the key's address.
func (a Account) Address() avax.ShortID { return a.Key.Address() }

// FormatAddress returns an address as chain shows it ("X-local1...").
func (a Account) FormatAddress(chain string, addr avax.ShortID) string {
	return FormatAddress(chain, a.NetworkID, addr)
}

// ParseAddress reads "<chain>-<hrp>1..." (any chain prefix), "<hrp>1..."
// or a CB58 short ID, and checks the HRP is the network's.
func (a Account) ParseAddress(s string) (avax.ShortID, error) {
	return ParseAddress(s, a.NetworkID)
}

// Spendable returns what the account alone may spend of all, now.
func (a Account) Spendable(all []avax.UTXO) []avax.UTXO {
	return Spendable(all, a.Address(), a.Now)
}
