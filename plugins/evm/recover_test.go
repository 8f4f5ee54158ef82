package evm_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/internal/syncbuf"
	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/sdk"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// fakeHost is the host's database namespace and index of one chain, kept
// across VM restarts (unlike plugintest's, which lives as long as one
// harness). Without an index, Accept writes only the state and Feed fails
// as the host's does.
type fakeHost struct {
	mu      sync.Mutex
	kv      map[string][]byte
	cts     []host.Container
	noIndex bool
	refuse  bool // Accept fails, as when the host is unreachable
}

func newFakeHost() *fakeHost { return &fakeHost{kv: map[string][]byte{}} }

// clone copies the database and the first n containers (all when n < 0),
// setting the reported height to the copy's length.
func (f *fakeHost) clone(n int) *fakeHost {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := newFakeHost()
	for k, v := range f.kv {
		c.kv[k] = slices.Clone(v)
	}
	if n < 0 || n > len(f.cts) {
		n = len(f.cts)
	}
	c.cts = slices.Clone(f.cts[:n])
	c.kv["reported"] = binary.BigEndian.AppendUint64(nil, uint64(n))
	return c
}

func (f *fakeHost) containers() []host.Container {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.cts)
}

func (f *fakeHost) reported() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.kv["reported"]
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func (f *fakeHost) services() host.Services { return host.Services{DB: fakeDB{f}, Index: fakeIndex{f}} }

type fakeDB struct{ f *fakeHost }

func (d fakeDB) Get(_ context.Context, key []byte) ([]byte, error) {
	d.f.mu.Lock()
	defer d.f.mu.Unlock()
	v, ok := d.f.kv[string(key)]
	if !ok {
		return nil, host.ErrNotFound
	}
	return slices.Clone(v), nil
}

func (d fakeDB) Has(ctx context.Context, key []byte) (bool, error) {
	_, err := d.Get(ctx, key)
	return err == nil, nil
}

func (d fakeDB) Put(ctx context.Context, key, value []byte) error {
	return d.Write(ctx, []host.Op{{Key: key, Value: value}}, false)
}

func (d fakeDB) Delete(ctx context.Context, key []byte) error {
	return d.Write(ctx, []host.Op{{Key: key, Delete: true}}, false)
}

func (d fakeDB) Write(_ context.Context, ops []host.Op, _ bool) error {
	d.f.mu.Lock()
	defer d.f.mu.Unlock()
	d.f.apply(ops)
	return nil
}

func (f *fakeHost) apply(ops []host.Op) {
	for _, op := range ops {
		if op.Delete {
			delete(f.kv, string(op.Key))
		} else {
			f.kv[string(op.Key)] = slices.Clone(op.Value)
		}
	}
}

func (d fakeDB) Iterate(context.Context, []byte, []byte, func(key, value []byte) error) error {
	return errors.New("fakeDB: Iterate is not used by the EVM")
}

type fakeIndex struct{ f *fakeHost }

func (x fakeIndex) Accept(_ context.Context, kind string, id ids.ID, bytes []byte, state []host.Op) (host.Accepted, error) {
	x.f.mu.Lock()
	defer x.f.mu.Unlock()
	if x.f.refuse {
		return host.Accepted{}, errors.New("fakeIndex: the host is unreachable")
	}
	if x.f.noIndex {
		x.f.apply(state)
		return host.Accepted{Timestamp: time.Now()}, nil
	}
	if kind != evm.Kind {
		return host.Accepted{}, fmt.Errorf("kind %q", kind)
	}
	for _, c := range x.f.cts {
		if c.ID == id {
			return host.Accepted{}, fmt.Errorf("container %s: %w", id, host.ErrAlreadyIndexed)
		}
	}
	c := host.Container{ID: id, Bytes: slices.Clone(bytes), Index: uint64(len(x.f.cts)), Timestamp: time.Now()}
	x.f.cts = append(x.f.cts, c)
	x.f.apply(state)
	return host.Accepted{Index: c.Index, Timestamp: c.Timestamp}, nil
}

