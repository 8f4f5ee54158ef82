package hostsvc

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/ava-labs/avalanchego/chains/atomic"
	"github.com/ava-labs/avalanchego/chains/atomic/atomictest"
	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/database/memdb"
	avaids "github.com/ava-labs/avalanchego/ids"

	"github.com/chainhost/chainhost/core/rpcchainvm/chaindb"
	"github.com/chainhost/chainhost/core/sharedmemory"
	"github.com/chainhost/chainhost/core/storage"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// sharedSetup is two chains' shared memories over one host database, and
// chain 0's own database.
type sharedSetup struct {
	db       *storage.DB
	mem      *sharedmemory.Memory
	id0, id1 avaids.ID
	sm0, sm1 *SharedMemory
	chainDB  *chaindb.DB
}

func newShared(t *testing.T) sharedSetup {
	t.Helper()
	db := openDB(t)
	mem := sharedmemory.New(db.Namespace("shared-memory"))
	id0, id1 := avaids.GenerateTestID(), avaids.GenerateTestID()
	isChain := func(id avaids.ID) bool { return id == id0 || id == id1 }
	return sharedSetup{
		db: db, mem: mem, id0: id0, id1: id1,
		sm0: NewSharedMemory(db, mem, id0, isChain), sm1: NewSharedMemory(db, mem, id1, isChain),
		chainDB: chaindb.New(db.Namespace("chain-0")),
	}
}

// differentTests are the tests of avalanchego's suite that check where
// chainhost's shared memory keeps its own documented rules
// (docs/shared-memory.md), with the reason; the tests named there check
// chainhost's rule instead.
var differentTests = map[string]string{
	"TestSharedMemoryCantDuplicateRemove": tombstone,
	"TestSharedMemoryCommitOnRemove":      tombstone,
	"TestPutAndRemoveBatch":               tombstone,
	"TestSharedMemoryLargeBatchSize":      tombstone,
	"TestSharedMemoryIndexed": "wants a trait's values newest first, avalanchego's linked list order; " +
		"chainhost's are in key order, and pages follow on either way (TestIndexedPages)",
}

const tombstone = "removes a value never put, which avalanchego records and chainhost refuses (TestRemoveOfAbsentRefused)"

// TestSharedMemorySuite runs avalanchego's own shared memory tests on the
// host's shared memory in a real database, with batches of the chain's
// database.
func TestSharedMemorySuite(t *testing.T) {
	for _, test := range atomictest.SharedMemoryTests {
		name := funcName(test)
		t.Run(name, func(t *testing.T) {
			if why, ok := differentTests[name]; ok {
				t.Skip(why)
			}
			s := newShared(t)
			test(t, s.id0, s.id1, s.sm0, s.sm1, s.chainDB)
		})
	}
}

// TestSharedMemoryWithHostChains: values a chainhost chain (the X-Chain,
// through the host's Index.AcceptBatch path) puts for an avalanchego VM
// are the VM's to read and import; what the VM puts is the X-Chain's.
func TestSharedMemoryWithHostChains(t *testing.T) {
	s := newShared(t)
	x := ids.ID(s.id1)
	s.mem.Lock()
	b := s.db.Namespace("x-state").NewBatch()
	err := s.mem.Stage(b, x, []host.SharedRequests{{Peer: ids.ID(s.id0), Puts: []host.SharedElement{
		{Key: []byte("utxo"), Value: []byte("from X"), Traits: [][]byte{[]byte("alice")}},
	}}})
	if err == nil {
		err = s.db.Write(b, false)
	}
	s.mem.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	vals, _, _, err := s.sm0.Indexed(s.id1, [][]byte{[]byte("alice")}, nil, nil, 10)
	if err != nil || len(vals) != 1 || string(vals[0]) != "from X" {
		t.Fatalf("the VM's view of X's export: %q, %v", vals, err)
	}
	if err := s.sm0.Apply(map[avaids.ID]*atomic.Requests{s.id1: {
		RemoveRequests: [][]byte{[]byte("utxo")},
		PutRequests:    []*atomic.Element{{Key: []byte("back"), Value: []byte("from the VM")}},
	}}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.mem.Get(x, ids.ID(s.id0), [][]byte{[]byte("back")}); err != nil || string(got[0]) != "from the VM" {
		t.Fatalf("X's view of the VM's export: %q, %v", got, err)
	}
	if _, err := s.sm0.Get(s.id1, [][]byte{[]byte("utxo")}); !errors.Is(err, database.ErrNotFound) {
		t.Fatalf("an imported value: %v", err)
	}
}

// TestRemoveOfAbsentRefused: a remove of a value never put, or removed
// already, and a put of a key there already are refused with avalanchego's
// words, and nothing of the Apply lands: not the other requests, not the
// batch.
func TestRemoveOfAbsentRefused(t *testing.T) {
	s := newShared(t)
	if err := s.sm1.Apply(map[avaids.ID]*atomic.Requests{s.id0: {PutRequests: []*atomic.Element{{Key: []byte("k"), Value: []byte("v")}}}}); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		reqs *atomic.Requests
		want string
	}{
		"remove of a value never put": {&atomic.Requests{RemoveRequests: [][]byte{[]byte("k"), []byte("never")}}, "duplicate remove"},
		"remove twice":                {&atomic.Requests{RemoveRequests: [][]byte{[]byte("k"), []byte("k")}}, "duplicate remove"},
		"put twice": {&atomic.Requests{RemoveRequests: [][]byte{[]byte("k")}, PutRequests: []*atomic.Element{
			{Key: []byte("p"), Value: []byte("1")}, {Key: []byte("p"), Value: []byte("2")},
		}}, "duplicate put"},
	} {
		batch := s.chainDB.NewBatch()
		if err := batch.Put([]byte("state"), []byte(name)); err != nil {
			t.Fatal(err)
		}
		err := s.sm0.Apply(map[avaids.ID]*atomic.Requests{s.id1: c.reqs}, batch)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, host.ErrSharedMemoryConflict) {
			t.Fatalf("%s: %v", name, err)
		}
		if has, err := s.chainDB.Has([]byte("state")); err != nil || has {
			t.Fatalf("%s: the batch landed (%v)", name, err)
		}
		if _, err := s.sm0.Get(s.id1, [][]byte{[]byte("k")}); err != nil {
			t.Fatalf("%s: the remove landed: %v", name, err)
		}
	}
	if err := s.sm0.Apply(map[avaids.ID]*atomic.Requests{s.id1: {RemoveRequests: [][]byte{[]byte("k")}}}); err != nil {
		t.Fatal(err)
	}
	err := s.sm0.Apply(map[avaids.ID]*atomic.Requests{s.id1: {RemoveRequests: [][]byte{[]byte("k")}}})
	if err == nil || !strings.HasPrefix(err.Error(), "duplicate remove") {
		t.Fatalf("second import of one value: %v", err)
	}
}

