package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// The index API tests run the example VM, which accepts one block per
// kv.put and reports it to the host's index under the kind "block".

// ixHeaderIncomplete is the header of an index marked incomplete.
const ixHeaderIncomplete = "X-Chainhost-Index-Incomplete"

// ixTwoChains is a config with a chain that gets blocks and one that
// stays empty.
const ixTwoChains = `
chains:
  - alias: example
    vm: example
    genesis: {}
  - alias: empty
    vm: example
    genesis: {}
`

// ixTimestamp is the wire form of a container's timestamp: RFC 3339 with
// up to nine fraction digits and an offset.
var ixTimestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$`)

// containerWire is a container as the index API sends it (docs/index.md).
type containerWire struct {
	ID        string `json:"id"`
	Bytes     string `json:"bytes"`
	Timestamp string `json:"timestamp"`
	Encoding  string `json:"encoding"`
	Index     string `json:"index"`
}

// indexedContainer is a decoded container.
type indexedContainer struct {
	ID    ids.ID
	Bytes []byte
	Index uint64
	Time  time.Time
}

// decode checks the wire formats of w and decodes it.
func (w containerWire) decode() (indexedContainer, error) {
	id, err := ids.FromString(w.ID)
	if err != nil {
		return indexedContainer{}, fmt.Errorf("id %q: %w", w.ID, err)
	}
	b, err := ids.DecodeHexWithChecksum(w.Bytes)
	if err != nil {
		return indexedContainer{}, fmt.Errorf("bytes of %s: %w", w.ID, err)
	}
	i, err := strconv.ParseUint(w.Index, 10, 64)
	if err != nil || strconv.FormatUint(i, 10) != w.Index {
		return indexedContainer{}, fmt.Errorf("index %q of %s is not a decimal string", w.Index, w.ID)
	}
	if !ixTimestamp.MatchString(w.Timestamp) {
		return indexedContainer{}, fmt.Errorf("timestamp %q of %s is not RFC 3339 with an offset", w.Timestamp, w.ID)
	}
	ts, err := time.Parse(time.RFC3339Nano, w.Timestamp)
	if err != nil {
		return indexedContainer{}, fmt.Errorf("timestamp of %s: %w", w.ID, err)
	}
	if w.Encoding != "hex" {
		return indexedContainer{}, fmt.Errorf("encoding of %s = %q, want hex", w.ID, w.Encoding)
	}
	return indexedContainer{ID: id, Bytes: b, Index: i, Time: ts}, nil
}

// indexAnswer is one JSON-RPC answer of the index API.
type indexAnswer struct {
	Status int
	Header http.Header
	Result json.RawMessage
	Err    *jsonrpc.Error
}

// postIndex sends one JSON-RPC request to n's path and returns the answer.
func postIndex(ctx context.Context, n *nodetest.Node, path, method string, params any) (indexAnswer, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return indexAnswer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.URL+path, bytes.NewReader(body))
	if err != nil {
		return indexAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return indexAnswer{}, fmt.Errorf("%s %s: %w", path, method, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return indexAnswer{}, fmt.Errorf("%s %s: read: %w", path, method, err)
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return indexAnswer{}, fmt.Errorf("%s %s: HTTP %d, not JSON-RPC: %q", path, method, resp.StatusCode, data)
	}
	return indexAnswer{Status: resp.StatusCode, Header: resp.Header, Result: out.Result, Err: out.Error}, nil
}

// ixMust calls an index method that must succeed and decodes its result.
func ixMust(t *testing.T, n *nodetest.Node, path, method string, params, result any) http.Header {
	t.Helper()
	a, err := postIndex(context.Background(), n, path, method, params)
	if err != nil {
		t.Fatal(err)
	}
	if a.Err != nil || a.Status != http.StatusOK {
		t.Fatalf("%s %s %v: HTTP %d, error %+v", path, method, params, a.Status, a.Err)
	}
	if err := json.Unmarshal(a.Result, result); err != nil {
		t.Fatalf("%s %s: decode %s: %v", path, method, a.Result, err)
	}
	return a.Header
}

// ixByIndex returns the container at position i.
func ixByIndex(t *testing.T, n *nodetest.Node, path string, i uint64) indexedContainer {
	t.Helper()
	var w containerWire
	ixMust(t, n, path, "index.getContainerByIndex", map[string]any{"index": i, "encoding": "hex"}, &w)
	c, err := w.decode()
	if err != nil {
		t.Fatalf("getContainerByIndex(%d): %v", i, err)
	}
	return c
}

// putAck is an acknowledged kv.put.
type putAck struct {
	Key, Value string
	Height     uint64
	Index      uint64
	BlockID    ids.ID
	Sent, Got  time.Time // just before the request, just after the reply
}

// ixPutN makes count blocks with keys prefix0, prefix1, ...
func ixPutN(t *testing.T, n *nodetest.Node, prefix string, count int) []putAck {
	t.Helper()
	acks := make([]putAck, 0, count)
	for i := range count {
		k := fmt.Sprintf("%s%d", prefix, i)
		a, err := putExampleBlock(context.Background(), n, "example", k, "v-"+k)
		if err != nil {
			t.Fatalf("put %s: %v", k, err)
		}
		acks = append(acks, a)
	}
	return acks
}

// ixBlock is the example VM's block.
type ixBlock struct {
	Height jsonrpc.Uint64 `json:"height"`
	Parent ids.ID         `json:"parent"`
	Time   int64          `json:"time"`
	Key    string         `json:"key"`
	Value  string         `json:"value"`
}

// ixVMBlock returns the bytes of the block the VM accepted at height, or
// the error of the call.
func ixVMBlock(ctx context.Context, n *nodetest.Node, chain string, height uint64) ([]byte, error) {
	var raw json.RawMessage
	err := n.Call(ctx, "/ext/bc/"+chain+"/rpc", "kv.getBlock", map[string]any{"height": height}, &raw)
	return raw, err
}

// TestIndexWalk: every container the VM accepted is in the index, at the
// position of its acceptance, with the VM's ID and bytes and a timestamp
// taken while its put was in flight; getContainerByIndex,
// getContainerRange, getContainerByID, getIndex, isAccepted and
// getLastAccepted all agree.
func TestIndexWalk(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: ixTwoChains})
	const path, count = "/ext/index/example/block", 40
	acks := ixPutN(t, n, "walk", count)

	byIndex := make([]indexedContainer, count)
	for i := range uint64(count) {
		c := ixByIndex(t, n, path, i)
		a := acks[i]
		switch {
		case c.Index != i || a.Index != i:
			t.Fatalf("container %d: index %d, put reply index %d", i, c.Index, a.Index)
		case c.ID != a.BlockID:
			t.Fatalf("container %d: ID %s, the VM accepted %s", i, c.ID, a.BlockID)
		case c.Time.Before(a.Sent) || c.Time.After(a.Got):
			t.Fatalf("container %d: timestamp %s outside its put, %s to %s", i, c.Time, a.Sent, a.Got)
		case i > 0 && c.Time.Before(byIndex[i-1].Time):
			t.Fatalf("container %d: timestamp %s before the previous one's %s", i, c.Time, byIndex[i-1].Time)
		}
		byIndex[i] = c
	}
	checkIndexMatchesVM(t, n, "example", byIndex)

	for _, page := range []uint64{1, 7, 40, 1024} {
		if got := walkIndexRange(t, n, path, page); !slices.EqualFunc(got, byIndex, ixSame) {
			t.Fatalf("walk by pages of %d differs from the walk by index", page)
		}
	}
	for i, c := range byIndex {
		var w containerWire
		ixMust(t, n, path, "index.getContainerByID", map[string]any{"id": c.ID, "encoding": "hex"}, &w)
		if got, err := w.decode(); err != nil || !ixSame(got, c) {
			t.Fatalf("getContainerByID(%s) = %+v, %v; want %+v", c.ID, got, err, c)
		}
		var ix struct {
			Index string `json:"index"`
		}
		ixMust(t, n, path, "index.getIndex", map[string]any{"id": c.ID, "encoding": "hex"}, &ix)
		if ix.Index != strconv.Itoa(i) {
			t.Fatalf("getIndex(%s) = %q, want %q", c.ID, ix.Index, strconv.Itoa(i))
		}
		var acc struct {
			IsAccepted *bool `json:"isAccepted"`
		}
		ixMust(t, n, path, "index.isAccepted", map[string]any{"id": c.ID, "encoding": "hex"}, &acc)
		if acc.IsAccepted == nil || !*acc.IsAccepted {
			t.Fatalf("isAccepted(%s) = %v, want true", c.ID, acc.IsAccepted)
		}
	}
	var last containerWire
	h := ixMust(t, n, path, "index.getLastAccepted", map[string]any{"encoding": "hex"}, &last)
	if got, err := last.decode(); err != nil || !ixSame(got, byIndex[count-1]) {
		t.Fatalf("getLastAccepted = %+v, %v; want the container at %d", got, err, count-1)
	}
	if v := h.Get(ixHeaderIncomplete); v != "" {
		t.Fatalf("a complete index answers %s: %q", ixHeaderIncomplete, v)
	}
	// The other chain's index is separate and empty.
	var none []containerWire
	ixMust(t, n, "/ext/index/empty/block", "index.getContainerRange", map[string]any{"startIndex": 0, "numToFetch": 0}, &none)
	a, err := postIndex(context.Background(), n, "/ext/index/empty/block", "index.isAccepted", map[string]any{"id": byIndex[0].ID})
	if err != nil || a.Err != nil || string(a.Result) != `{"isAccepted":false}` {
		t.Fatalf("the empty chain's index holds the other chain's container: %+v, %v", a, err)
	}
}

// ixSame reports whether two decoded containers are equal.
func ixSame(a, b indexedContainer) bool {
	return a.ID == b.ID && bytes.Equal(a.Bytes, b.Bytes) && a.Index == b.Index && a.Time.Equal(b.Time)
}

// TestIndexRules: each rule of docs/index.md over
// HTTP against the running host.
func TestIndexRules(t *testing.T) {
	t.Parallel()
	n := nodetest.Start(t, nodetest.Options{Config: ixTwoChains})
	const path, emptyPath, count = "/ext/index/example/block", "/ext/index/empty/block", 10
	acks := ixPutN(t, n, "rule", count)
	known := acks[3].BlockID
	unknown := ids.Derive([]byte("never accepted"))

	// result checks
	containers := func(from, to int) func(json.RawMessage) error {
		return func(raw json.RawMessage) error {
			var ws []containerWire
			if err := json.Unmarshal(raw, &ws); err != nil {
				return err
			}
			if len(ws) != to-from {
				return fmt.Errorf("%d containers, want %d", len(ws), to-from)
			}
			for k, w := range ws {
				c, err := w.decode()
				if err != nil {
					return err
				}
				if i := from + k; c.Index != uint64(i) || c.ID != acks[i].BlockID {
					return fmt.Errorf("container %d: index %d, ID %s; want %d, %s", k, c.Index, c.ID, i, acks[i].BlockID)
				}
			}
			return nil
		}
	}
	one := func(i int) func(json.RawMessage) error {
		return func(raw json.RawMessage) error {
			return containers(i, i+1)(json.RawMessage("[" + string(raw) + "]"))
		}
	}
	exactly := func(want string) func(json.RawMessage) error {
		return func(raw json.RawMessage) error {
			if string(raw) != want {
				return fmt.Errorf("result %s, want %s", raw, want)
			}
			return nil
		}
	}
	rng := func(start, num any) map[string]any {
		return map[string]any{"startIndex": start, "numToFetch": num, "encoding": "hex"}
	}
	tests := []ixRule{
		// getContainerRange, rules 1 to 4 of docs/index.md.
		{name: "numToFetch 0 is empty", path: path, method: "index.getContainerRange", params: rng(0, 0), check: exactly("[]")},
		{name: "numToFetch 0 beyond the end is empty", path: path, method: "index.getContainerRange", params: rng(1000, 0), check: exactly("[]")},
		{name: "numToFetch 0 on an empty index is empty", path: emptyPath, method: "index.getContainerRange", params: rng(0, 0), check: exactly("[]")},
		{name: "start above the last accepted", path: path, method: "index.getContainerRange", params: rng(count, 1),
			code: jsonrpc.CodeServerError, msg: "start index (10) > last accepted index (9)"},
		{name: "start far above the last accepted", path: path, method: "index.getContainerRange", params: rng(uint64(1)<<63, 1024),
			code: jsonrpc.CodeServerError, msg: "> last accepted index (9)"},
		{name: "any start on an empty index", path: emptyPath, method: "index.getContainerRange", params: rng(0, 1),
			code: jsonrpc.CodeServerError, msg: "no containers have been accepted"},
		{name: "numToFetch 1025", path: path, method: "index.getContainerRange", params: rng(0, 1025),
			code: jsonrpc.CodeInvalidParams, msg: `"numToFetch" must be at most 1024, got 1025`},
		{name: "numToFetch far above 1024", path: path, method: "index.getContainerRange", params: rng(0, "18446744073709551615"),
			code: jsonrpc.CodeInvalidParams, msg: "at most 1024"},
		{name: "numToFetch 1024: the short tail", path: path, method: "index.getContainerRange", params: rng(0, 1024), check: containers(0, count)},
		{name: "short tail", path: path, method: "index.getContainerRange", params: rng(7, 10), check: containers(7, count)},
		{name: "the last one", path: path, method: "index.getContainerRange", params: rng(9, 1), check: containers(9, count)},
		{name: "exact page", path: path, method: "index.getContainerRange", params: rng(2, 5), check: containers(2, 7)},
		{name: "decimal strings", path: path, method: "index.getContainerRange", params: rng("8", "2"), check: containers(8, count)},
		// lookups
		{name: "by index", path: path, method: "index.getContainerByIndex", params: map[string]any{"index": 4, "encoding": "hex"}, check: one(4)},
		{name: "by index as a string", path: path, method: "index.getContainerByIndex", params: map[string]any{"index": "5"}, check: one(5)},
		{name: "unknown index", path: path, method: "index.getContainerByIndex", params: map[string]any{"index": count, "encoding": "hex"},
			code: jsonrpc.CodeServerError, msg: "no container at index 10"},
		{name: "negative index", path: path, method: "index.getContainerByIndex", params: map[string]any{"index": -1},
			code: jsonrpc.CodeInvalidParams, msg: "index"},
		{name: "by ID", path: path, method: "index.getContainerByID", params: map[string]any{"id": known, "encoding": "hex"}, check: one(3)},
		{name: "unknown ID", path: path, method: "index.getContainerByID", params: map[string]any{"id": unknown, "encoding": "hex"},
			code: jsonrpc.CodeServerError, msg: "no container with ID " + unknown.String()},
		{name: "malformed ID", path: path, method: "index.getContainerByID", params: map[string]any{"id": "not-an-id"},
			code: jsonrpc.CodeInvalidParams, msg: "id"},
		{name: "missing ID", path: path, method: "index.getContainerByID", params: map[string]any{"encoding": "hex"},
			code: jsonrpc.CodeInvalidParams, msg: `missing param "id"`},
		{name: "getIndex", path: path, method: "index.getIndex", params: map[string]any{"id": known, "encoding": "hex"}, check: exactly(`{"index":"3"}`)},
		{name: "getIndex of an unknown ID", path: path, method: "index.getIndex", params: map[string]any{"id": unknown, "encoding": "hex"},
			code: jsonrpc.CodeServerError, msg: "no container with ID " + unknown.String()},
		{name: "isAccepted", path: path, method: "index.isAccepted", params: map[string]any{"id": known, "encoding": "hex"}, check: exactly(`{"isAccepted":true}`)},
		{name: "isAccepted of an unknown ID is false", path: path, method: "index.isAccepted", params: map[string]any{"id": unknown, "encoding": "hex"},
			check: exactly(`{"isAccepted":false}`)},
		{name: "isAccepted on an empty index is false", path: emptyPath, method: "index.isAccepted", params: map[string]any{"id": known},
			check: exactly(`{"isAccepted":false}`)},
		{name: "getLastAccepted", path: path, method: "index.getLastAccepted", params: map[string]any{"encoding": "hex"}, check: one(count - 1)},
		{name: "getLastAccepted on an empty index", path: emptyPath, method: "index.getLastAccepted", params: map[string]any{"encoding": "hex"},
			code: jsonrpc.CodeServerError, msg: "no containers have been accepted"},
		{name: "getContainerByIndex on an empty index", path: emptyPath, method: "index.getContainerByIndex", params: map[string]any{"index": 0},
			code: jsonrpc.CodeServerError, msg: "no container at index 0"},
		// encoding: hex only; absent means hex.
		{name: "encoding absent", path: path, method: "index.getLastAccepted", params: map[string]any{}, check: one(count - 1)},
		{name: "encoding HEX", path: path, method: "index.getLastAccepted", params: map[string]any{"encoding": "HEX"}, check: one(count - 1)},
		{name: "params as a one-element array", path: path, method: "index.getContainerByIndex", params: []any{map[string]any{"index": 2}}, check: one(2)},
	}
	badEncoding := []struct {
		method string
		params map[string]any
	}{
		{"index.getContainerByID", map[string]any{"id": known}},
		{"index.getContainerByIndex", map[string]any{"index": 0}},
		{"index.getContainerRange", map[string]any{"startIndex": 0, "numToFetch": 1}},
		{"index.getIndex", map[string]any{"id": known}},
		{"index.getLastAccepted", map[string]any{}},
		{"index.isAccepted", map[string]any{"id": known}},
	}
	for _, enc := range []string{"json", "cb58", "hexc", ""} {
		for _, b := range badEncoding {
			p := maps.Clone(b.params)
			p["encoding"] = enc
			tests = append(tests, ixRule{name: fmt.Sprintf("%s with encoding %q", b.method, enc), path: path, method: b.method, params: p,
				code: jsonrpc.CodeInvalidParams, msg: `"encoding": unsupported encoding`})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := postIndex(context.Background(), n, tt.path, tt.method, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if a.Status != http.StatusOK {
				t.Fatalf("HTTP %d, want 200", a.Status)
			}
			if tt.check != nil {
				if a.Err != nil {
					t.Fatalf("error %+v, want a result", a.Err)
				}
				if err := tt.check(a.Result); err != nil {
					t.Fatal(err)
				}
				return
			}
			if a.Err == nil {
				t.Fatalf("result %s, want error %d %q", a.Result, tt.code, tt.msg)
			}
			if a.Err.Code != tt.code || !strings.Contains(a.Err.Message, tt.msg) {
				t.Fatalf("error %d %q, want %d containing %q", a.Err.Code, a.Err.Message, tt.code, tt.msg)
			}
		})
	}

	// Paths the index does not serve answer 404 with a JSON-RPC error that says why.
	for _, tc := range []struct{ path, msg string }{
		{"/ext/index/example/tx", `chain example has no "tx" index; it indexes block`},
		{"/ext/index/nochain/block", `unknown chain "nochain"`},
	} {
		a, err := postIndex(context.Background(), n, tc.path, "index.getLastAccepted", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != http.StatusNotFound || a.Err == nil || !strings.Contains(a.Err.Message, tc.msg) {
			t.Fatalf("%s: HTTP %d, error %+v; want 404 with %q", tc.path, a.Status, a.Err, tc.msg)
		}
	}
}

// ixRule is one call of TestIndexRules and what it must answer.
type ixRule struct {
	name   string
	path   string
	method string
	params any
	check  func(json.RawMessage) error // for a success
	code   int                         // for an error
	msg    string                      // the error message contains it
}

// TestIndexRestartRules (docs/index.md, "Indexing turned off and on"): after a run with indexing on, a
// start with it off fails, naming --index-allow-incomplete; with that flag
// it starts and the index is marked incomplete: index reads carry the
// incomplete header until every chain has been backfilled from its VM.
func TestIndexRestartRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A chain whose VM is not installed can never be backfilled, so the
	// index stays incomplete while it is configured.
	const withPending = ixOneChain + `
  - alias: pending
    vm: notinstalled
    genesis: {}
