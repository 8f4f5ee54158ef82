package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// serve starts the index API over ix on a real HTTP server and returns
// its URL.
func serve(t *testing.T, ix *Index, opts ServiceOptions) string {
	t.Helper()
	srv := httptest.NewServer(NewHandler(ix, opts))
	t.Cleanup(srv.Close)
	return srv.URL + "/ext/index/C/block"
}

// call calls method and returns the raw result, or the JSON-RPC error.
func call(t *testing.T, url, method string, params any) (json.RawMessage, *jsonrpc.Error) {
	t.Helper()
	var result json.RawMessage
	err := jsonrpc.Call(context.Background(), nil, url, method, params, &result)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return nil, rpcErr
	}
	if err != nil {
		t.Fatalf("call %s: %v", method, err)
	}
	return result, nil
}

// wire is the JSON a container is expected to travel as.
func wire(c Entry, index string, timestamp string) string {
	return `{"id":"` + c.ID.String() + `","bytes":"` + ids.HexWithChecksum(c.Bytes) +
		`","timestamp":"` + timestamp + `","encoding":"hex","index":"` + index + `"}`
}

// Timestamps of the three containers the service tests index: a full
// fraction, a trimmed fraction given in another zone, and none.
var serviceStamps = []struct {
	ts   time.Time
	text string
}{
	{time.Date(2021, 11, 4, 0, 42, 55, 16434140, time.UTC), "2021-11-04T00:42:55.01643414Z"},
	{time.Date(2021, 4, 2, 15, 34, 0, 262979000, time.FixedZone("PDT", -7*3600)), "2021-04-02T22:34:00.262979Z"},
	{time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC), "2024-02-29T23:59:59Z"},
}

// serviceIndex returns an index of the three service test containers and
// the expected wire JSON of each.
func serviceIndex(t *testing.T) (*Index, *Index, []string) {
	t.Helper()
	db, _ := openDB(t)
	x := newIndexes(t, db, nil)
	ix := x.Index(testChain, "block")
	var wires []string
	for k, s := range serviceStamps {
		e := entry(uint64(k) + 1) // entry 0 has no bytes; 1..3 have some
		if _, err := ix.Accept(e.ID, e.Bytes, s.ts, nil); err != nil {
			t.Fatalf("Accept: %v", err)
		}
		wires = append(wires, wire(e, string(rune('0'+k)), s.text))
	}
	return ix, x.Index(testChain, "empty"), wires
}

