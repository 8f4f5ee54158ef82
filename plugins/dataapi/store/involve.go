package store

import "github.com/ethereum/go-ethereum/common"

// View is a transaction as one address's transaction list shows it.
type View struct {
	Address common.Address
	Tx      Tx
}

// Views returns t as the transaction list of each address that took part
// in it shows it, in the order the addresses first appear: its sender,
// its recipient (or created contract), then the senders and recipients of
// its transfers and listed internal transactions. Each view has no input
// and only the transfers and internal transactions that address sent or
// received; the complete transaction is read by hash. One pass over t.
func (t *Tx) Views() []View {
	index := make(map[common.Address]int, 2)
	var out []View
	view := func(a common.Address) *Tx {
		i, ok := index[a]
		if !ok {
			i = len(out)
			index[a] = i
			v := *t
			v.Input, v.ERC20, v.ERC721, v.ERC1155, v.Internal = nil, nil, nil, nil, nil
			out = append(out, View{Address: a, Tx: v})
		}
		return &out[i].Tx
	}
	view(t.From)
	view(t.To)
	for _, x := range t.ERC20 {
		both(x.From, x.To, func(a common.Address) { v := view(a); v.ERC20 = append(v.ERC20, x) })
	}
	for _, x := range t.ERC721 {
		both(x.From, x.To, func(a common.Address) { v := view(a); v.ERC721 = append(v.ERC721, x) })
	}
	for _, x := range t.ERC1155 {
		both(x.From, x.To, func(a common.Address) { v := view(a); v.ERC1155 = append(v.ERC1155, x) })
	}
	for _, x := range t.Internal {
		both(x.From, x.To, func(a common.Address) { v := view(a); v.Internal = append(v.Internal, x) })
	}
	return out
}

// both calls fn with from, then with to unless it is from.
func both(from, to common.Address, fn func(common.Address)) {
	fn(from)
	if to != from {
		fn(to)
	}
}
