package host_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/internal/memhost"
)

// serve runs svc behind a real in-process gRPC connection and returns the
// client side.
func serve(t *testing.T, svc host.Services) host.Services {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	host.RegisterServers(s, svc)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Serve(lis)
	}()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatalf("dial bufconn: %v", err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		s.Stop()
		<-done
	})
	return host.NewClients(conn)
}

var (
	selfID  = ids.ID{1}
	otherID = ids.ID{2}
	vmID    = ids.ID{'e', 'v', 'm'}
	t0      = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
)

func newMem(call func(context.Context, host.ChainInfo, string, []byte) (int, []byte, error)) *memhost.Host {
	return memhost.New(memhost.Options{
		Self:   host.ChainInfo{ID: selfID, VMID: vmID, VMName: "evm", Aliases: []string{"C", "evm"}, IndexKinds: []string{"block"}, Handlers: []string{"rpc", "ws"}, Running: true},
		Others: []host.ChainInfo{{ID: otherID, VMName: "avm", Aliases: []string{"X"}}},
		Now:    func() time.Time { return t0 },
		Call:   call,
	})
}

func TestDatabaseSingleOps(t *testing.T) {
	ctx := t.Context()
	db := serve(t, newMem(nil).Services()).DB
	if err := db.Put(ctx, []byte("a"), []byte("1")); err != nil {
		t.Fatalf("put: %v", err)
	}
	if err := db.Put(ctx, []byte("empty"), nil); err != nil {
		t.Fatalf("put empty value: %v", err)
	}
	if err := db.Delete(ctx, []byte("missing")); err != nil {
		t.Fatalf("delete missing key: %v", err)
	}
	tests := []struct {
		key     string
		want    string
		wantErr error
	}{
		{key: "a", want: "1"},
		{key: "empty", want: ""},
		{key: "b", wantErr: host.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, err := db.Get(ctx, []byte(tt.key))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Get(%q) error = %v, want %v", tt.key, err, tt.wantErr)
			}
			if string(got) != tt.want {
				t.Errorf("Get(%q) = %q, want %q", tt.key, got, tt.want)
			}
			has, err := db.Has(ctx, []byte(tt.key))
			if err != nil {
				t.Fatalf("Has(%q): %v", tt.key, err)
			}
			if has != (tt.wantErr == nil) {
				t.Errorf("Has(%q) = %v, want %v", tt.key, has, tt.wantErr == nil)
			}
		})
	}
	if err := db.Delete(ctx, []byte("a")); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := db.Get(ctx, []byte("a")); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("Get after Delete error = %v, want ErrNotFound", err)
	}
}

