// Package example is a tiny key-value chain VM, the VM author's tutorial
// (docs/writing-a-vm.md): each kv.put makes a block that is accepted and
// reported to the host's index in the same atomic write as the VM's own
// state. sdk/linear keeps the chain's bookkeeping; the VM writes the state
// transition.
package example

import (
	"context"
	"crypto/sha256"
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
	"github.com/chainhost/chainhost/sdk/linear"
)

// Kind is the one index kind the VM reports.
const Kind = "block"

// keyValue starts the VM's state keys, k/<key> -> value, in its host
// database namespace; sdk/linear keeps its own under linear/.
var keyValue = []byte("k/")

// block is one accepted put.
type block struct {
	Height jsonrpc.Uint64 `json:"height"`
	Parent ids.ID         `json:"parent"`
	Time   int64          `json:"time"`
	Key    string         `json:"key"`
	Value  string         `json:"value"`
}

// state is the block's state transition: its writes to the VM's database.
func (b block) state() []host.Op {
	return []host.Op{{Key: append(append([]byte(nil), keyValue...), b.Key...), Value: []byte(b.Value)}}
}

// VM is the key-value chain. The embedded chain, set at Initialize, is its
// sdk.ContainerSource.
type VM struct {
	*linear.Chain
	env *sdk.Env

	subsMu sync.Mutex
	subs   map[string]*jsonrpc.Notifier
	nextID uint64
}

var _ sdk.ContainerSource = (*VM)(nil)

// New returns an uninitialized VM.
func New() *VM { return &VM{subs: map[string]*jsonrpc.Notifier{}} }

// Initialize opens the chain: its height and last block as the host's
// database and index hold them.
func (vm *VM) Initialize(ctx context.Context, env *sdk.Env) error {
	vm.env = env
	c, err := linear.Open(ctx, env.Host, linear.Options{Kind: Kind, Replay: replay})
	if err != nil {
		return fmt.Errorf("open the chain: %w", err)
	}
	vm.Chain = c
	env.Logger.Info("example VM ready", "chain", env.ChainID, "height", c.Tip().Height)
	return nil
}

// replay is the state transition of a block the host's index holds and
// the VM's database lacks.
func replay(_ context.Context, _ uint64, raw []byte) ([]host.Op, error) {
	var b block
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("decode block: %w", err)
	}
	return b.state(), nil
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
	var blk block
	acc, err := vm.Next(ctx, func(tip linear.Tip) (linear.Block, error) {
		blk = block{Height: jsonrpc.Uint64(tip.Height), Parent: tip.Parent, Time: time.Now().Unix(), Key: a.Key, Value: a.Value}
		raw, err := json.Marshal(blk)
		return linear.Block{ID: sha256.Sum256(raw), Bytes: raw, State: blk.state()}, err
	})
	if err != nil {
		return putReply{}, err
	}
	vm.env.Logger.Debug("block accepted", "height", acc.Height, "key", a.Key)
	vm.notify(blk, acc.ID)
	return putReply{Height: jsonrpc.Uint64(acc.Height), BlockID: acc.ID, Index: jsonrpc.Uint64(acc.Index)}, nil
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