func (x fakeIndex) Feed(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(host.Container) error) error {
	if x.f.noIndex {
		return fmt.Errorf("host index feed: %w", host.ErrNoIndex)
	}
	if chain != "" || kind != evm.Kind || follow {
		return fmt.Errorf("fakeIndex: feed of %q %q follow %v", chain, kind, follow)
	}
	for _, c := range x.f.containers() {
		if c.Index < start {
			continue
		}
		if err := fn(c); errors.Is(err, host.ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// directVM is a VM initialized directly (not behind gRPC) on a fake host.
type directVM struct {
	vm      *evm.VM
	client  *ethclient.Client
	indexer *rpc.Client // the indexer handler
	urls    map[string]string
	logs    *syncbuf.Buffer
	stop    func()
}

// recoverTo receives the transfers of the chains built by buildChain.
var recoverTo = common.HexToAddress("0x0200000000000000000000000000000000000002")

// pruneConfig is a pruning chain with automatic production.
const pruneConfig = `{"pruning-enabled": true, "cache-mb": 16, "log-level": "warn"}`

// initVM initializes the VM on dir and fh with pruneConfig; the test's
// cleanup stops it.
func initVM(t *testing.T, dir string, fh *fakeHost) (*directVM, error) {
	t.Helper()
	return initVMConfig(t, dir, fh, pruneConfig)
}

// initVMConfig is initVM with a chain config.
func initVMConfig(t *testing.T, dir string, fh *fakeHost, config string) (*directVM, error) {
	t.Helper()
	return initVMServices(t, dir, fh.services(), config)
}

// initVMServices is initVMConfig on host services of the test's own.
func initVMServices(t *testing.T, dir string, hs host.Services, config string) (*directVM, error) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Name: "C", Level: hclog.Info, Output: logs})
	vm := evm.New()
	env := &sdk.Env{Name: "C", NetworkID: 12345, Genesis: []byte(testGenesis(43112)), Config: []byte(config), DataDir: dir,
		Logger: logger, Host: hs}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := vm.Initialize(ctx, env); err != nil {
		return nil, err
	}
	handlers := vm.Handlers()
	srv := httptest.NewServer(handlers["rpc"])
	c, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ixSrv := httptest.NewServer(vm.InternalHandlers()[evmapi.IndexerHandler])
	ix, err := rpc.Dial(ixSrv.URL)
	if err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{"rpc": srv.URL}
	var others []*httptest.Server
	for _, name := range []string{"avax", "admin"} {
		s := httptest.NewServer(handlers[name])
		others = append(others, s)
		urls[name] = s.URL
	}
	var once sync.Once
	d := &directVM{vm: vm, client: c, indexer: ix, urls: urls, logs: logs}
	d.stop = func() {
		once.Do(func() {
			for _, s := range others {
				s.Close()
			}
			ix.Close()
			ixSrv.Close()
			c.Close()
			srv.Close()
			if err := vm.Shutdown(context.Background()); err != nil {
				t.Errorf("shutdown: %v", err)
			}
		})
	}
	t.Cleanup(d.stop)
	return d, nil
}

// mustInitVM is initVM that must succeed.
func mustInitVM(t *testing.T, dir string, fh *fakeHost) *directVM {
	t.Helper()
	d, err := initVM(t, dir, fh)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return d
}

// builtChain is a chain built by a VM and stopped cleanly.
type builtChain struct {
	dir    string
	fh     *fakeHost
	hashes []common.Hash // block i+1
	txs    []common.Hash // transaction of block i+1
}