func TestDatabaseWriteBatch(t *testing.T) {
	ctx := t.Context()
	db := serve(t, newMem(nil).Services()).DB
	if err := db.Put(ctx, []byte("old"), []byte("x")); err != nil {
		t.Fatalf("put: %v", err)
	}
	ops := []host.Op{
		{Key: []byte("k1"), Value: []byte("v1")},
		{Key: []byte("k2"), Value: []byte("v2")},
		{Key: []byte("old"), Delete: true},
		{Key: []byte("k2"), Value: []byte("v2b")}, // later op wins
	}
	if err := db.Write(ctx, ops, true); err != nil {
		t.Fatalf("write: %v", err)
	}
	want := map[string]string{"k1": "v1", "k2": "v2b"}
	got := map[string]string{}
	if err := db.Iterate(ctx, nil, nil, func(k, v []byte) error {
		got[string(k)] = string(v)
		return nil
	}); err != nil {
		t.Fatalf("iterate: %v", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after batch: %v, want %v", got, want)
	}
	// A bad op fails the whole batch: nothing of it is applied.
	err := db.Write(ctx, []host.Op{{Key: []byte("k3"), Value: []byte("v3")}, {Key: nil, Value: []byte("bad")}}, false)
	if err == nil || !strings.Contains(err.Error(), "empty key") {
		t.Fatalf("write with empty key error = %v, want the host's message", err)
	}
	if ok, _ := db.Has(ctx, []byte("k3")); ok {
		t.Error("failed batch applied part of its ops")
	}
}

func TestDatabaseIterate(t *testing.T) {
	ctx := t.Context()
	db := serve(t, newMem(nil).Services()).DB
	// 600 small pairs cross the 256-pair batch; 3 large ones cross 1 MiB.
	var ops []host.Op
	for i := range 600 {
		ops = append(ops, host.Op{Key: fmt.Appendf(nil, "p/%04d", i), Value: fmt.Appendf(nil, "%d", i)})
	}
	big := bytes.Repeat([]byte{'z'}, 700<<10)
	for i := range 3 {
		ops = append(ops, host.Op{Key: fmt.Appendf(nil, "q/%d", i), Value: big})
	}
	ops = append(ops, host.Op{Key: []byte("o"), Value: []byte("outside")})
	if err := db.Write(ctx, ops, false); err != nil {
		t.Fatalf("write: %v", err)
	}
	errBoom := errors.New("boom")
	tests := []struct {
		name          string
		prefix, start string
		stopAt        int // fn returns stopErr on this call (1-based); 0 never
		stopErr       error
		wantCount     int
		wantFirst     string
		wantLast      string
		wantErr       error
	}{
		{name: "prefix", prefix: "p/", wantCount: 600, wantFirst: "p/0000", wantLast: "p/0599"},
		{name: "start", prefix: "p/", start: "p/0500", wantCount: 100, wantFirst: "p/0500", wantLast: "p/0599"},
		{name: "start below prefix", prefix: "p/", start: "a", wantCount: 600, wantFirst: "p/0000", wantLast: "p/0599"},
		{name: "large values", prefix: "q/", wantCount: 3, wantFirst: "q/0", wantLast: "q/2"},
		{name: "all", wantCount: 604, wantFirst: "o", wantLast: "q/2"},
		{name: "no match", prefix: "r/", wantCount: 0},
		{name: "stop", prefix: "p/", stopAt: 300, stopErr: host.ErrStop, wantCount: 300, wantFirst: "p/0000", wantLast: "p/0299"},
		{name: "error", prefix: "p/", stopAt: 10, stopErr: errBoom, wantCount: 10, wantFirst: "p/0000", wantLast: "p/0009", wantErr: errBoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys []string
			var prev []byte
			err := db.Iterate(ctx, []byte(tt.prefix), []byte(tt.start), func(k, v []byte) error {
				if prev != nil && bytes.Compare(prev, k) >= 0 {
					t.Errorf("key %q after %q: out of order", k, prev)
				}
				prev = append(prev[:0], k...)
				if k[0] == 'q' && !bytes.Equal(v, big) {
					t.Errorf("value of %q: %d bytes, want %d", k, len(v), len(big))
				}
				keys = append(keys, string(k))
				if len(keys) == tt.stopAt {
					return tt.stopErr
				}
				return nil
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Iterate error = %v, want %v", err, tt.wantErr)
			}
			if len(keys) != tt.wantCount {
				t.Fatalf("Iterate gave %d pairs, want %d", len(keys), tt.wantCount)
			}
			if tt.wantCount > 0 && (keys[0] != tt.wantFirst || keys[len(keys)-1] != tt.wantLast) {
				t.Errorf("Iterate keys %q..%q, want %q..%q", keys[0], keys[len(keys)-1], tt.wantFirst, tt.wantLast)
			}
		})
	}
}

func TestIndexAcceptAndFeed(t *testing.T) {
	ctx := t.Context()
	mem := newMem(nil)
	svc := serve(t, mem.Services())
	for i := range 3 {
		state := []host.Op{{Key: []byte("last"), Value: []byte{byte(i)}}, {Key: fmt.Appendf(nil, "blk/%d", i), Value: []byte("x")}}
		acc, err := svc.Index.Accept(ctx, "block", ids.ID{byte(10 + i)}, []byte{byte(i), 0xff}, state)
		if err != nil {
			t.Fatalf("accept %d: %v", i, err)
		}
		if acc.Index != uint64(i) || !acc.Timestamp.Equal(t0) {
			t.Errorf("accept %d = %+v, want index %d at %v", i, acc, i, t0)
		}
		got, err := svc.DB.Get(ctx, []byte("last"))
		if err != nil || !bytes.Equal(got, []byte{byte(i)}) {
			t.Errorf("state after accept %d = %v, %v; want [%d]", i, got, err, i)
		}
	}
	tests := []struct {
		name      string
		chain     string
		kind      string
		start     uint64
		wantFirst uint64
		wantCount int
		wantErr   error
	}{
		{name: "own from 0", kind: "block", wantCount: 3},
		{name: "own by alias from 1", chain: "C", kind: "block", start: 1, wantFirst: 1, wantCount: 2},
		{name: "own by ID past end", chain: selfID.String(), kind: "block", start: 7, wantCount: 0},
		{name: "other kind", kind: "tx", wantCount: 0},
		{name: "other chain", chain: "X", kind: "block", wantCount: 0},
		{name: "unknown chain", chain: "nope", kind: "block", wantErr: host.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []host.Container
			err := svc.Index.Feed(ctx, tt.chain, tt.kind, tt.start, false, func(c host.Container) error {
				got = append(got, c)
				return nil
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Feed error = %v, want %v", err, tt.wantErr)
			}
			if len(got) != tt.wantCount {
				t.Fatalf("Feed gave %d containers, want %d", len(got), tt.wantCount)
			}
			for i, c := range got {
				pos := tt.wantFirst + uint64(i)
				want := host.Container{ID: ids.ID{byte(10 + pos)}, Bytes: []byte{byte(pos), 0xff}, Index: pos, Timestamp: t0}
				if c.ID != want.ID || !bytes.Equal(c.Bytes, want.Bytes) || c.Index != want.Index || !c.Timestamp.Equal(want.Timestamp) {
					t.Errorf("container %d = %+v, want %+v", i, c, want)
				}
			}
		})
	}
}

func TestIndexFeedFollow(t *testing.T) {
	mem := newMem(nil)
	svc := serve(t, mem.Services())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if _, err := svc.Index.Accept(ctx, "block", ids.ID{1}, []byte("b0"), nil); err != nil {
		t.Fatalf("accept: %v", err)
	}
	got := make(chan host.Container)
	done := make(chan error, 1)
	go func() {
		done <- svc.Index.Feed(ctx, "", "block", 0, true, func(c host.Container) error {
			got <- c
			return nil
		})
	}()
	next := func(want uint64) {
		t.Helper()
		select {
		case c := <-got:
			if c.Index != want {
				t.Fatalf("followed container index %d, want %d", c.Index, want)
			}
		case err := <-done:
			t.Fatalf("Feed ended early: %v", err)
		case <-time.After(5 * time.Second):
			t.Fatalf("no container %d within 5s", want)
		}
	}
	next(0)
	for i := 1; i <= 2; i++ {
		if _, err := svc.Index.Accept(ctx, "block", ids.ID{byte(1 + i)}, nil, nil); err != nil {
			t.Fatalf("accept: %v", err)
		}
		next(uint64(i))
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Feed after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Feed did not return after cancel")
	}
}

// positionIndex is an Index that feeds positions alone, counting the
// feeds of each sort it serves.
type positionIndex struct {
	host.Index
	feeds, positions *int
}

func (x positionIndex) Feed(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(host.Container) error) error {
	*x.feeds++
	return x.Index.Feed(ctx, chain, kind, start, follow, fn)
}

func (x positionIndex) FeedPositions(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(uint64) error) error {
	*x.positions++
	return x.Index.Feed(ctx, chain, kind, start, follow, func(c host.Container) error { return fn(c.Index) })
}

// TestFeedPositions: over gRPC, host.FeedPositions asks the host for
// positions only, which a PositionIndex serves itself and another Index
// with its containers, bytes dropped.
func TestFeedPositions(t *testing.T) {
	ctx := t.Context()
	mem := newMem(nil)
	for i := range 3 {
		mem.AppendContainer(selfID, "block", ids.ID{byte(i)}, []byte("bytes"))
	}
	var feeds, positions int
	for name, ix := range map[string]host.Index{"position index": positionIndex{mem.Services().Index, &feeds, &positions}, "plain index": mem.Services().Index} {
		t.Run(name, func(t *testing.T) {
			var got []uint64
			err := host.FeedPositions(ctx, serve(t, host.Services{Index: ix}).Index, "C", "block", 1, false, func(p uint64) error {
				got = append(got, p)
				return nil
			})
			if err != nil || fmt.Sprint(got) != "[1 2]" {
				t.Fatalf("FeedPositions from 1 = %v, %v; want [1 2]", got, err)
			}
		})
	}
	if feeds != 0 || positions != 1 {
		t.Errorf("the position index served %d feeds and %d position feeds, want 0 and 1", feeds, positions)
	}
}

func TestIndexFeedStop(t *testing.T) {
	ctx := t.Context()
	svc := serve(t, newMem(nil).Services())
	for i := range 5 {
		if _, err := svc.Index.Accept(ctx, "block", ids.ID{byte(i)}, nil, nil); err != nil {
			t.Fatalf("accept: %v", err)
		}
	}
	n := 0
	err := svc.Index.Feed(ctx, "", "block", 0, true, func(host.Container) error {
		n++
		if n == 2 {
			return host.ErrStop
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Errorf("Feed with ErrStop = %v after %d containers, want nil after 2", err, n)
	}
}

func TestChainRegistry(t *testing.T) {
	ctx := t.Context()
	svc := serve(t, newMem(nil).Services())
	list, err := svc.Chains.List(ctx)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list) != 2 || list[0].ID != selfID || list[1].ID != otherID {
		t.Fatalf("List = %+v, want self then other", list)
	}
	self := list[0]
	if self.VMID != vmID || self.VMName != "evm" || !self.Running ||
		fmt.Sprint(self.Aliases, self.IndexKinds, self.Handlers) != "[C evm] [block] [rpc ws]" {
		t.Errorf("List[0] = %+v, fields lost on the wire", self)
	}
	tests := []struct {
		alias   string
		wantID  ids.ID
		wantErr error
	}{
		{alias: "C", wantID: selfID},
		{alias: "X", wantID: otherID},
		{alias: otherID.String(), wantID: otherID},
		{alias: "Q", wantErr: host.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			got, err := svc.Chains.Resolve(ctx, tt.alias)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Resolve(%q) error = %v, want %v", tt.alias, err, tt.wantErr)
			}
			if got.ID != tt.wantID {
				t.Errorf("Resolve(%q) = %s, want %s", tt.alias, got.ID, tt.wantID)
			}
		})
	}
}

