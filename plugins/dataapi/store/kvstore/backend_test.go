package kvstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/plugins/dataapi/store/storetest"
)

// backend returns the storetest backend of an engine.
func backend(engine string) storetest.Backend {
	dirs := map[store.Store]string{}
	opened := func(t *testing.T, dir string) store.Store {
		s, err := Open(dir, Options{Engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		dirs[s] = dir
		t.Cleanup(func() {
			if _, ok := dirs[s]; ok {
				s.Close()
			}
		})
		return s
	}
	return storetest.Backend{
		Dump: dump,
		Open: func(t *testing.T) store.Store { return opened(t, t.TempDir()) },
		Reopen: func(t *testing.T, s store.Store) store.Store {
			dir := dirs[s]
			delete(dirs, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return opened(t, dir)
		},
	}
}

// dump returns every key and value of s's engine, in order.
func dump(t *testing.T, st store.Store) string {
	t.Helper()
	var out strings.Builder
	it := st.(*Store).eng.iter([]byte{0x00}, []byte{0xff})
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Fprintf(&out, "%x %x\n", it.Key(), it.Value())
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