// buildChain runs a pruning VM on a new directory and makes blocks blocks,
// one transfer each, to to; then stops it.
func buildChain(t *testing.T, blocks int, to common.Address) builtChain {
	t.Helper()
	b := builtChain{dir: t.TempDir(), fh: newFakeHost()}
	d := mustInitVM(t, b.dir, b.fh)
	ctx := context.Background()
	key := localKey(t)
	for n := range uint64(blocks) {
		tx := transfer(t, ctx, d.client, key, n, to, big.NewInt(1))
		r := waitReceipt(t, ctx, d.client, tx.Hash())
		if r.BlockNumber.Uint64() != n+1 {
			t.Fatalf("transfer %d in block %d", n, r.BlockNumber)
		}
		b.hashes = append(b.hashes, r.BlockHash)
		b.txs = append(b.txs, tx.Hash())
	}
	waitIndexed(t, b.fh, blocks)
	d.stop()
	return b
}

// waitIndexed polls until fh's index holds n containers.
func waitIndexed(t *testing.T, fh *fakeHost, n int) {
	t.Helper()
	plugintest.Eventually(t, 20*time.Second, func() error {
		if got := len(fh.containers()); got < n {
			return fmt.Errorf("index holds %d blocks, want %d", got, n)
		}
		return nil
	})
}

// crash removes the state journal a clean stop wrote, so that go-ethereum
// finds only the state flushed to disk (the genesis state, on a short
// chain): as after a SIGKILL, it rewinds its head and keeps the blocks.
func crash(t *testing.T, dir string) {
	t.Helper()
	journals, _ := filepath.Glob(filepath.Join(dir, "geth", "*", "triedb", "merkle.journal"))
	if len(journals) != 1 {
		t.Fatalf("state journals in %s: %v, want one", dir, journals)
	}
	if err := os.Remove(journals[0]); err != nil {
		t.Fatal(err)
	}
}

// freeze runs the chain on dir until go-ethereum has moved its finalized
// blocks to the ancient store (it does so when it opens a chain), then
// stops it cleanly. A later repair below them wipes every block above.
func freeze(t *testing.T, dir string, fh *fakeHost) {
	t.Helper()
	d := mustInitVM(t, dir, fh)
	plugintest.Eventually(t, 20*time.Second, func() error {
		var frozen uint64
		if err := d.client.Client().Call(&frozen, "debug_dbAncients"); err != nil {
			t.Fatalf("debug_dbAncients: %v", err)
		}
		if frozen <= 32 {
			return fmt.Errorf("go-ethereum froze %d blocks, want 33 (up to the finalized block 32)", frozen)
		}
		return nil
	})
	d.stop()
}