func TestChainCalls(t *testing.T) {
	ctx := t.Context()
	mem := newMem(func(_ context.Context, c host.ChainInfo, handler string, body []byte) (int, []byte, error) {
		if handler == "fail" {
			return 0, nil, errors.New("handler fail is down")
		}
		return 201, fmt.Appendf(nil, "%s/%s:%s", c.Aliases[0], handler, body), nil
	})
	svc := serve(t, mem.Services())
	tests := []struct {
		chain, handler string
		wantStatus     int
		wantBody       string
		wantErr        string
	}{
		{chain: "X", handler: "rpc", wantStatus: 201, wantBody: "X/rpc:ping"},
		{chain: "X", handler: "indexer/a/b%2Fc", wantStatus: 201, wantBody: "X/indexer/a/b%2Fc:ping"},
		{chain: "C", handler: "fail", wantErr: "handler fail is down"},
		{chain: "Q", handler: "rpc", wantErr: "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.chain+"/"+tt.handler, func(t *testing.T) {
			code, body, err := svc.Calls.Call(ctx, tt.chain, tt.handler, []byte("ping"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Call error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || code != tt.wantStatus || string(body) != tt.wantBody {
				t.Errorf("Call = %d %q %v, want %d %q", code, body, err, tt.wantStatus, tt.wantBody)
			}
		})
	}
}

// failingDB fails every call with one error.
type failingDB struct{ err error }

func (f failingDB) Get(context.Context, []byte) ([]byte, error)  { return nil, f.err }
func (f failingDB) Has(context.Context, []byte) (bool, error)    { return false, f.err }
func (f failingDB) Put(context.Context, []byte, []byte) error    { return f.err }
func (f failingDB) Delete(context.Context, []byte) error         { return f.err }
func (f failingDB) Write(context.Context, []host.Op, bool) error { return f.err }
func (f failingDB) Iterate(context.Context, []byte, []byte, func([]byte, []byte) error) error {
	return f.err
}

func TestErrorsCrossTheWire(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name    string
		err     error
		wantIs  error
		wantMsg string
	}{
		{name: "plain", err: errors.New("disk on fire"), wantMsg: "disk on fire"},
		{name: "wrapped not found", err: fmt.Errorf("key k: %w", host.ErrNotFound), wantIs: host.ErrNotFound, wantMsg: "key k: not found"},
		{name: "deadline", err: fmt.Errorf("slow: %w", context.DeadlineExceeded), wantIs: context.DeadlineExceeded, wantMsg: "slow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := serve(t, host.Services{DB: failingDB{tt.err}}).DB
			calls := map[string]error{
				"has":     func() error { _, err := db.Has(ctx, []byte("k")); return err }(),
				"put":     db.Put(ctx, []byte("k"), nil),
				"delete":  db.Delete(ctx, []byte("k")),
				"write":   db.Write(ctx, nil, false),
				"iterate": db.Iterate(ctx, nil, nil, func([]byte, []byte) error { return nil }),
			}
			if !errors.Is(tt.err, host.ErrNotFound) {
				_, err := db.Get(ctx, []byte("k"))
				calls["get"] = err
			}
			for name, err := range calls {
				if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("%s error = %v, want one containing %q", name, err, tt.wantMsg)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Errorf("%s error = %v, want errors.Is %v", name, err, tt.wantIs)
				}
			}
		})
	}
}

