// Command protocol1vm is a VM built against chainhost v0.1.0's SDK, which
// speaks plugin protocol 1, kept to show that the node still loads and runs
// a plugin of the previous protocol version (docs/plugin-sdk.md,
// "Compatibility"). Its source must keep building against v0.1.0.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// kind is the one kind of container the VM indexes.
const kind = "block"

// keyCount holds the number of notes; each note is its own block, kept
// under note/<position>.
var keyCount = []byte("count")

func noteKey(i uint64) []byte { return binary.BigEndian.AppendUint64([]byte("note/"), i) }

// vm keeps notes, one block each.
type vm struct {
	env *sdk.Env
	mu  sync.Mutex
}

func (v *vm) Initialize(_ context.Context, env *sdk.Env) error {
	v.env = env
	return nil
}

func (v *vm) Handlers() map[string]http.Handler {
	s := jsonrpc.NewServer(jsonrpc.Options{})
	s.Register("notes.add", jsonrpc.Method(v.add))
	s.Register("notes.count", jsonrpc.Method(func(ctx context.Context, _ struct{}) (jsonrpc.Uint64, error) {
		n, err := v.AcceptedCount(ctx, kind)
		return jsonrpc.Uint64(n), err
	}))
	return map[string]http.Handler{"rpc": s}
}

func (v *vm) Shutdown(context.Context) error { return nil }

func (v *vm) IndexKinds() []string { return []string{kind} }

func (v *vm) AcceptedCount(ctx context.Context, _ string) (uint64, error) {
	b, err := v.env.Host.DB.Get(ctx, keyCount)
	if errors.Is(err, host.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}

func (v *vm) GetAccepted(ctx context.Context, _ string, i uint64) (host.Container, error) {
	b, err := v.env.Host.DB.Get(ctx, noteKey(i))
	if err != nil {
		return host.Container{}, fmt.Errorf("note %d: %w", i, err)
	}
	return host.Container{ID: sha256.Sum256(b), Bytes: b}, nil
}

// add accepts one note as a block; a cut accept is left to the next call,
// which reads the count back.
func (v *vm) add(ctx context.Context, a struct {
	Text string `json:"text"`
}) (jsonrpc.Uint64, error) {
	if a.Text == "" {
		return 0, jsonrpc.InvalidParams(`"text" must not be empty`)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	n, err := v.AcceptedCount(ctx, kind)
	if err != nil {
		return 0, err
	}
	raw := []byte(a.Text)
	state := []host.Op{{Key: noteKey(n), Value: raw}, {Key: keyCount, Value: binary.BigEndian.AppendUint64(nil, n+1)}}
	if _, err := v.env.Host.Index.Accept(ctx, kind, ids.ID(sha256.Sum256(raw)), raw, state); err != nil {
		return 0, err
	}
	return jsonrpc.Uint64(n), nil
}

func main() {
	sdk.Main(sdk.ServeOpts{Description: sdk.Description{Name: "protocol1vm", Version: "1.0.0"}, Plugin: &vm{}})
}