// checkChain checks that d's chain holds b's blocks and receipts, that the
// index holds exactly them, and that a new transfer is built on top and
// indexed after them.
func checkChain(t *testing.T, d *directVM, fh *fakeHost, b builtChain) {
	t.Helper()
	ctx := context.Background()
	head, err := d.client.BlockNumber(ctx)
	if err != nil || head != uint64(len(b.hashes)) {
		t.Fatalf("head %d (%v), want %d", head, err, len(b.hashes))
	}
	for i, want := range b.hashes {
		h, err := d.client.HeaderByNumber(ctx, big.NewInt(int64(i+1)))
		if err != nil || h.Hash() != want {
			t.Fatalf("block %d: %v (%v), want %s", i+1, h, err, want)
		}
		r, err := d.client.TransactionReceipt(ctx, b.txs[i])
		if err != nil || r.BlockHash != want {
			t.Fatalf("receipt of %s: %v (%v), want in block %s", b.txs[i], r, err, want)
		}
	}
	// The state is the head's: the balance of the recipient.
	to := recoverTo
	bal, err := d.client.BalanceAt(ctx, to, nil)
	if err != nil || bal.Int64() != int64(len(b.hashes)) {
		t.Fatalf("balance %v (%v), want %d", bal, err, len(b.hashes))
	}
	// Production works on the recovered head, and the index follows.
	tx := transfer(t, ctx, d.client, localKey(t), uint64(len(b.hashes)), to, big.NewInt(1))
	r := waitReceipt(t, ctx, d.client, tx.Hash())
	next := uint64(len(b.hashes) + 1)
	if r.BlockNumber.Uint64() != next {
		t.Fatalf("new transfer in block %d, want %d", r.BlockNumber, next)
	}
	waitIndexed(t, fh, int(next))
	cts := fh.containers()
	if len(cts) != int(next) {
		t.Fatalf("index holds %d blocks, want %d", len(cts), next)
	}
	for i, c := range cts {
		var blk types.Block
		if err := rlp.DecodeBytes(c.Bytes, &blk); err != nil || blk.Hash() != common.Hash(c.ID) || blk.NumberU64() != uint64(i+1) {
			t.Fatalf("index %d: block %d %s under %s (%v)", i, blk.NumberU64(), blk.Hash(), c.ID, err)
		}
		if i < len(b.hashes) && blk.Hash() != b.hashes[i] {
			t.Fatalf("index %d: %s, want %s", i, blk.Hash(), b.hashes[i])
		}
		if i == len(b.hashes) && blk.ParentHash() != b.hashes[i-1] {
			t.Fatalf("new block's parent %s, want %s", blk.ParentHash(), b.hashes[i-1])
		}
	}
	if n, err := d.vm.AcceptedCount(ctx, evm.Kind); err != nil || n != next {
		t.Fatalf("AcceptedCount = %d, %v; want %d", n, err, next)
	}
	// The call frames of every block were recorded, when it was first
	// inserted or when it was re-imported, and are the call tracer's.
	for i, hash := range b.hashes {
		if ok, err := d.vm.HasFrames(hash); err != nil || !ok {
			t.Fatalf("block %d: frames recorded %v (%v), want true", i+1, ok, err)
		}
	}
	checkFrames(t, d.indexer, getBlocks(t, d.indexer, 1, next))
}

