package kvstore

import (
	"slices"
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// TestChainLists: the chain list tests (storetest) on the default engine;
// TestEngineContract holds the other to the same engine contract.
func TestChainLists(t *testing.T) { storetest.TestChainLists(t, backend(EnginePebble)) }

// chainListTables are the tables a store of an earlier release lacks.
var chainListTables = []byte{tChainTx, tTxStatus, tAddrNat, tAddr20}

// TestBackfill: a store written by the release before the chain lists
// (their keys, their undo entries and the mark removed) gets them on
// open.
func TestBackfill(t *testing.T) {
	storetest.TestBackfillChainLists(t, backend(EnginePebble), func(t *testing.T, st store.Store) {
		s := st.(*Store)
		wb := s.eng.newBatch()
		for _, table := range append(chainListTables, tMeta) {
			it := s.eng.iter([]byte{table}, []byte{table + 1})
			for ok := it.First(); ok; ok = it.Next() {
				wb.del(append([]byte(nil), it.Key()...))
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
		}
		it := s.eng.iter([]byte{tUndo}, []byte{tUndo + 1})
		for ok := it.First(); ok; ok = it.Next() {
			var entries []undoEntry
			if err := decode(it.Value(), &entries); err != nil {
				t.Fatal(err)
			}
			kept := entries[:0]
			for _, e := range entries {
				if !slices.Contains(chainListTables, e.Key[0]) {
					kept = append(kept, e)
				}
			}
			wb.put(append([]byte(nil), it.Key()...), encode(kept))
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if err := wb.commit(); err != nil {
			t.Fatal(err)
		}
	})
}
