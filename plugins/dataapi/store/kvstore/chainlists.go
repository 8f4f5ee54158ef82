package kvstore

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// erc20Suffix is the length, after the address, of a tAddr20 key: the
// cursor of a page.
const erc20Suffix = posLen + 4

// statusByte is a transaction's status as tTxStatus keys hold it.
func statusByte(success bool) byte {
	if success {
		return 1
	}
	return 0
}

// writeChainLists writes a transaction, bare, in the chain's lists (all,
// and those of its status) and in the native lists of its sender and
// recipient, and its ERC-20 transfers in the lists of their senders and
// recipients: every page is one scan, with no read per item.
func writeChainLists(wb writer, t tag, tx *store.Tx) {
	bare := encode(new(tx.Bare()))
	wb.put(newKey(tChainTx, t, posLen).u64(tx.BlockNumber).u32(tx.Index), bare)
	wb.put(append(newKey(tTxStatus, t, 1+posLen), statusByte(tx.Success)).u64(tx.BlockNumber).u32(tx.Index), bare)
	for _, a := range tx.NativeParties() {
		wb.put(newKey(tAddrNat, t, addrLen+posLen).addr(a).u64(tx.BlockNumber).u32(tx.Index), bare)
	}
	for _, item := range tx.ERC20Items() {
		v := encode(&item)
		forBoth(item.Transfer.From, item.Transfer.To, func(a common.Address) {
			wb.put(newKey(tAddr20, t, addrLen+erc20Suffix).addr(a).u64(tx.BlockNumber).u32(tx.Index).u32(item.Transfer.LogIndex), v)
		})
	}
}

// ChainTxs lists chain's transactions of a status.
func (s *Store) ChainTxs(_ context.Context, chain ids.ID, status store.TxStatus, p store.Page) ([]store.Tx, []byte, error) {
	prefix := func(t tag) key { return newKey(tChainTx, t, posLen) }
	if status != store.AnyStatus {
		prefix = func(t tag) key { return append(newKey(tTxStatus, t, 1+posLen), statusByte(status == store.Succeeded)) }
	}
	return scanList[store.Tx](s, chain, p, posLen, prefix)
}

// NativeTxs lists the transactions addr sent or received.
func (s *Store) NativeTxs(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.Tx, []byte, error) {
	return listPage[store.Tx](s, tAddrNat, chain, addr, p, posLen)
}

// ERC20Transfers lists addr's ERC-20 transfers.
func (s *Store) ERC20Transfers(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.ERC20Item, []byte, error) {
	return listPage[store.ERC20Item](s, tAddr20, chain, addr, p, erc20Suffix)
}
