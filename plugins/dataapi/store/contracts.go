package store

import "github.com/ethereum/go-ethereum/common"

// TokenTransfer is one transfer in a token contract's list: exactly one of
// ERC20, ERC721 and ERC1155 holds one transfer (RLP has no optional
// record, a list of one is how a record carries a choice).
type TokenTransfer struct {
	Ref     TxRef
	ERC20   []ERC20Transfer
	ERC721  []ERC721Transfer
	ERC1155 []ERC1155Transfer
}

// TokenTransfers returns the transfers of t for their tokens' lists, in
// log order.
func (t *Tx) TokenTransfers() []TokenTransfer {
	ref := t.Ref()
	out := make([]TokenTransfer, 0, len(t.ERC20)+len(t.ERC721)+len(t.ERC1155))
	for _, x := range t.ERC20 {
		out = append(out, TokenTransfer{Ref: ref, ERC20: []ERC20Transfer{x}})
	}
	for _, x := range t.ERC721 {
		out = append(out, TokenTransfer{Ref: ref, ERC721: []ERC721Transfer{x}})
	}
	for _, x := range t.ERC1155 {
		out = append(out, TokenTransfer{Ref: ref, ERC1155: []ERC1155Transfer{x}})
	}
	return out
}

// Place returns the token, log index and batch index of the transfer: its
// place in the token's list after the block and transaction.
func (x *TokenTransfer) Place() (token common.Address, logIndex, batchIndex uint64) {
	switch {
	case len(x.ERC20) > 0:
		return x.ERC20[0].Token.Address, x.ERC20[0].LogIndex, 0
	case len(x.ERC721) > 0:
		return x.ERC721[0].Token.Address, x.ERC721[0].LogIndex, 0
	default:
		return x.ERC1155[0].Token.Address, x.ERC1155[0].LogIndex, x.ERC1155[0].BatchIndex
	}
}