// TestRecoverAccepted: a pruning chain whose go-ethereum head is below the
// blocks the index holds re-imports them from the index (and the blocks
// above them from its own database) before it builds; an index that
// disagrees with go-ethereum's history or with itself fails Initialize;
// a chain ahead of its index reports the missing blocks.
func TestRecoverAccepted(t *testing.T) {
	base := buildChain(t, 5, recoverTo)
	// long reaches go-ethereum's first finalized block (32), which a start
	// then moves to the ancient store.
	long := buildChain(t, 34, recoverTo)
	// other is another history of the same genesis: two blocks paying
	// someone else.
	other := buildChain(t, 2, common.HexToAddress("0x0300000000000000000000000000000000000003"))

	copyDir := func(t *testing.T, src string) string {
		t.Helper()
		dst := t.TempDir()
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	tests := []struct {
		name string
		// dir returns the chain directory to start on.
		dir func(t *testing.T) string
		// host returns the host namespace and index to start on.
		host func() *fakeHost
		// wantErr is part of the error Initialize must fail with; empty
		// for success.
		wantErr string
		// wantLogs are parts of the log of a successful start.
		wantLogs []string
		// chain is the chain dir and host come from; base when nil.
		chain *builtChain
	}{{
		name:     "empty directory, whole index re-imported",
		dir:      func(t *testing.T) string { return t.TempDir() },
		host:     func() *fakeHost { return base.fh.clone(-1) },
		wantLogs: []string{"re-imported accepted blocks: source=index blocks=5 from=1 head=5"},
	}, {
		name: "crashed: head rewound, index then own database",
		dir: func(t *testing.T) string {
			d := copyDir(t, base.dir)
			crash(t, d)
			return d
		},
		// The index lags: blocks 4 and 5 were built but not yet indexed.
		host: func() *fakeHost { return base.fh.clone(3) },
		wantLogs: []string{
			"Head state missing",
			"re-imported accepted blocks: source=index blocks=3 from=1 head=3",
			`re-imported accepted blocks: source="go-ethereum's database" blocks=2 from=4 head=5`,
		},
	}, {
		name:  "crashed after freezing: the repair wipes the unreported blocks, rescued first",
		chain: &long,
		dir: func(t *testing.T) string {
			d := copyDir(t, long.dir)
			freeze(t, d, long.fh.clone(-1))
			crash(t, d)
			return d
		},
		host: func() *fakeHost { return long.fh.clone(32) },
		wantLogs: []string{
			"Truncating freezer table",
			"re-imported accepted blocks: source=index blocks=32 from=1 head=32",
			`re-imported accepted blocks: source="go-ethereum's database" blocks=2 from=33 head=34`,
		},
	}, {
		name:     "chain ahead of the index: reported at start",
		dir:      func(t *testing.T) string { return copyDir(t, base.dir) },
		host:     func() *fakeHost { return base.fh.clone(2) },
		wantLogs: []string{"EVM chain ready: chainId=43112 head=5"},
	}, {
		name: "container ID differs from its block",
		dir:  func(t *testing.T) string { return t.TempDir() },
		host: func() *fakeHost {
			fh := base.fh.clone(-1)
			fh.cts[2].ID = fh.cts[3].ID
			return fh
		},
		wantErr: "the index's block 3: container ID",
	}, {
		name:    "directory holds another history",
		dir:     func(t *testing.T) string { return copyDir(t, other.dir) },
		host:    func() *fakeHost { return base.fh.clone(-1) },
		wantErr: "refusing to fork",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fh := tt.host()
			before := fh.containers()
			d, err := initVM(t, tt.dir(t), fh)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Initialize error %v, want one containing %q", err, tt.wantErr)
				}
				if got := fh.containers(); len(got) != len(before) {
					t.Fatalf("the failed start changed the index: %d blocks, had %d", len(got), len(before))
				}
				return
			}
			if err != nil {
				t.Fatalf("Initialize: %v", err)
			}
			chain := tt.chain
			if chain == nil {
				chain = &base
			}
			checkChain(t, d, fh, *chain)
			for _, want := range tt.wantLogs {
				if !strings.Contains(d.logs.String(), want) {
					t.Fatalf("log lacks %q:\n%s", want, d.logs.String())
				}
			}
		})
	}
}

// TestRecoverWithoutIndex: on a node without an index, a chain whose head
// is below the reported height has nothing to re-import from: it starts on
// its head, lowers the reported height to it, and reports from there.
func TestRecoverWithoutIndex(t *testing.T) {
	fh := newFakeHost()
	fh.noIndex = true
	fh.kv["reported"] = binary.BigEndian.AppendUint64(nil, 5)
	d := mustInitVM(t, t.TempDir(), fh)
	ctx := context.Background()
	if head, err := d.client.BlockNumber(ctx); err != nil || head != 0 {
		t.Fatalf("head %d (%v), want 0", head, err)
	}
	if got := fh.reported(); got != 0 {
		t.Fatalf("reported height %d, want 0 (lowered to the head)", got)
	}
	for _, want := range []string{"the node keeps no index", "blocks reported as accepted are lost"} {
		if !strings.Contains(d.logs.String(), want) {
			t.Fatalf("log lacks %q:\n%s", want, d.logs.String())
		}
	}
	tx := transfer(t, ctx, d.client, localKey(t), 0, recoverTo, big.NewInt(1))
	if r := waitReceipt(t, ctx, d.client, tx.Hash()); r.BlockNumber.Uint64() != 1 {
		t.Fatalf("transfer in block %d, want 1", r.BlockNumber)
	}
	plugintest.Eventually(t, 10*time.Second, func() error {
		if h := fh.reported(); h != 1 {
			return fmt.Errorf("reported height %d, want 1", h)
		}
		return nil
	})
	if n, err := d.vm.AcceptedCount(ctx, evm.Kind); err != nil || n != 1 {
		t.Fatalf("AcceptedCount = %d, %v; want 1", n, err)
	}
}