`
	on := nodetest.Start(t, nodetest.Options{DataDir: dir, Config: ixOneChain})
	acks := ixPutN(t, on, "on", 3)
	on.Stop(t)

	// Off, without the flag: refused.
	refused := nodetest.Start(t, nodetest.Options{DataDir: dir, Config: ixOneChain, Args: []string{"--index-enabled=false"}, NoWait: true})
	code, err := refused.Wait(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if code == 0 || !strings.Contains(refused.Output(), "--index-allow-incomplete") {
		t.Fatalf("start with indexing off after a run with it on: exit code %d, output:\n%s", code, refused.Output())
	}

	// Off, with the flag: runs, the VM still accepts, the index API is off.
	off := nodetest.Start(t, nodetest.Options{DataDir: dir, Config: ixOneChain,
		Args: []string{"--index-enabled=false", "--index-allow-incomplete"}})
	acks = append(acks, ixPutN(t, off, "off", 2)...)
	a, err := postIndex(context.Background(), off, "/ext/index/example/block", "index.getLastAccepted", map[string]any{})
	if err != nil || a.Status != http.StatusNotFound || a.Err == nil || !strings.Contains(a.Err.Message, "--index-enabled=true") {
		t.Fatalf("index API with indexing off: %+v, %v", a, err)
	}
	off.Stop(t)

	// On again, with a chain that cannot be backfilled: incomplete.
	incomplete := nodetest.Start(t, nodetest.Options{DataDir: dir, Config: withPending})
	got := walkIndexRange(t, incomplete, "/ext/index/example/block", 1024)
	if len(got) != len(acks) {
		t.Fatalf("index holds %d containers, want %d", len(got), len(acks))
	}
	checkIndexMatchesVM(t, incomplete, "example", got)
	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"index.getLastAccepted", map[string]any{}},
		{"index.getContainerRange", map[string]any{"startIndex": 0, "numToFetch": 2}},
		{"index.getContainerByIndex", map[string]any{"index": 4}},
		{"index.isAccepted", map[string]any{"id": acks[0].BlockID}},
	} {
		m := call.method
		a, err := postIndex(context.Background(), incomplete, "/ext/index/example/block", m, call.params)
		if err != nil || a.Err != nil {
			t.Fatalf("%s: %+v, %v", m, a, err)
		}
		if v := a.Header.Get(ixHeaderIncomplete); v != "true" {
			t.Fatalf("%s on an incomplete index: %s = %q, want true", m, ixHeaderIncomplete, v)
		}
	}
	// Errors carry it too.
	a, err = postIndex(context.Background(), incomplete, "/ext/index/example/block", "index.getContainerByIndex", map[string]any{"index": 99})
	if err != nil || a.Err == nil || a.Header.Get(ixHeaderIncomplete) != "true" {
		t.Fatalf("error answer of an incomplete index: %+v, %v", a, err)
	}
	incomplete.Stop(t)

	// Every configured chain backfilled: complete again, for good.
	for run := range 2 {
		complete := nodetest.Start(t, nodetest.Options{DataDir: dir, Config: ixOneChain})
		var last containerWire
		h := ixMust(t, complete, "/ext/index/example/block", "index.getLastAccepted", map[string]any{}, &last)
		if v := h.Get(ixHeaderIncomplete); v != "" {
			t.Fatalf("run %d after a full backfill: %s = %q, want none", run, ixHeaderIncomplete, v)
		}
		if has := strings.Contains(complete.Output(), "the index is complete again"); has != (run == 0) {
			t.Fatalf("run %d: the log says the index became complete: %v, want %v", run, has, run == 0)
		}
		if c, err := last.decode(); err != nil || c.ID != acks[len(acks)-1].BlockID {
			t.Fatalf("run %d: last accepted %+v, %v", run, c, err)
		}
		complete.Stop(t)
	}
}

// ixOneChain is a config with the example chain alone.
const ixOneChain = `
chains:
  - alias: example
    vm: example
    genesis: {}