func TestMissingServiceIsUnimplemented(t *testing.T) {
	svc := serve(t, host.Services{})
	_, err := svc.Chains.List(t.Context())
	if err == nil || !strings.Contains(err.Error(), "Unimplemented") && !strings.Contains(err.Error(), "unknown service") {
		t.Errorf("List on a host without a registry = %v, want an unimplemented error", err)
	}
}

// failingIndex answers every call with err.
type failingIndex struct{ err error }

func (f failingIndex) Accept(context.Context, string, ids.ID, []byte, []host.Op) (host.Accepted, error) {
	return host.Accepted{}, f.err
}

func (f failingIndex) Feed(context.Context, string, string, uint64, bool, func(host.Container) error) error {
	return f.err
}

func TestIndexErrorsCrossTheWire(t *testing.T) {
	ctx := t.Context()
	sentinels := []error{host.ErrAlreadyIndexed, host.ErrNoIndex, host.ErrNotFound, host.ErrReadOnly}
	for _, sentinel := range sentinels {
		t.Run(sentinel.Error(), func(t *testing.T) {
			sent := fmt.Errorf("chain C: %w", sentinel)
			ix := serve(t, host.Services{Index: failingIndex{sent}}).Index
			_, acceptErr := ix.Accept(ctx, "block", ids.ID{1}, []byte("x"), nil)
			feedErr := ix.Feed(ctx, "", "block", 0, false, func(host.Container) error { return nil })
			for name, err := range map[string]error{"accept": acceptErr, "feed": feedErr} {
				if !errors.Is(err, sentinel) || !strings.HasSuffix(err.Error(), sent.Error()) {
					t.Errorf("%s error = %v, want one ending %q and matching %v", name, err, sent, sentinel)
				}
				for _, other := range sentinels {
					if other != sentinel && errors.Is(err, other) {
						t.Errorf("%s error %v also matches %v", name, err, other)
					}
				}
			}
		})
	}
}