func TestServiceMethods(t *testing.T) {
	ix, empty, wires := serviceIndex(t)
	url, emptyURL := serve(t, ix, ServiceOptions{}), serve(t, empty, ServiceOptions{})
	id := func(k uint64) string { return entry(k).ID.String() }
	unknown := ids.Derive([]byte("unknown")).String()

	tests := []struct {
		name    string
		url     string
		method  string
		params  any
		want    string // the result's JSON, when no error is wanted
		code    int    // the error code wanted
		message string // text the error message must hold
	}{
		// getContainerByIndex
		{name: "by index", method: "index.getContainerByIndex", params: map[string]any{"index": 1, "encoding": "hex"}, want: wires[1]},
		{name: "by index as string, encoding absent", method: "index.getContainerByIndex", params: map[string]any{"index": "2"}, want: wires[2]},
		{name: "by index, encoding in capitals", method: "index.getContainerByIndex", params: map[string]any{"index": 0, "encoding": "HEX"}, want: wires[0]},
		{name: "by index, index absent means 0", method: "index.getContainerByIndex", params: map[string]any{}, want: wires[0]},
		{name: "by index past the end", method: "index.getContainerByIndex", params: map[string]any{"index": 3}, code: -32000, message: "no container at index 3"},
		{name: "by negative index", method: "index.getContainerByIndex", params: map[string]any{"index": -1}, code: -32602, message: `"index"`},
		{name: "by index, encoding json", method: "index.getContainerByIndex", params: map[string]any{"index": 0, "encoding": "json"}, code: -32602, message: `"encoding": unsupported encoding "json"`},
		{name: "by index, encoding cb58", method: "index.getContainerByIndex", params: map[string]any{"index": 0, "encoding": "cb58"}, code: -32602, message: `"encoding"`},
		{name: "by index, encoding empty", method: "index.getContainerByIndex", params: map[string]any{"index": 0, "encoding": ""}, code: -32602, message: `"encoding"`},
		{name: "by index, encoding a number", method: "index.getContainerByIndex", params: map[string]any{"index": 0, "encoding": 1}, code: -32602, message: `"encoding"`},
		// getContainerByID
		{name: "by ID", method: "index.getContainerByID", params: map[string]any{"id": id(2), "encoding": "hex"}, want: wires[1]},
		{name: "by unknown ID", method: "index.getContainerByID", params: map[string]any{"id": unknown, "encoding": "hex"}, code: -32000, message: "no container with ID " + unknown},
		{name: "by ID not CB58", method: "index.getContainerByID", params: map[string]any{"id": "0xabc", "encoding": "hex"}, code: -32602, message: `"id"`},
		{name: "by ID with bad checksum", method: "index.getContainerByID", params: map[string]any{"id": "11111111111111111111111111111111LpoYZ"}, code: -32602, message: `"id"`},
		{name: "by ID missing", method: "index.getContainerByID", params: map[string]any{"encoding": "hex"}, code: -32602, message: `missing param "id"`},
		{name: "by containerID (not a param)", method: "index.getContainerByID", params: map[string]any{"containerID": id(1)}, code: -32602, message: "containerID"},
		// getIndex
		{name: "index of ID", method: "index.getIndex", params: map[string]any{"id": id(3), "encoding": "hex"}, want: `{"index":"2"}`},
		{name: "index of unknown ID", method: "index.getIndex", params: map[string]any{"id": unknown}, code: -32000, message: "no container with ID " + unknown},
		{name: "index of ID not CB58", method: "index.getIndex", params: map[string]any{"id": "nope"}, code: -32602, message: `"id"`},
		// isAccepted
		{name: "accepted", method: "index.isAccepted", params: map[string]any{"id": id(1), "encoding": "hex"}, want: `{"isAccepted":true}`},
		{name: "not accepted", method: "index.isAccepted", params: map[string]any{"id": unknown, "encoding": "hex"}, want: `{"isAccepted":false}`},
		{name: "accepted, ID not CB58", method: "index.isAccepted", params: map[string]any{"id": 12}, code: -32602, message: `"id"`},
		{name: "accepted, encoding wrong", method: "index.isAccepted", params: map[string]any{"id": id(1), "encoding": "base64"}, code: -32602, message: `"encoding"`},
		// getLastAccepted
		{name: "last accepted", method: "index.getLastAccepted", params: map[string]any{"encoding": "hex"}, want: wires[2]},
		{name: "last accepted, no params", method: "index.getLastAccepted", params: nil, want: wires[2]},
		{name: "last accepted, empty index", url: emptyURL, method: "index.getLastAccepted", params: map[string]any{"encoding": "hex"}, code: -32000, message: "no containers have been accepted"},
		{name: "last accepted, encoding wrong", method: "index.getLastAccepted", params: map[string]any{"encoding": "x"}, code: -32602, message: `"encoding"`},
		// getContainerRange, the rules of docs/index.md
		{name: "range", method: "index.getContainerRange", params: map[string]any{"startIndex": 0, "numToFetch": 3, "encoding": "hex"}, want: "[" + strings.Join(wires, ",") + "]"},
		{name: "range, numbers as strings", method: "index.getContainerRange", params: map[string]any{"startIndex": "1", "numToFetch": "1"}, want: "[" + wires[1] + "]"},
		{name: "rule 1: numToFetch 0", method: "index.getContainerRange", params: map[string]any{"startIndex": 0, "numToFetch": 0, "encoding": "hex"}, want: `[]`},
		{name: "rule 1: numToFetch 0 past the end", method: "index.getContainerRange", params: map[string]any{"startIndex": 99, "numToFetch": 0}, want: `[]`},
		{name: "rule 1: numToFetch 0 on an empty index", url: emptyURL, method: "index.getContainerRange", params: map[string]any{"startIndex": 0, "numToFetch": 0}, want: `[]`},
		{name: "rule 2: start past the last index", method: "index.getContainerRange", params: map[string]any{"startIndex": 3, "numToFetch": 1}, code: -32000, message: "start index (3) > last accepted index (2)"},
		{name: "rule 2: start far past", method: "index.getContainerRange", params: map[string]any{"startIndex": "18446744073709551615", "numToFetch": 1}, code: -32000, message: "start index (18446744073709551615) > last accepted index (2)"},
		{name: "rule 2: empty index", url: emptyURL, method: "index.getContainerRange", params: map[string]any{"startIndex": 0, "numToFetch": 1}, code: -32000, message: "no containers have been accepted"},
		{name: "rule 3: numToFetch 1025", method: "index.getContainerRange", params: map[string]any{"startIndex": 0, "numToFetch": 1025}, code: -32602, message: `"numToFetch" must be at most 1024, got 1025`},
		{name: "rule 3: numToFetch 1024 allowed", method: "index.getContainerRange", params: map[string]any{"startIndex": 2, "numToFetch": 1024}, want: "[" + wires[2] + "]"},
		{name: "rule 3 before rule 2", method: "index.getContainerRange", params: map[string]any{"startIndex": 50, "numToFetch": 5000}, code: -32602, message: `"numToFetch"`},
		{name: "rule 4: short tail", method: "index.getContainerRange", params: map[string]any{"startIndex": 1, "numToFetch": 10}, want: "[" + wires[1] + "," + wires[2] + "]"},
		{name: "range, encoding wrong", method: "index.getContainerRange", params: map[string]any{"startIndex": 0, "numToFetch": 1, "encoding": "json"}, code: -32602, message: `"encoding"`},
		{name: "range, negative start", method: "index.getContainerRange", params: map[string]any{"startIndex": -1, "numToFetch": 1}, code: -32602, message: `"startIndex"`},
		// Framing: params may be an array holding the object.
		{name: "params as a one-object array", method: "index.getIndex", params: []any{map[string]any{"id": id(1)}}, want: `{"index":"0"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := url
			if tc.url != "" {
				u = tc.url
			}
			got, rpcErr := call(t, u, tc.method, tc.params)
			if tc.code != 0 {
				if rpcErr == nil {
					t.Fatalf("result %s, want error %d %q", got, tc.code, tc.message)
				}
				if rpcErr.Code != tc.code || !strings.Contains(rpcErr.Message, tc.message) {
					t.Fatalf("error %d %q, want %d containing %q", rpcErr.Code, rpcErr.Message, tc.code, tc.message)
				}
				return
			}
			if rpcErr != nil {
				t.Fatalf("error %d %q", rpcErr.Code, rpcErr.Message)
			}
			if string(got) != tc.want {
				t.Fatalf("result\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

// TestServiceWireFormats reads answers the way a client would and checks
// they give back what was accepted.
func TestServiceWireFormats(t *testing.T) {
	ix, _, _ := serviceIndex(t)
	url := serve(t, ix, ServiceOptions{})
	raw, rpcErr := call(t, url, "index.getContainerRange", map[string]any{"startIndex": 0, "numToFetch": 3, "encoding": "hex"})
	if rpcErr != nil {
		t.Fatal(rpcErr)
	}
	var got []map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(got) != len(serviceStamps) {
		t.Fatalf("%d containers, want %d", len(got), len(serviceStamps))
	}
	for k, c := range got {
		want := entry(uint64(k) + 1)
		keys := make([]string, 0, len(c))
		for key, v := range c {
			keys = append(keys, key)
			if _, ok := v.(string); !ok {
				t.Fatalf("container %d: %s is %T, want a string", k, key, v)
			}
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"bytes", "encoding", "id", "index", "timestamp"}) {
			t.Fatalf("container %d: fields %v", k, keys)
		}
		if id, err := ids.FromString(c["id"].(string)); err != nil || id != want.ID {
			t.Fatalf("container %d: id %q decodes to %s, %v; want %s", k, c["id"], id, err, want.ID)
		}
		b, err := ids.DecodeHexWithChecksum(c["bytes"].(string))
		if err != nil || !bytes.Equal(b, want.Bytes) {
			t.Fatalf("container %d: bytes %q decode to %x, %v; want %x", k, c["bytes"], b, err, want.Bytes)
		}
		ts, err := time.Parse(time.RFC3339, c["timestamp"].(string))
		if err != nil || !ts.Equal(serviceStamps[k].ts) {
			t.Fatalf("container %d: timestamp %q parses to %s, %v; want %s", k, c["timestamp"], ts, err, serviceStamps[k].ts)
		}
		if c["index"] != string(rune('0'+k)) || c["encoding"] != "hex" {
			t.Fatalf("container %d: index %q encoding %q", k, c["index"], c["encoding"])
		}
	}
}

// post sends a raw JSON-RPC body and returns the HTTP response and body.
func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, string(data)
}

func TestServiceIncompleteHeader(t *testing.T) {
	ix, _, wires := serviceIndex(t)
	const lastAccepted = `{"jsonrpc":"2.0","id":7,"method":"index.getLastAccepted","params":{"encoding":"hex"}}`
	const failing = `{"jsonrpc":"2.0","id":8,"method":"index.getContainerByIndex","params":{"index":99}}`
	tests := []struct {
		name       string
		incomplete bool
		body       string
		wantHeader string
		wantBody   string
	}{
		{"complete", false, lastAccepted, "", `{"jsonrpc":"2.0","result":` + wires[2] + `,"id":7}`},
		{"incomplete, same result", true, lastAccepted, "true", `{"jsonrpc":"2.0","result":` + wires[2] + `,"id":7}`},
		{"incomplete, error answer", true, failing, "true", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"no container at index 99"},"id":8}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := serve(t, ix, ServiceOptions{Incomplete: tc.incomplete})
			resp, body := post(t, url, tc.body)
			if got := resp.Header.Get(HeaderIncomplete); got != tc.wantHeader {
				t.Fatalf("%s = %q, want %q", HeaderIncomplete, got, tc.wantHeader)
			}
			if body != tc.wantBody {
				t.Fatalf("body\n %s\nwant\n %s", body, tc.wantBody)
			}
		})
	}
}

func TestServiceOptions(t *testing.T) {
	ix, _, _ := serviceIndex(t)
	var calls atomic.Int64
	var lastErr atomic.Pointer[jsonrpc.Error]
	url := serve(t, ix, ServiceOptions{
		MaxBatchSize: 2,
		OnCall: func(method string, _ time.Duration, err *jsonrpc.Error) {
			calls.Add(1)
			lastErr.Store(err)
		},
	})
	one := `{"jsonrpc":"2.0","id":1,"method":"index.isAccepted","params":{"id":"` + entry(1).ID.String() + `"}}`

	_, body := post(t, url, "["+one+","+one+"]")
	if want := `[{"jsonrpc":"2.0","result":{"isAccepted":true},"id":1},{"jsonrpc":"2.0","result":{"isAccepted":true},"id":1}]`; body != want {
		t.Fatalf("batch of 2: %s", body)
	}
	if calls.Load() != 2 || lastErr.Load() != nil {
		t.Fatalf("OnCall ran %d times, last error %v; want 2, nil", calls.Load(), lastErr.Load())
	}
	_, body = post(t, url, "["+one+","+one+","+one+"]")
	if !strings.Contains(body, "batch of 3 items exceeds the limit of 2") {
		t.Fatalf("batch of 3: %s", body)
	}
	if _, rpcErr := call(t, url, "index.getContainerByIndex", map[string]any{"index": 50}); rpcErr == nil {
		t.Fatal("getContainerByIndex 50 succeeded")
	}
	if e := lastErr.Load(); e == nil || e.Message != "no container at index 50" {
		t.Fatalf("OnCall error = %v", e)
	}

	want := []string{"index.getContainerByID", "index.getContainerByIndex", "index.getContainerRange",
		"index.getIndex", "index.getLastAccepted", "index.isAccepted"}
	if got := newService(ix, ServiceOptions{}).Methods(); !slices.Equal(got, want) {
		t.Fatalf("methods %v, want %v", got, want)
	}
}
