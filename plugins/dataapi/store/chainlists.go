package store

import "github.com/ethereum/go-ethereum/common"

// TxStatus selects the transactions of a chain's list by their receipt
// status.
type TxStatus uint8

// The statuses of ChainTxs.
const (
	AnyStatus TxStatus = iota
	Succeeded
	Failed
)

// ERC20Item is an ERC-20 transfer in an address's list.
type ERC20Item struct {
	Ref      TxRef
	Transfer ERC20Transfer
}

// Bare returns t as the chain's lists and an address's native list show
// it: without input, transfers and internal transactions.
func (t *Tx) Bare() Tx {
	b := *t
	b.Input, b.ERC20, b.ERC721, b.ERC1155, b.Internal = nil, nil, nil, nil, nil
	return b
}

// NativeParties returns the addresses whose native list holds t: its
// sender, then its recipient (or created contract) unless it is the
// sender.
func (t *Tx) NativeParties() []common.Address {
	if t.To == t.From {
		return []common.Address{t.From}
	}
	return []common.Address{t.From, t.To}
}

// ERC20Items returns t's ERC-20 transfers as address list items.
func (t *Tx) ERC20Items() []ERC20Item {
	out := make([]ERC20Item, len(t.ERC20))
	for i, x := range t.ERC20 {
		out[i] = ERC20Item{Ref: t.Ref(), Transfer: x}
	}
	return out
}