// TestSplitHandlerPath: a chain call's handler path splits at its first /.
func TestSplitHandlerPath(t *testing.T) {
	for _, tt := range []struct{ in, handler, path string }{
		{"rpc", "rpc", ""},
		{"indexer/", "indexer", "/"},
		{"indexer/a/b", "indexer", "/a/b"},
		{"", "", ""},
	} {
		if h, p := host.SplitHandlerPath(tt.in); h != tt.handler || p != tt.path {
			t.Errorf("SplitHandlerPath(%q) = %q, %q; want %q, %q", tt.in, h, p, tt.handler, tt.path)
		}
	}
}

// TestChainWatch: a watch over the wire sees each chain's current state,
// then every start and stop, until the watcher stops it.
func TestChainWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	mem := newMem(nil)
	svc := serve(t, mem.Services())
	events := make(chan host.ChainEvent, 16)
	done := make(chan error, 1)
	go func() {
		done <- svc.Chains.Watch(ctx, func(ev host.ChainEvent) error {
			events <- ev
			if ev.Kind == host.ChainStopped {
				return host.ErrStop
			}
			return nil
		})
	}()
	next := func() host.ChainEvent {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no chain event within 10s")
			return host.ChainEvent{}
		}
	}
	for _, want := range []ids.ID{selfID, otherID} {
		if ev := next(); ev.Kind != host.ChainCurrent || ev.Chain.ID != want {
			t.Fatalf("event = %s %s, want current %s", ev.Kind, ev.Chain.ID, want)
		}
	}
	x := host.ChainInfo{ID: otherID, VMName: "avm", Aliases: []string{"X"}, Running: true, InternalHandlers: []string{"indexer"}}
	mem.SetChain(x)
	if ev := next(); ev.Kind != host.ChainStarted || ev.Chain.ID != otherID || !ev.Chain.Running || fmt.Sprint(ev.Chain.InternalHandlers) != "[indexer]" {
		t.Fatalf("event = %+v, want X started with its internal handler", ev)
	}
	x.Running = false
	mem.SetChain(x)
	if ev := next(); ev.Kind != host.ChainStopped || ev.Chain.Running {
		t.Fatalf("event = %+v, want X stopped", ev)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Watch ended by ErrStop = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not end after its callback returned ErrStop")
	}
}

