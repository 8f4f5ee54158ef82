package host_test

import (
	"errors"
	"testing"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// TestAcceptBatchAndSharedMemory: over gRPC, a batch appends to two kinds
// with state and shared memory; a conflicting batch is refused with an
// error matching ErrSharedMemoryConflict and applies nothing; the shared
// memory reads cross the wire.
func TestAcceptBatchAndSharedMemory(t *testing.T) {
	ctx := t.Context()
	mem := newMem(nil)
	svc := serve(t, mem.Services())
	bi, ok := svc.Index.(host.BatchIndex)
	if !ok {
		t.Fatal("the index client is no BatchIndex")
	}
	owner := []byte("owner-address-20byte")
	b := host.AcceptBatch{
		Containers: []host.NewContainer{{Kind: "block", ID: ids.ID{10}, Bytes: []byte("b")}, {Kind: "tx", ID: ids.ID{11}, Bytes: []byte("t")}},
		State:      []host.Op{{Key: []byte("k"), Value: []byte("v")}},
		SharedMemory: []host.SharedRequests{{Peer: otherID, Puts: []host.SharedElement{
			{Key: []byte("u1"), Value: []byte("utxo1"), Traits: [][]byte{owner}},
		}}},
	}
	acc, err := bi.AcceptBatch(ctx, b)
	if err != nil || len(acc) != 2 || acc[0].Timestamp != t0 {
		t.Fatalf("accept batch: %+v, %v", acc, err)
	}
	if got := mem.Shared(selfID, otherID); len(got) != 1 || string(got[0].Value) != "utxo1" {
		t.Fatalf("shared memory for X: %+v", got)
	}
	// X exported u2 to this chain: it reads it by key and by trait.
	if err := mem.PutShared(otherID, selfID, host.SharedElement{Key: []byte("u2"), Value: []byte("utxo2"), Traits: [][]byte{owner}}); err != nil {
		t.Fatal(err)
	}
	vals, err := svc.SharedMemory.Get(ctx, otherID, [][]byte{[]byte("u2")})
	if err != nil || string(vals[0]) != "utxo2" {
		t.Fatalf("get: %q, %v", vals, err)
	}
	vals, lastTrait, lastKey, err := svc.SharedMemory.Indexed(ctx, otherID, [][]byte{owner}, nil, nil, 10)
	if err != nil || len(vals) != 1 || string(lastTrait) != string(owner) || string(lastKey) != "u2" {
		t.Fatalf("indexed: %q %q %q, %v", vals, lastTrait, lastKey, err)
	}
	if _, err := svc.SharedMemory.Get(ctx, otherID, [][]byte{[]byte("u9")}); !errors.Is(err, host.ErrNotFound) {
		t.Fatalf("get of a missing key: %v", err)
	}
	// Importing u2 twice in one batch is a conflict: nothing is applied.
	bad := host.AcceptBatch{
		Containers:   []host.NewContainer{{Kind: "block", ID: ids.ID{12}, Bytes: []byte("b2")}},
		State:        []host.Op{{Key: []byte("k2"), Value: []byte("v2")}},
		SharedMemory: []host.SharedRequests{{Peer: otherID, Removes: [][]byte{[]byte("u2"), []byte("u2")}}},
	}
	if _, err := bi.AcceptBatch(ctx, bad); !errors.Is(err, host.ErrSharedMemoryConflict) {
		t.Fatalf("double import: %v", err)
	}
	if _, err := svc.DB.Get(ctx, []byte("k2")); !errors.Is(err, host.ErrNotFound) {
		t.Fatal("a refused batch wrote its state")
	}
	if n := len(mem.Containers("block")); n != 1 {
		t.Fatalf("a refused batch appended: %d blocks", n)
	}
	if len(mem.Shared(otherID, selfID)) != 1 {
		t.Fatal("a refused batch consumed u2")
	}
	bad.SharedMemory[0].Removes = bad.SharedMemory[0].Removes[:1]
	if _, err := bi.AcceptBatch(ctx, bad); err != nil {
		t.Fatal(err)
	}
	if len(mem.Shared(otherID, selfID)) != 0 {
		t.Fatal("the import left u2 in shared memory")
	}
	// An unknown peer is refused; a container indexed already too.
	if _, err := bi.AcceptBatch(ctx, host.AcceptBatch{Containers: []host.NewContainer{{Kind: "block", ID: ids.ID{13}}},
		SharedMemory: []host.SharedRequests{{Peer: ids.ID{99}, Puts: []host.SharedElement{{Key: []byte("x")}}}}}); err == nil {
		t.Fatal("a put for an unknown peer was accepted")
	}
	if _, err := bi.AcceptBatch(ctx, host.AcceptBatch{Containers: []host.NewContainer{{Kind: "tx", ID: ids.ID{11}}}}); !errors.Is(err, host.ErrAlreadyIndexed) {
		t.Fatalf("a container indexed already: %v", err)
	}
}

// TestAcceptBatchOldHost: a host without the call answers ErrUnsupported.
func TestAcceptBatchOldHost(t *testing.T) {
	svc := serve(t, host.Services{Index: failingIndex{err: errors.New("unused")}})
	_, err := svc.Index.(host.BatchIndex).AcceptBatch(t.Context(), host.AcceptBatch{Containers: []host.NewContainer{{Kind: "block"}}})
	if !errors.Is(err, host.ErrUnsupported) {
		t.Fatalf("accept batch on an index without it: %v", err)
	}
	if _, err := svc.SharedMemory.Get(t.Context(), ids.ID{}, nil); !errors.Is(err, host.ErrUnsupported) {
		t.Fatalf("shared memory on a host without it: %v", err)
	}
}

// TestSharedBatch: requests are gathered per peer, in the order the peers
// first come.
func TestSharedBatch(t *testing.T) {
	var b host.SharedBatch
	if b.Requests() != nil {
		t.Fatal("an empty batch has requests")
	}
	p1, p2 := ids.ID{1}, ids.ID{2}
	b.Remove(p2, []byte("a"))
	b.Put(p1, host.SharedElement{Key: []byte("b")})
	b.Remove(p2, []byte("c"))
	got := b.Requests()
	if len(got) != 2 || got[0].Peer != p2 || got[1].Peer != p1 ||
		len(got[0].Removes) != 2 || string(got[0].Removes[1]) != "c" || len(got[1].Puts) != 1 || string(got[1].Puts[0].Key) != "b" {
		t.Fatalf("requests %+v", got)
	}
}