// TestApplyForeignBatch: a batch of another database is refused, saying
// so, and nothing lands.
func TestApplyForeignBatch(t *testing.T) {
	s := newShared(t)
	foreign := memdb.New().NewBatch()
	err := s.sm0.Apply(map[avaids.ID]*atomic.Requests{s.id1: {PutRequests: []*atomic.Element{{Key: []byte("k"), Value: []byte("v")}}}}, foreign)
	if err == nil || !strings.Contains(err.Error(), "not a batch of the chain's database") {
		t.Fatalf("a memdb batch: %v", err)
	}
	if _, err := s.sm1.Get(s.id0, [][]byte{[]byte("k")}); !errors.Is(err, database.ErrNotFound) {
		t.Fatalf("the put landed: %v", err)
	}
}

// TestApplyUnknownPeer: a request naming a chain the node does not have
// is refused, naming it.
func TestApplyUnknownPeer(t *testing.T) {
	s := newShared(t)
	stranger := avaids.GenerateTestID()
	err := s.sm0.Apply(map[avaids.ID]*atomic.Requests{stranger: {PutRequests: []*atomic.Element{{Key: []byte("k"), Value: []byte("v")}}}})
	if err == nil || !strings.Contains(err.Error(), stranger.String()) {
		t.Fatalf("a put for an unknown chain: %v", err)
	}
}

// TestIndexedPages: an Indexed call for more values than one page of the
// host's shared memory answers them all, and the next call starts after.
func TestIndexedPages(t *testing.T) {
	s := newShared(t)
	var puts []*atomic.Element
	for i := range 2*maxPage + 10 {
		puts = append(puts, &atomic.Element{Key: fmt.Appendf(nil, "%05d", i), Value: fmt.Appendf(nil, "v%05d", i), Traits: [][]byte{[]byte("alice")}})
	}
	if err := s.sm1.Apply(map[avaids.ID]*atomic.Requests{s.id0: {PutRequests: puts}}); err != nil {
		t.Fatal(err)
	}
	vals, lt, lk, err := s.sm0.Indexed(s.id1, [][]byte{[]byte("alice")}, nil, nil, 2*maxPage+1)
	if err != nil || len(vals) != 2*maxPage+1 || string(vals[2*maxPage]) != fmt.Sprintf("v%05d", 2*maxPage) {
		t.Fatalf("%d values, %v", len(vals), err)
	}
	rest, _, _, err := s.sm0.Indexed(s.id1, [][]byte{[]byte("alice")}, lt, lk, 100)
	if err != nil || len(rest) != 9 || string(rest[0]) != fmt.Sprintf("v%05d", 2*maxPage+1) {
		t.Fatalf("the rest: %d values, %v", len(rest), err)
	}
}

// funcName is the name of a test function of avalanchego's suite.
func funcName(f any) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
}