`

// TestIndexBackfill: containers the VM accepted while indexing was off are
// appended at the next start, in order, stamped with the chain's bootstrap
// time; containers accepted later carry their own acceptance time. A host
// killed in the middle of a backfill completes it at the next start.
func TestIndexBackfill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := nodetest.Options{DataDir: dir, Config: ixOneChain}
	offOpts := opts
	offOpts.Args = []string{"--index-enabled=false", "--index-allow-incomplete"}

	off := nodetest.Start(t, offOpts)
	acks := ixPutN(t, off, "off", 20)
	off.Stop(t)

	before := time.Now()
	on := nodetest.Start(t, opts)
	started := time.Now()
	got := walkIndexRange(t, on, "/ext/index/example/block", 1024)
	if len(got) != len(acks) {
		t.Fatalf("backfilled %d containers, want %d", len(got), len(acks))
	}
	checkIndexMatchesVM(t, on, "example", got)
	checkPutsIndexed(t, on, got, acks, false)
	bootstrap := got[0].Time
	if bootstrap.Before(before) || bootstrap.After(started) {
		t.Fatalf("backfilled containers stamped %s, not within the start, %s to %s", bootstrap, before, started)
	}
	for _, c := range got {
		if !c.Time.Equal(bootstrap) {
			t.Fatalf("container %d stamped %s, the others %s: want the one bootstrap time", c.Index, c.Time, bootstrap)
		}
	}
	live := ixPutN(t, on, "live", 5)
	acks = append(acks, live...)
	got = walkIndexRange(t, on, "/ext/index/example/block", 1024)
	checkIndexMatchesVM(t, on, "example", got)
	for i, a := range live {
		c := got[20+i]
		if c.ID != a.BlockID || c.Time.Before(a.Sent) || c.Time.After(a.Got) || !c.Time.After(bootstrap) {
			t.Fatalf("live container %d: %s at %s; want %s within %s to %s", 20+i, c.ID, c.Time, a.BlockID, a.Sent, a.Got)
		}
	}
	a, err := postIndex(context.Background(), on, "/ext/index/example/block", "index.getLastAccepted", map[string]any{})
	if err != nil || a.Header.Get(ixHeaderIncomplete) != "" {
		t.Fatalf("after a full backfill the index is still marked incomplete: %+v, %v", a, err)
	}
	on.Stop(t)

	// A longer gap, and the host killed while it may be backfilling it.
	off = nodetest.Start(t, offOpts)
	acks = append(acks, ixPutConcurrently(t, off, "gap", 3, 200)...)
	off.Stop(t)
	for kill := range 3 {
		o := opts
		o.NoWait = true
		n := nodetest.Start(t, o)
		time.Sleep(time.Duration(100+kill*80) * time.Millisecond)
		n.Kill()
	}
	final := nodetest.Start(t, opts)
	got = walkIndexRange(t, final, "/ext/index/example/block", 1024)
	if len(got) != len(acks) {
		t.Fatalf("index holds %d containers, want %d", len(got), len(acks))
	}
	checkIndexMatchesVM(t, final, "example", got)
	checkPutsIndexed(t, final, got, acks, false)
	// The backfilled ones carry the bootstrap time of the run that
	// appended them: later than the live ones, never decreasing.
	stamps := map[time.Time]bool{}
	for _, c := range got[25:] {
		if c.Time.Before(got[c.Index-1].Time) {
			t.Fatalf("container %d stamped %s, before container %d (%s)", c.Index, c.Time, c.Index-1, got[c.Index-1].Time)
		}
		stamps[c.Time] = true
	}
	if len(stamps) > 4 {
		t.Fatalf("backfilled containers carry %d timestamps, want one per start (at most 4)", len(stamps))
	}
	a, err = postIndex(context.Background(), final, "/ext/index/example/block", "index.getLastAccepted", map[string]any{})
	if err != nil || a.Header.Get(ixHeaderIncomplete) != "" {
		t.Fatalf("after a full backfill the index is still marked incomplete: %+v, %v", a, err)
	}
	final.Stop(t)
}

// ixPutConcurrently makes workers*each blocks from several goroutines and
// returns the acknowledgements.
func ixPutConcurrently(t *testing.T, n *nodetest.Node, prefix string, workers, each int) []putAck {
	t.Helper()
	results := make([][]putAck, workers)
	errs := make([]error, workers)
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for k := range each {
				key := fmt.Sprintf("%s-%d-%d", prefix, w, k)
				a, err := putExampleBlock(context.Background(), n, "example", key, "v-"+key)
				if err != nil {
					errs[w] = err
					return
				}
				results[w] = append(results[w], a)
			}
		}()
	}
	for range workers {
		<-done
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return slices.Concat(results...)
}

// TestIndexLegacyKind: a chain config's legacy-index-kinds are served from
// the history the index holds, also while the chain is not running, and
// never appended to: the host refuses the VM's appends.
func TestIndexLegacyKind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := nodetest.Start(t, nodetest.Options{DataDir: dir, Config: ixOneChain})
	acks := ixPutN(t, first, "hist", 4)
	history := walkIndexRange(t, first, "/ext/index/example/block", 1024)
	first.Stop(t)

	// The example chain's "block" index becomes legacy (as X/vtx after the
	// X-Chain's linearization), and an extra legacy kind "vtx" with no
	// history; a chain whose VM is not installed has a legacy kind too.
	const legacy = `
