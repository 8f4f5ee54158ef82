// Package example is a tiny key-value chain VM, the VM author's tutorial:
// each kv.put makes a block that is accepted and reported to the host's
// index in the same atomic write as the VM's own state.
package example

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// Kind is the one index kind the VM reports.
const Kind = "block"

// Keys of the VM's state in its host database namespace.
var (
	keyCount = []byte("n")  // number of accepted blocks
	keyBlock = []byte("b/") // b/<height> -> block JSON
	keyValue = []byte("k/") // k/<key> -> value
)

// block is one accepted put.
type block struct {
	Height jsonrpc.Uint64 `json:"height"`
	Parent ids.ID         `json:"parent"`
	Time   int64          `json:"time"`
	Key    string         `json:"key"`
	Value  string         `json:"value"`
}

// VM is the key-value chain.
type VM struct {
	env *sdk.Env

	mu     sync.Mutex // serialises block building
	count  uint64
	parent ids.ID
	// stale is set when an accept failed without saying whether the host
	// committed it (the call was cut): the next build reads the height
	// back first, so that it never builds a second block at one height.
	stale bool

	subsMu sync.Mutex
	subs   map[string]*jsonrpc.Notifier
	nextID uint64
}

// New returns an uninitialized VM.
func New() *VM { return &VM{subs: map[string]*jsonrpc.Notifier{}} }

// Initialize reads back the accepted height from the host database.
func (vm *VM) Initialize(ctx context.Context, env *sdk.Env) error {
	vm.env = env
	if err := vm.readHeight(ctx); err != nil {
		return err
	}
	env.Logger.Info("example VM ready", "chain", env.ChainID, "height", vm.count)
	return nil
}

// readHeight reads the accepted height and the last block's ID back from
// the host database.
func (vm *VM) readHeight(ctx context.Context) error {
	n, err := vm.AcceptedCount(ctx, Kind)
	if err != nil {
		return err
	}
	vm.count, vm.parent = n, ids.ID{}
	if n > 0 {
		last, err := vm.GetAccepted(ctx, Kind, n-1)
		if err != nil {
			return err
		}
		vm.parent = last.ID
	}
	return nil
}

// Handlers serves JSON-RPC at rpc and the same methods plus subscriptions at ws.
func (vm *VM) Handlers() map[string]http.Handler {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	s.Register("kv.put", jsonrpc.Method(vm.put))
	s.Register("kv.get", jsonrpc.Method(vm.get))
	s.Register("kv.getBlock", jsonrpc.Method(vm.getBlock))
	s.Register("kv.subscribe", jsonrpc.Method(vm.subscribe))
	return map[string]http.Handler{"rpc": s, "ws": s.WebSocketHandler()}
}

// Shutdown has nothing to flush: every block is committed when accepted.
func (vm *VM) Shutdown(context.Context) error { return nil }

// IndexKinds makes the VM a container source for the host index.
func (vm *VM) IndexKinds() []string { return []string{Kind} }

// AcceptedCount is the number of accepted blocks.
func (vm *VM) AcceptedCount(ctx context.Context, _ string) (uint64, error) {
	b, err := vm.env.Host.DB.Get(ctx, keyCount)
	if errors.Is(err, host.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read block count: %w", err)
	}
	return binary.BigEndian.Uint64(b), nil
}

// GetAccepted returns the block at a height.
func (vm *VM) GetAccepted(ctx context.Context, _ string, height uint64) (host.Container, error) {
	b, err := vm.env.Host.DB.Get(ctx, blockKey(height))
	if err != nil {
		return host.Container{}, fmt.Errorf("block %d: %w", height, err)
	}
	return host.Container{ID: sha256.Sum256(b), Bytes: b}, nil
}

func blockKey(h uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), keyBlock...), h)
}

type putArgs struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type putReply struct {
	Height  jsonrpc.Uint64 `json:"height"`
	BlockID ids.ID         `json:"blockID"`
	Index   jsonrpc.Uint64 `json:"index"`
}

// put builds, accepts and indexes one block. The reply is sent only after
// the block, the state and the index entry are committed together.
func (vm *VM) put(ctx context.Context, a putArgs) (putReply, error) {
	if a.Key == "" {
		return putReply{}, jsonrpc.InvalidParams(`"key" must not be empty`)
	}
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.stale {
		if err := vm.readHeight(ctx); err != nil {
			return putReply{}, fmt.Errorf("read the accepted height back: %w", err)
		}
		vm.stale = false
	}
	blk := block{Height: jsonrpc.Uint64(vm.count), Parent: vm.parent, Time: time.Now().Unix(), Key: a.Key, Value: a.Value}
	raw, err := json.Marshal(blk)
	if err != nil {
		return putReply{}, err
	}
	id := ids.ID(sha256.Sum256(raw))
	state := []host.Op{
		{Key: blockKey(vm.count), Value: raw},
		{Key: append(append([]byte(nil), keyValue...), a.Key...), Value: []byte(a.Value)},
		{Key: keyCount, Value: binary.BigEndian.AppendUint64(nil, vm.count+1)},
	}
	acc, err := vm.env.Host.Index.Accept(ctx, Kind, id, raw, state)
	if err != nil {
		vm.stale = true
		return putReply{}, fmt.Errorf("accept block %d: %w", vm.count, err)
	}
	vm.count++
	vm.parent = id
	vm.env.Logger.Debug("block accepted", "height", uint64(blk.Height), "key", a.Key)
	vm.notify(blk, id)
	return putReply{Height: blk.Height, BlockID: id, Index: jsonrpc.Uint64(acc.Index)}, nil
}

func (vm *VM) get(ctx context.Context, a struct {
	Key string `json:"key"`
}) (map[string]string, error) {
	v, err := vm.env.Host.DB.Get(ctx, append(append([]byte(nil), keyValue...), a.Key...))
	if errors.Is(err, host.ErrNotFound) {
		return nil, fmt.Errorf("key %q not found", a.Key)
	}
	return map[string]string{"value": string(v)}, err
}

func (vm *VM) getBlock(ctx context.Context, a struct {
	Height jsonrpc.Uint64 `json:"height"`
}) (json.RawMessage, error) {
	c, err := vm.GetAccepted(ctx, Kind, uint64(a.Height))
	if errors.Is(err, host.ErrNotFound) {
		return nil, fmt.Errorf("no block at height %d", a.Height)
	}
	return c.Bytes, err
}

// subscribe streams every new block to the WebSocket connection as a
// kv.block notification.
func (vm *VM) subscribe(ctx context.Context, _ struct{}) (string, error) {
	n, ok := jsonrpc.NotifierFromContext(ctx)
	if !ok {
		return "", errors.New("subscriptions need a WebSocket connection (the ws handler)")
	}
	vm.subsMu.Lock()
	vm.nextID++
	id := fmt.Sprintf("0x%x", vm.nextID)
	vm.subs[id] = n
	vm.subsMu.Unlock()
	go func() {
		<-n.Closed()
		vm.subsMu.Lock()
		delete(vm.subs, id)
		vm.subsMu.Unlock()
	}()
	return id, nil
}

func (vm *VM) notify(b block, id ids.ID) {
	vm.subsMu.Lock()
	defer vm.subsMu.Unlock()
	for sub, n := range vm.subs {
		_ = n.Notify("kv.block", map[string]any{"subscription": sub, "result": map[string]any{"id": id, "block": b}})
	}
}
