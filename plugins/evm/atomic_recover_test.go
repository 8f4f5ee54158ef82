package evm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/plugins/evm/atomic/client"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
)

// sharedHost is a fakeHost with the chain registry of the X-Chain and the
// shared memory between the two, which AcceptBatch changes with the
// index, as the host does.
type sharedHost struct {
	*fakeHost
	self ids.ID // the C-Chain (sdk.Env leaves it zero: the fake host's chain)

	mu sync.Mutex
	// values are what each chain put for the other: from → to → key → value
	values map[ids.ID]map[ids.ID]map[string]host.SharedElement
}

func newSharedHost() *sharedHost {
	return &sharedHost{fakeHost: newFakeHost(), values: map[ids.ID]map[ids.ID]map[string]host.SharedElement{}}
}

func (s *sharedHost) services() host.Services {
	return host.Services{DB: fakeDB{s.fakeHost}, Index: sharedIndex{fakeIndex{s.fakeHost}, s}, Chains: sharedChains{s}, SharedMemory: sharedMem{s}}
}

// put puts values from chain from for chain to.
func (s *sharedHost) put(from, to ids.ID, elems ...host.SharedElement) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values[from] == nil {
		s.values[from] = map[ids.ID]map[string]host.SharedElement{}
	}
	if s.values[from][to] == nil {
		s.values[from][to] = map[string]host.SharedElement{}
	}
	for _, e := range elems {
		s.values[from][to][string(e.Key)] = e
	}
}

// held returns what from put for to, still there.
func (s *sharedHost) held(from, to ids.ID) []host.SharedElement {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []host.SharedElement
	for _, e := range s.values[from][to] {
		out = append(out, e)
	}
	return out
}

type sharedIndex struct {
	fakeIndex
	s *sharedHost
}

// AcceptBatch checks the removes, then appends and applies everything, or
// nothing.
func (x sharedIndex) AcceptBatch(ctx context.Context, b host.AcceptBatch) ([]host.Accepted, error) {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	for _, r := range b.SharedMemory {
		for _, k := range r.Removes {
			if _, ok := x.s.values[r.Peer][x.s.self][string(k)]; !ok {
				return nil, fmt.Errorf("remove %x: %w", k, host.ErrSharedMemoryConflict)
			}
		}
	}
	if len(b.Containers) != 1 {
		return nil, fmt.Errorf("sharedIndex: %d containers", len(b.Containers))
	}
	c := b.Containers[0]
	acc, err := x.Accept(ctx, c.Kind, c.ID, c.Bytes, b.State)
	if err != nil {
		return nil, err
	}
	for _, r := range b.SharedMemory {
		for _, k := range r.Removes {
			delete(x.s.values[r.Peer][x.s.self], string(k))
		}
		if len(r.Puts) > 0 {
			if x.s.values[x.s.self] == nil {
				x.s.values[x.s.self] = map[ids.ID]map[string]host.SharedElement{}
			}
			if x.s.values[x.s.self][r.Peer] == nil {
				x.s.values[x.s.self][r.Peer] = map[string]host.SharedElement{}
			}
			for _, e := range r.Puts {
				x.s.values[x.s.self][r.Peer][string(e.Key)] = e
			}
		}
	}
	return []host.Accepted{acc}, nil
}

type sharedMem struct{ s *sharedHost }

func (m sharedMem) Get(_ context.Context, peer ids.ID, keys [][]byte) ([][]byte, error) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	out := make([][]byte, len(keys))
	for i, k := range keys {
		e, ok := m.s.values[peer][m.s.self][string(k)]
		if !ok {
			return nil, fmt.Errorf("key %x: %w", k, host.ErrNotFound)
		}
		out[i] = e.Value
	}
	return out, nil
}

// Indexed answers one page holding every match (the tests hold few).
func (m sharedMem) Indexed(_ context.Context, peer ids.ID, traits [][]byte, _, _ []byte, _ int) ([][]byte, []byte, []byte, error) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	var out [][]byte
	for _, e := range m.s.values[peer][m.s.self] {
		if slices.ContainsFunc(e.Traits, func(tr []byte) bool {
			return slices.ContainsFunc(traits, func(want []byte) bool { return bytes.Equal(tr, want) })
		}) {
			out = append(out, e.Value)
		}
	}
	return out, nil, nil, nil
}

type sharedChains struct{ s *sharedHost }

func (c sharedChains) List(context.Context) ([]host.ChainInfo, error) {
	return []host.ChainInfo{{ID: testXChain, Aliases: []string{"X"}}}, nil
}

func (c sharedChains) Resolve(_ context.Context, alias string) (host.ChainInfo, error) {
	if alias == "X" || alias == testXChain.String() {
		return host.ChainInfo{ID: testXChain, Aliases: []string{"X"}}, nil
	}
	return host.ChainInfo{}, fmt.Errorf("chain %q: %w", alias, host.ErrNotFound)
}

func (c sharedChains) Watch(context.Context, func(host.ChainEvent) error) error {
	return errors.New("sharedChains: Watch is not used by the EVM")
}