chains:
  - alias: example
    vm: example
    genesis: {}
    legacy-index-kinds: [block, vtx]
  - alias: old
    vm: notinstalled
    genesis: {}
    legacy-index-kinds: [vtx]
`
	n := nodetest.Start(t, nodetest.Options{DataDir: dir, Config: legacy})
	if got := walkIndexRange(t, n, "/ext/index/example/block", 3); !slices.EqualFunc(got, history, ixSame) {
		t.Fatalf("legacy index answers %+v, want its history %+v", got, history)
	}
	// The banner (written before the walk could start) lists them as such.
	for _, kind := range []string{"block", "vtx"} {
		if line := "/ext/index/example/" + kind + " (legacy, read-only)"; !strings.Contains(n.Output(), line) {
			t.Errorf("the start-up banner does not list %s:\n%s", line, n.Output())
		}
	}
	_, err := putExampleBlock(context.Background(), n, "example", "new", "x")
	var rpcErrorCode *jsonrpc.Error
	if !errors.As(err, &rpcErrorCode) || !strings.Contains(rpcErrorCode.Message, `index kind "block" is legacy`) {
		t.Fatalf("put on a chain whose kind is legacy: %v, want the host's refusal", err)
	}
	if got := walkIndexRange(t, n, "/ext/index/example/block", 1024); len(got) != len(acks) {
		t.Fatalf("the legacy index grew to %d containers", len(got))
	}
	// The refused block left no VM state: the append and the state are one write.
	if _, err := ixVMBlock(context.Background(), n, "example", uint64(len(acks))); err == nil {
		t.Fatal("the VM kept a block whose append the host refused")
	}
	for _, path := range []string{"/ext/index/example/vtx", "/ext/index/old/vtx"} {
		a, err := postIndex(context.Background(), n, path, "index.getLastAccepted", map[string]any{"encoding": "hex"})
		if err != nil || a.Status != http.StatusOK || a.Err == nil || a.Err.Message != "no containers have been accepted" {
			t.Fatalf("%s: %+v, %v; want an empty index's answer", path, a, err)
		}
	}
	a, err := postIndex(context.Background(), n, "/ext/index/old/block", "index.getLastAccepted", map[string]any{})
	if err != nil || a.Status != http.StatusNotFound || a.Err == nil || !strings.Contains(a.Err.Message, "chain old is not running") {
		t.Fatalf("non-legacy kind of a chain that is not running: %+v, %v", a, err)
	}
	n.Stop(t)
}
