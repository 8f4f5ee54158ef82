package kvstore

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// metaChainLists marks a store whose chain lists (tChainTx, tTxStatus,
// tAddrNat, tAddr20) hold every transaction: a store of an earlier release
// lacks it, and Open backfills them.
var metaChainLists = metaKey("chain-lists")

// backfillEvery is how many transactions a backfill write holds.
const backfillEvery = 10_000

// backfillChainLists writes the chain lists of every transaction of a
// store written before they existed, from the complete transactions, and
// adds their keys to the undo records of the blocks that have one, so
// that a rollback removes them too. A backfill stopped midway starts over
// (the writes are idempotent); the mark lands with its last write.
func (s *Store) backfillChainLists(log hclog.Logger) error {
	switch _, err := s.eng.get(metaChainLists); {
	case err == nil:
		return nil
	case !errors.Is(err, errMissing):
		return fmt.Errorf("store: read the store's marks: %w", err)
	}
	wb := s.eng.newBatch()
	n := 0
	it := s.eng.iter([]byte{tTx}, []byte{tTx + 1})
	for ok := it.First(); ok; ok = it.Next() {
		if n == 0 {
			log.Info("store: backfilling the chain transaction lists of a store written by an earlier release")
		}
		var t tag
		copy(t[:], it.Key()[1:])
		var tx store.Tx
		if err := decode(it.Value(), &tx); err != nil {
			_ = it.Close()
			return err
		}
		writeChainLists(wb, t, &tx)
		if n++; n%backfillEvery == 0 {
			if err := wb.commit(); err != nil {
				_ = it.Close()
				return fmt.Errorf("store: backfill the chain lists: %w", err)
			}
			wb = s.eng.newBatch()
			log.Info("store: backfilling the chain transaction lists", "transactions", n)
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("store: backfill the chain lists: %w", err)
	}
	if err := s.extendUndo(wb); err != nil {
		return err
	}
	wb.put(metaChainLists, nil)
	if err := wb.commit(); err != nil {
		return fmt.Errorf("store: backfill the chain lists: %w", err)
	}
	if n > 0 {
		log.Info("store: chain transaction lists backfilled", "transactions", n)
	}
	return nil
}

// extendUndo adds to each undo record the chain list keys of the
// transactions its block wrote (tTx keys of the record), as absent
// before the block.
func (s *Store) extendUndo(wb writer) (err error) {
	it := s.eng.iter([]byte{tUndo}, []byte{tUndo + 1})
	defer func() {
		if cerr := it.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("store: extend the undo records: %w", cerr)
		}
	}()
	for ok := it.First(); ok; ok = it.Next() {
		var entries []undoEntry
		if err := decode(it.Value(), &entries); err != nil {
			return err
		}
		keys := keyRecorder{}
		for _, e := range entries {
			if len(e.Key) == 0 || e.Key[0] != tTx {
				continue
			}
			var tx store.Tx
			if err := getRecord(s.eng, e.Key, &tx); err != nil {
				return fmt.Errorf("store: the transaction of undo record %x: %w", it.Key(), err)
			}
			var t tag
			copy(t[:], e.Key[1:])
			writeChainLists(&keys, t, &tx)
		}
		if len(keys) == 0 {
			continue
		}
		for _, k := range keys {
			entries = append(entries, undoEntry{Key: k})
		}
		wb.put(append([]byte(nil), it.Key()...), encode(entries))
	}
	return nil
}

// keyRecorder is a writer that notes the keys put.
type keyRecorder [][]byte

func (k *keyRecorder) put(key, _ []byte) { *k = append(*k, append([]byte(nil), key...)) }
func (k *keyRecorder) del(key []byte)    { *k = append(*k, append([]byte(nil), key...)) }