// TestChainWatchCancel: a watch ends with its context's error.
func TestChainWatchCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	svc := serve(t, newMem(nil).Services())
	seen := make(chan struct{}, 2)
	done := make(chan error, 1)
	go func() {
		done <- svc.Chains.Watch(ctx, func(host.ChainEvent) error { seen <- struct{}{}; return nil })
	}()
	<-seen
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not end after cancel")
	}
}

// TestModuleIndexIsReadOnly: a module's host has no chain of its own: it
// appends nowhere, and feeds only a chain it names.
func TestModuleIndexIsReadOnly(t *testing.T) {
	ctx := t.Context()
	mem := memhost.New(memhost.Options{Others: []host.ChainInfo{{ID: otherID, Aliases: []string{"X"}, Running: true}}})
	mem.AppendContainer(otherID, "tx", ids.ID{9}, []byte("t0"))
	ix := serve(t, mem.Services()).Index
	if _, err := ix.Accept(ctx, "block", ids.ID{1}, []byte("b"), nil); !errors.Is(err, host.ErrReadOnly) {
		t.Errorf("Accept from a module = %v, want ErrReadOnly", err)
	}
	if err := ix.Feed(ctx, "", "tx", 0, false, func(host.Container) error { return nil }); !errors.Is(err, host.ErrNotFound) {
		t.Errorf("Feed of the module's own chain = %v, want ErrNotFound", err)
	}
	var got []string
	if err := ix.Feed(ctx, "X", "tx", 0, false, func(c host.Container) error { got = append(got, string(c.Bytes)); return nil }); err != nil || fmt.Sprint(got) != "[t0]" {
		t.Errorf("Feed of X = %v, %v; want [t0]", got, err)
	}
}

// TestChainWatchBehind: a watcher whose callback lags too far behind the
// events has its watch ended with ErrWatchBehind, which keeps its meaning
// across the wire.
func TestChainWatchBehind(t *testing.T) {
	mem := newMem(nil)
	entered, release := make(chan struct{}, 2), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- mem.Services().Chains.Watch(t.Context(), func(host.ChainEvent) error {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-release
			return nil
		})
	}()
	<-entered
	// The callback holds the first current event while the chain flips
	// more often than a watcher may lag behind.
	for i := range 70 {
		mem.SetChain(host.ChainInfo{ID: otherID, Aliases: []string{"X"}, Running: i%2 == 0})
	}
	close(release)
	select {
	case err := <-done:
		if !errors.Is(err, host.ErrWatchBehind) {
			t.Fatalf("Watch of a stuck watcher = %v, want ErrWatchBehind", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch of a stuck watcher did not end")
	}
	reg := serve(t, host.Services{Chains: behindRegistry{}}).Chains
	if err := reg.Watch(t.Context(), func(host.ChainEvent) error { return nil }); !errors.Is(err, host.ErrWatchBehind) {
		t.Errorf("ErrWatchBehind over the wire = %v", err)
	}
}

// behindRegistry's watches always fall behind.
type behindRegistry struct{ host.ChainRegistry }

func (behindRegistry) Watch(context.Context, func(host.ChainEvent) error) error {
	return fmt.Errorf("watch chains: %w", host.ErrWatchBehind)
}