// atomicPruneConfig is a pruning chain that takes atomic transactions of
// the test's AVAX asset.
var atomicPruneConfig = fmt.Sprintf(`{"pruning-enabled": true, "cache-mb": 16, "log-level": "warn", "avax-asset-id": %q}`, testAVAX)

// TestAtomicRecover: after a crash that loses go-ethereum's state, the
// blocks with atomic effects are re-executed with them from their records
// (the state roots match, or the re-import would fail), those the index
// lacked are reported with their shared-memory operations, and the chain
// goes on.
func TestAtomicRecover(t *testing.T) {
	sh := newSharedHost()
	dir := t.TempDir()
	d, err := initVMServices(t, dir, sh.services(), atomicPruneConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	key, _ := avax.ParsePrivateKey(localKeyHex)
	wallet := func(d *directVM) *client.Wallet {
		cl := client.NewEndpoints(d.urls["avax"], d.urls["rpc"], d.urls["admin"], "C", nil)
		return &client.Wallet{Client: cl, Key: key, Ctx: client.Context{NetworkID: 12345, AVAXAssetID: testAVAX}}
	}
	w := wallet(d)
	u := avax.UTXO{UTXOID: avax.UTXOID{TxID: ids.ID{0xee}, OutputIndex: 0}, AssetID: testAVAX,
		Out: avax.TransferOutput{Amt: 7_000_000_000, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{key.Address()}}}}
	uid, owner := u.InputID(), key.Address()
	sh.put(testXChain, sh.self, host.SharedElement{Key: uid[:], Value: u.Bytes(), Traits: [][]byte{owner[:]}})
	imp, err := w.Import(ctx, "X", testXChain, recoverTo)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	// The host stops answering: the next blocks are built and recorded, not
	// reported (a crash before their report).
	sh.fakeHost.mu.Lock()
	sh.refuse = true
	sh.fakeHost.mu.Unlock()
	exp, err := w.BuildExport(ctx, testXChain, 1_000_000_000, key.Address())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Client.IssueTx(ctx, exp.Bytes()); err != nil {
		t.Fatal(err)
	}
	for {
		if n, err := d.client.NonceAt(ctx, localAddr, nil); err == nil && n == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	head, err := d.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	balTo := balanceOf(t, d, recoverTo)
	balMe := balanceOf(t, d, localAddr)
	if s, err := w.Client.GetAtomicTxStatus(ctx, exp.ID()); err != nil || s.Status != "Processing" {
		t.Fatalf("export before its report: %+v (%v), want Processing", s, err)
	}
	d.stop()
	crash(t, dir)

	sh.fakeHost.mu.Lock()
	sh.refuse = false
	sh.fakeHost.mu.Unlock()
	d, err = initVMServices(t, dir, sh.services(), atomicPruneConfig)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	for _, want := range []string{"re-imported accepted blocks: source=index blocks=1", `re-imported accepted blocks: source="go-ethereum's database" blocks=1`} {
		if !strings.Contains(d.logs.String(), want) {
			t.Fatalf("log lacks %q:\n%s", want, d.logs.String())
		}
	}
	if again, err := d.client.HeaderByNumber(ctx, nil); err != nil || again.Hash() != head.Hash() {
		t.Fatalf("head after the recovery %v (%v), want %d %s", again, err, head.Number, head.Hash())
	}
	if got := balanceOf(t, d, recoverTo); got.Cmp(balTo) != 0 {
		t.Fatalf("imported balance after the recovery %s, want %s", got, balTo)
	}
	if got := balanceOf(t, d, localAddr); got.Cmp(balMe) != 0 {
		t.Fatalf("exporter's balance after the recovery %s, want %s", got, balMe)
	}
	w = wallet(d)
	for _, id := range []ids.ID{imp, exp.ID()} {
		if s, err := w.Client.GetAtomicTxStatus(ctx, id); err != nil || s.Status != "Accepted" {
			t.Fatalf("status of %s after the recovery %+v (%v)", id, s, err)
		}
	}
	if left := sh.held(testXChain, sh.self); len(left) != 0 {
		t.Fatalf("the imported UTXO is still in shared memory")
	}
	out := exp.ExportedUTXOs()[0]
	if held := sh.held(sh.self, testXChain); len(held) != 1 || !bytes.Equal(held[0].Value, out.Bytes()) {
		t.Fatalf("shared memory for X after the recovery: %d values, want the export's UTXO", len(held))
	}
	if n, err := d.vm.AcceptedCount(ctx, evm.Kind); err != nil || n != head.Number.Uint64() {
		t.Fatalf("AcceptedCount %d (%v), want %d", n, err, head.Number)
	}
	// The chain goes on.
	tx := transfer(t, ctx, d.client, localKey(t), 1, recoverTo, big.NewInt(1))
	if r := waitReceipt(t, ctx, d.client, tx.Hash()); r.BlockNumber.Uint64() != head.Number.Uint64()+1 {
		t.Fatalf("transfer in block %d, want %d", r.BlockNumber, head.Number.Uint64()+1)
	}
}

func balanceOf(t *testing.T, d *directVM, addr common.Address) *big.Int {
	t.Helper()
	b, err := d.client.BalanceAt(t.Context(), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
