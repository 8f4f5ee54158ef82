// Command notevm is the smallest avalanchego VM plugin the tests of
// core/rpcchainvm run: a chain of notes. POST a note's text to its "notes"
// handler; the VM asks the host to build a block, which holds the notes
// posted meanwhile. It is served by avalanchego's own rpcchainvm.Serve, so
// the host speaks the real protocol to it. With the chain config
// {"forget": true} it keeps its accepted blocks in memory only, and so
// loses them when its process dies, as a VM whose database writes without
// sync does.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/database"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	"github.com/ava-labs/avalanchego/snow/consensus/snowman"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/snow/engine/snowman/block"
	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
)

func main() {
	if err := rpcchainvm.Serve(context.Background(), &vm{}); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}

// note is a block: its notes, on its parent.
type note struct {
	Parent ids.ID    `json:"parent"`
	Height uint64    `json:"height"`
	Time   time.Time `json:"time"`
	Notes  []string  `json:"notes"`
}

type blk struct {
	vm    *vm
	n     note
	id    ids.ID
	bytes []byte
}

func (v *vm) newBlock(n note) *blk {
	b, _ := json.Marshal(n)
	return &blk{vm: v, n: n, id: sha256.Sum256(b), bytes: b}
}

func (b *blk) ID() ids.ID           { return b.id }
func (b *blk) Parent() ids.ID       { return b.n.Parent }
func (b *blk) Height() uint64       { return b.n.Height }
func (b *blk) Timestamp() time.Time { return b.n.Time }
func (b *blk) Bytes() []byte        { return b.bytes }
func (b *blk) Reject(context.Context) error {
	b.vm.mu.Lock()
	defer b.vm.mu.Unlock()
	delete(b.vm.verified, b.id)
	return nil
}

func (b *blk) Verify(context.Context) error {
	b.vm.mu.Lock()
	defer b.vm.mu.Unlock()
	if last := b.vm.last(); b.n.Parent != last.id || b.n.Height != last.n.Height+1 {
		return fmt.Errorf("block %s at height %d does not extend the last accepted %s at %d", b.id, b.n.Height, last.id, last.n.Height)
	}
	b.vm.verified[b.id] = b
	return nil
}

func (b *blk) Accept(context.Context) error {
	b.vm.mu.Lock()
	defer b.vm.mu.Unlock()
	delete(b.vm.verified, b.id)
	b.vm.chain = append(b.vm.chain, b)
	if b.vm.forget {
		return nil
	}
	var h [8]byte
	binary.BigEndian.PutUint64(h[:], b.n.Height)
	return b.vm.db.Put(h[:], b.bytes)
}

// vm is the chain of notes.
type vm struct {
	db     database.Database
	forget bool

	mu    sync.Mutex
	chain []*blk // accepted, from genesis
	// verified are the blocks verified and not yet decided, which the
	// host accepts or rejects by ID.
	verified map[ids.ID]*blk
	pending  []string
	wake     chan struct{} // closed when a note is posted
}

func (v *vm) last() *blk { return v.chain[len(v.chain)-1] }

func (v *vm) Initialize(_ context.Context, _ *snow.Context, db database.Database, genesis, _, config []byte, _ []*common.Fx, _ common.AppSender) error {
	v.db, v.wake, v.verified = db, make(chan struct{}), map[ids.ID]*blk{}
	if len(config) > 0 {
		var c struct {
			Forget bool `json:"forget"`
		}
		if err := json.Unmarshal(config, &c); err != nil {
			return fmt.Errorf("config: %w", err)
		}
		v.forget = c.Forget
	}
	v.chain = []*blk{v.newBlock(note{Notes: []string{string(genesis)}})}
	for h := uint64(1); ; h++ {
		var key [8]byte
		binary.BigEndian.PutUint64(key[:], h)
		b, err := db.Get(key[:])
		if errors.Is(err, database.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		parsed, err := v.parse(b)
		if err != nil {
			return err
		}
		v.chain = append(v.chain, parsed)
	}
}

func (v *vm) parse(b []byte) (*blk, error) {
	var n note
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("parse block: %w", err)
	}
	return v.newBlock(n), nil
}

func (*vm) SetState(context.Context, snow.State) error { return nil }
func (*vm) Shutdown(context.Context) error             { return nil }
func (*vm) Version(context.Context) (string, error)    { return "notevm/" + version.Current.String(), nil }
func (*vm) NewHTTPHandler(context.Context) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "notevm by header") }), nil
}

func (*vm) HealthCheck(context.Context) (interface{}, error) {
	return map[string]string{"notes": "ok"}, nil
}

// CreateHandlers serves "/notes": POST adds a note, GET lists the chain's
// heights and notes.
func (v *vm) CreateHandlers(context.Context) (map[string]http.Handler, error) {
	return map[string]http.Handler{"/notes": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		defer v.mu.Unlock()
		if r.Method == http.MethodPost {
			text, _ := io.ReadAll(r.Body)
			v.pending = append(v.pending, string(text))
			close(v.wake)
			v.wake = make(chan struct{})
			return
		}
		out := make([]note, 0, len(v.chain))
		for _, b := range v.chain {
			out = append(out, b.n)
		}
		_ = json.NewEncoder(w).Encode(out)
	})}, nil
}

func (v *vm) WaitForEvent(ctx context.Context) (common.Message, error) {
	for {
		v.mu.Lock()
		n, wake := len(v.pending), v.wake
		v.mu.Unlock()
		if n > 0 {
			return common.PendingTxs, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-wake:
		}
	}
}

func (v *vm) BuildBlock(context.Context) (snowman.Block, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.pending) == 0 {
		return nil, errors.New("no notes to build a block of")
	}
	last := v.last()
	b := v.newBlock(note{Parent: last.id, Height: last.n.Height + 1, Time: time.Now().UTC(), Notes: v.pending})
	v.pending = nil
	return b, nil
}

func (v *vm) GetBlock(_ context.Context, id ids.ID) (snowman.Block, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, b := range v.chain {
		if b.id == id {
			return b, nil
		}
	}
	if b, ok := v.verified[id]; ok {
		return b, nil
	}
	return nil, database.ErrNotFound
}

func (v *vm) ParseBlock(_ context.Context, b []byte) (snowman.Block, error) { return v.parse(b) }

func (*vm) SetPreference(context.Context, ids.ID) error { return nil }

func (v *vm) LastAccepted(context.Context) (ids.ID, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.last().id, nil
}

func (v *vm) GetBlockIDAtHeight(_ context.Context, h uint64) (ids.ID, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if h >= uint64(len(v.chain)) {
		return ids.Empty, database.ErrNotFound
	}
	return v.chain[h].id, nil
}

func (*vm) AppRequest(context.Context, ids.NodeID, uint32, time.Time, []byte) error { return nil }
func (*vm) AppResponse(context.Context, ids.NodeID, uint32, []byte) error           { return nil }
func (*vm) AppRequestFailed(context.Context, ids.NodeID, uint32, *common.AppError) error {
	return nil
}
func (*vm) AppGossip(context.Context, ids.NodeID, []byte) error               { return nil }
func (*vm) Connected(context.Context, ids.NodeID, *version.Application) error { return nil }
func (*vm) Disconnected(context.Context, ids.NodeID) error                    { return nil }

var _ block.ChainVM = (*vm)(nil)
