package kvstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

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

// writeChainLists writes a transaction in the chain's lists (all, and
// those of its status), in the native lists of its sender and recipient,
// and its ERC-20 transfers in the lists of their senders and recipients.
// The status and native lists hold keys only: a page reads the rows from
// tChainTx and tAddrTx, one point read each.
func writeChainLists(wb writer, t tag, tx *store.Tx) {
	bare := tx.Bare()
	wb.put(newKey(tChainTx, t, posLen).u64(tx.BlockNumber).u32(tx.Index), encode(&bare))
	wb.put(append(newKey(tTxStatus, t, 1+posLen), statusByte(tx.Success)).u64(tx.BlockNumber).u32(tx.Index), nil)
	for _, a := range tx.NativeParties() {
		wb.put(newKey(tAddrNat, t, addrLen+posLen).addr(a).u64(tx.BlockNumber).u32(tx.Index), nil)
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
	if status == store.AnyStatus {
		return scanList(s, chain, p, posLen, func(t tag) key { return newKey(tChainTx, t, posLen) }, decodeRow[store.Tx])
	}
	var rows tag
	return scanList(s, chain, p, posLen, func(t tag) key {
		rows = t
		return append(newKey(tTxStatus, t, 1+posLen), statusByte(status == store.Succeeded))
	}, func(suffix, _ []byte) (store.Tx, bool, error) {
		return pointRow[store.Tx](s, append(newKey(tChainTx, rows, posLen), suffix...))
	})
}

// NativeTxs lists the transactions addr sent or received.
func (s *Store) NativeTxs(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.Tx, []byte, error) {
	var views key
	return scanList(s, chain, p, posLen, func(t tag) key {
		views = newKey(tAddrTx, t, addrLen+posLen).addr(addr)
		return newKey(tAddrNat, t, addrLen+posLen).addr(addr)
	}, func(suffix, _ []byte) (store.Tx, bool, error) {
		view, ok, err := pointRow[store.Tx](s, append(slices.Clone(views), suffix...))
		return view.Bare(), ok, err
	})
}

// ERC20Transfers lists addr's ERC-20 transfers.
func (s *Store) ERC20Transfers(_ context.Context, chain ids.ID, addr common.Address, p store.Page) ([]store.ERC20Item, []byte, error) {
	return listPage[store.ERC20Item](s, tAddr20, chain, addr, p, erc20Suffix)
}

// decodeRow is a list row made of its value.
func decodeRow[T any](_, v []byte) (T, bool, error) {
	var row T
	return row, true, decode(v, &row)
}

// pointRow reads the record at k, for a list of keys: a record missing
// was rolled back since the scan began, and is skipped (false).
func pointRow[T any](s *Store, k []byte) (T, bool, error) {
	var row T
	err := getRecord(s.eng, k, &row)
	if errors.Is(err, store.ErrNotFound) {
		return row, false, nil
	}
	if err != nil {
		return row, false, fmt.Errorf("store: read a listed row: %w", err)
	}
	return row, true, nil
}
