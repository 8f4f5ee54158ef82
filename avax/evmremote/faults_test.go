package evmremote_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/internal/gethtest"
	"github.com/chainhost/chainhost/internal/tracetest"
	"github.com/chainhost/chainhost/sdk/plugintest"
)

// rpcMsg is a JSON-RPC request or answer.
type rpcMsg struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  []json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage   `json:"result,omitempty"`
	Error   *rpcErr           `json:"error,omitempty"`
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// proxy stands between a Client and a real node and changes what the node
// answers: the node a test needs (one without a method, one that lies)
// made of a real one.
type proxy struct {
	node *rpc.Client
	// raw, when set, answers every HTTP request itself.
	raw http.HandlerFunc
	// missing methods are answered "method not found" (-32601).
	missing map[string]bool
	// serve answers a method itself.
	serve map[string]func(params []json.RawMessage) (any, error)
	// edit changes the node's result of a method (decoded as any).
	edit  map[string]func(params []json.RawMessage, result any) any
	calls map[string]*atomic.Int64 // requests by method, for the methods of calls
}

func newProxy(t *testing.T, nodeURL string, p *proxy) string {
	t.Helper()
	node, err := rpc.Dial(nodeURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	p.node = node
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.raw != nil {
		p.raw(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var reqs []rpcMsg
	batch := strings.HasPrefix(strings.TrimSpace(string(body)), "[")
	if batch {
		_ = json.Unmarshal(body, &reqs)
	} else {
		reqs = make([]rpcMsg, 1)
		_ = json.Unmarshal(body, &reqs[0])
	}
	out := make([]rpcMsg, len(reqs))
	for i, req := range reqs {
		out[i] = p.answer(r.Context(), req)
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		_ = json.NewEncoder(w).Encode(out)
	} else {
		_ = json.NewEncoder(w).Encode(out[0])
	}
}

func (p *proxy) answer(ctx context.Context, req rpcMsg) rpcMsg {
	ans := rpcMsg{JSONRPC: "2.0", ID: req.ID}
	if n := p.calls[req.Method]; n != nil {
		n.Add(1)
	}
	var result any
	var err error
	switch {
	case p.missing[req.Method]:
		err = &rpcErr{-32601, fmt.Sprintf("the method %s does not exist/is not available", req.Method)}
	case p.serve[req.Method] != nil:
		result, err = p.serve[req.Method](req.Params)
	default:
		args := make([]any, len(req.Params))
		for i := range req.Params {
			args[i] = req.Params[i]
		}
		var raw json.RawMessage
		if err = p.node.CallContext(ctx, &raw, req.Method, args...); err == nil {
			_ = json.Unmarshal(raw, &result)
			if e := p.edit[req.Method]; e != nil {
				result = e(req.Params, result)
			}
		}
	}
	if err != nil {
		var re rpc.Error
		if errors.As(err, &re) {
			ans.Error = &rpcErr{re.ErrorCode(), re.Error()}
		} else {
			ans.Error = &rpcErr{-32000, err.Error()}
		}
		return ans
	}
	ans.Result, _ = json.Marshal(result)
	return ans
}

func (e *rpcErr) Error() string  { return e.Message }
func (e *rpcErr) ErrorCode() int { return e.Code }

// quantity is a hex quantity parameter.
func quantity(t *testing.T, raw json.RawMessage) uint64 {
	var q hexutil.Uint64
	if err := json.Unmarshal(raw, &q); err != nil {
		t.Fatalf("quantity %s: %v", raw, err)
	}
	return uint64(q)
}

// toParity converts the call tracer's answer for a block into trace_block's
// (Parity's) format: the frames depth first, each with its path.
func toParity(block uint64, res []struct {
	TxHash string          `json:"txHash"`
	Result tracetest.Frame `json:"result"`
}) []any {
	var out []any
	var walk func(i int, tx string, f tracetest.Frame, path []int)
	walk = func(i int, tx string, f tracetest.Frame, path []int) {
		action := map[string]any{"from": f.From, "gas": f.Gas, "value": f.Value}
		typ := "call"
		var result map[string]any
		switch f.Type {
		case "CREATE", "CREATE2":
			typ = "create"
			action["creationMethod"] = strings.ToLower(f.Type)
			if f.Error == "" {
				result = map[string]any{"gasUsed": f.GasUsed, "address": f.To}
			}
		case "SELFDESTRUCT":
			typ = "suicide"
			action = map[string]any{"address": f.From, "refundAddress": f.To, "balance": f.Value}
		default:
			action["callType"] = strings.ToLower(f.Type)
			action["to"] = f.To
			if f.Value == nil {
				action["value"] = "0x0"
			}
		}
		if typ == "call" && f.Error == "" {
			result = map[string]any{"gasUsed": f.GasUsed, "output": "0x"}
		}
		tr := map[string]any{
			"type": typ, "action": action, "result": result, "traceAddress": append([]int{}, path...),
			"subtraces": len(f.Calls), "transactionHash": tx, "transactionPosition": i, "blockNumber": block,
		}
		if f.Error != "" {
			tr["error"] = f.Error
		}
		out = append(out, tr)
		for j, sub := range f.Calls {
			walk(i, tx, sub, append(path, j))
		}
	}
	for i, r := range res {
		walk(i, r.TxHash, r.Result, []int{})
	}
	// A block reward, which has no transaction.
	out = append(out, map[string]any{"type": "reward", "action": map[string]any{"author": bob, "rewardType": "block", "value": "0x1"}, "traceAddress": []int{}})
	return out
}

// TestFaults reads geth --dev's chain through proxies that make it a node
// without a method, or a failing or lying node: the blocks read through a
// node that lacks a method are those read directly, and a bad answer is
// refused with the state Classify names.
func TestFaults(t *testing.T) {
	url, _ := gethtest.Start(t)
	txs := activity(t, url, devAccount(t, url), nil)
	direct := readAll(t, dial(t, url), 4)
	ctx := context.Background()
	mixedBlock := uint64(0)
	for _, b := range direct {
		for _, tx := range b.Transactions {
			if tx.Hash == txs["mixed"] {
				mixedBlock = uint64(b.Number)
			}
		}
	}

	t.Run("no eth_getBlockReceipts", func(t *testing.T) {
		perTx := &atomic.Int64{}
		c := dial(t, newProxy(t, url, &proxy{
			missing: map[string]bool{"eth_getBlockReceipts": true},
			calls:   map[string]*atomic.Int64{"eth_getTransactionReceipt": perTx},
		}))
		sameBlocks(t, readAll(t, c, 4), direct)
		if perTx.Load() < int64(len(txs)) {
			t.Fatalf("%d eth_getTransactionReceipt requests for %d transactions", perTx.Load(), len(txs))
		}
	})

	t.Run("trace_block", func(t *testing.T) {
		traced := &atomic.Int64{}
		var p proxy
		p = proxy{
			missing: map[string]bool{"debug_traceBlockByHash": true, "debug_traceBlockByNumber": true},
			calls:   map[string]*atomic.Int64{"trace_block": traced},
			serve: map[string]func([]json.RawMessage) (any, error){"trace_block": func(params []json.RawMessage) (any, error) {
				n := quantity(t, params[0])
				var res []struct {
					TxHash string          `json:"txHash"`
					Result tracetest.Frame `json:"result"`
				}
				if err := p.node.CallContext(ctx, &res, "debug_traceBlockByNumber", hexutil.Uint64(n), map[string]string{"tracer": "callTracer"}); err != nil {
					return nil, err
				}
				return toParity(n, res), nil
			}},
		}
		c := dial(t, newProxy(t, url, &p))
		got := readAll(t, c, 4)
		if c.Tracing() != evmremote.TracingTrace || traced.Load() == 0 {
			t.Fatalf("Tracing() = %q after %d trace_block requests, want %q", c.Tracing(), traced.Load(), evmremote.TracingTrace)
		}
		// Parity reports no gas used of a failed frame below the top.
		want := cloneBlocks(t, direct)
		for i := range want {
			for j := range want[i].Transactions {
				for k := range want[i].Transactions[j].Calls {
					if f := &want[i].Transactions[j].Calls[k]; f.Depth > 0 && f.Reverted {
						f.GasUsed = 0
					}
				}
			}
		}
		sameBlocks(t, got, want)
	})

	t.Run("no tracer", func(t *testing.T) {
		c := dial(t, newProxy(t, url, &proxy{missing: map[string]bool{
			"debug_traceBlockByHash": true, "debug_traceBlockByNumber": true, "trace_block": true,
		}}))
		got := readAll(t, c, 4)
		if c.Tracing() != evmremote.TracingNone {
			t.Fatalf("Tracing() = %q, want %q", c.Tracing(), evmremote.TracingNone)
		}
		// Each transaction's only frame is its own call, as the call
		// tracer reports it.
		want := cloneBlocks(t, direct)
		for i := range want {
			for j := range want[i].Transactions {
				want[i].Transactions[j].Calls = want[i].Transactions[j].Calls[:1]
			}
		}
		sameBlocks(t, got, want)
	})

	t.Run("Call", func(t *testing.T) {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)
		status, resp, err := dial(t, url).Call(ctx, "any chain", "any handler", body)
		if err != nil || status != http.StatusOK || !strings.Contains(string(resp), `"result":"0x539"`) {
			t.Fatalf("Call = %d %s %v, want 200 and chain 1337", status, resp, err)
		}
		failing := newProxy(t, url, &proxy{raw: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}})
		status, resp, err = dial(t, failing).Call(ctx, "", "", body)
		if status != http.StatusInternalServerError || !strings.Contains(string(resp), "boom") || evmremote.Classify(err) != evmremote.StateHTTPError {
			t.Fatalf("Call = %d %s %v, want the node's 500, its body and an http-error", status, resp, err)
		}
	})

	// Answers refused.
	block := func(edit func(b map[string]any)) map[string]func([]json.RawMessage, any) any {
		return map[string]func([]json.RawMessage, any) any{"eth_getBlockByNumber": func(params []json.RawMessage, res any) any {
			if b, ok := res.(map[string]any); ok && quantity(t, params[0]) == mixedBlock {
				edit(b)
			}
			return res
		}}
	}
	firstTx := func(b map[string]any) map[string]any { return b["transactions"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		name  string
		p     proxy
		max   int64
		state string
		is    error
	}{
		{name: "429", state: evmremote.StateRateLimited, p: proxy{raw: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}}},
		{name: "500", state: evmremote.StateHTTPError, p: proxy{raw: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}}},
		{name: "garbage", state: evmremote.StateMalformed, p: proxy{raw: func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "<html>not JSON")
		}}},
		{name: "JSON that ends early", state: evmremote.StateMalformed, p: proxy{raw: func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `[{"jsonrpc":"2.0","id":1,"result":{"number":"0x1"}}`)
		}}},
		{name: "answer cut by the connection", state: evmremote.StateUnreachable, p: proxy{raw: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", "1000")
			_, _ = io.WriteString(w, `[{"jsonrpc":"2.0","id":1,"result":{"number":"0x1"}}`)
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
		}}},
		{name: "endless body", state: evmremote.StateMalformed, is: evmremote.ErrTooLarge, max: 1 << 20, p: proxy{raw: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, `[{"jsonrpc":"2.0","id":1,"result":"`)
			chunk := strings.Repeat("a", 64<<10)
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}}},
		{name: "over the limit", state: evmremote.StateMalformed, is: evmremote.ErrTooLarge, max: 2000},
		{name: "wrong JSON type", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: block(func(b map[string]any) {
			b["gasUsed"] = 5
		})}},
		{name: "another block's number", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: block(func(b map[string]any) {
			b["number"] = "0x99"
		})}},
		{name: "unlinked blocks", state: evmremote.StateReorg, is: evmremote.ErrReorg, p: proxy{edit: map[string]func([]json.RawMessage, any) any{
			"eth_getBlockByNumber": func(params []json.RawMessage, res any) any {
				if b, ok := res.(map[string]any); ok && quantity(t, params[0]) == mixedBlock {
					b["parentHash"] = "0x" + strings.Repeat("11", 32)
				}
				return res
			}}}},
		{name: "transaction changed", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: block(func(b map[string]any) {
			firstTx(b)["value"] = "0x1"
		})}},
		{name: "transaction of another block", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: block(func(b map[string]any) {
			firstTx(b)["blockHash"] = "0x" + strings.Repeat("22", 32)
		})}},
		{name: "receipt of another block", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: map[string]func([]json.RawMessage, any) any{
			"eth_getBlockReceipts": func(_ []json.RawMessage, res any) any {
				res.([]any)[0].(map[string]any)["blockHash"] = "0x" + strings.Repeat("33", 32)
				return res
			}}}},
		{name: "a receipt fewer", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: map[string]func([]json.RawMessage, any) any{
			"eth_getBlockReceipts": func(_ []json.RawMessage, res any) any { return res.([]any)[1:] }}}},
		{name: "log changed", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: map[string]func([]json.RawMessage, any) any{
			"eth_getBlockReceipts": func(_ []json.RawMessage, res any) any {
				for _, r := range res.([]any) {
					if logs := r.(map[string]any)["logs"].([]any); len(logs) > 0 {
						logs[0].(map[string]any)["data"] = "0x01"
						break
					}
				}
				return res
			}}}},
		{name: "trace of another transaction", state: evmremote.StateMalformed, is: evmremote.ErrMalformed, p: proxy{edit: map[string]func([]json.RawMessage, any) any{
			"debug_traceBlockByHash": func(_ []json.RawMessage, res any) any {
				res.([]any)[0].(map[string]any)["txHash"] = "0x" + strings.Repeat("44", 32)
				return res
			}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := evmremote.Dial(ctx, evmremote.Options{URL: newProxy(t, url, &tc.p), MaxResponseBytes: tc.max, Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			got, err := c.Blocks(ctx, mixedBlock-1, 2)
			if err == nil {
				t.Fatalf("Blocks answered %d blocks, want an error", len(got))
			}
			if s := evmremote.Classify(err); s != tc.state {
				t.Fatalf("Classify(%v) = %q, want %q", err, s, tc.state)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want %v", err, tc.is)
			}
			if tc.name == "429" {
				if d, ok := evmremote.RetryAfter(err); !ok || d != 7*time.Second {
					t.Fatalf("RetryAfter(%v) = %s, %v; want 7s", err, d, ok)
				}
			}
			t.Logf("%s: %v", evmremote.Classify(err), err)
		})
	}
}

// cloneBlocks returns a deep copy of blocks.
func cloneBlocks(t *testing.T, blocks []evmapi.Block) []evmapi.Block {
	t.Helper()
	b, err := json.Marshal(blocks)
	if err != nil {
		t.Fatal(err)
	}
	var out []evmapi.Block
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameBlocks fails t at the first block or transaction of got whose JSON
// is not want's.
func sameBlocks(t *testing.T, got, want []evmapi.Block) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		for j := range min(len(g.Transactions), len(w.Transactions)) {
			if !jsonEqual(t, g.Transactions[j], w.Transactions[j]) {
				gj, _ := json.Marshal(g.Transactions[j])
				wj, _ := json.Marshal(w.Transactions[j])
				t.Fatalf("block %d transaction %d:\n%s\nwant\n%s", g.Number, j, gj, wj)
			}
		}
		if !jsonEqual(t, g, w) {
			t.Fatalf("block %d: %+v, want %+v", g.Number, g, w)
		}
	}
}

// gethBatchLimit is the most requests geth answers in one batch by
// default.
const gethBatchLimit = 1000

// TestLargeBatches: blocks whose receipts take more requests than a node
// answers in one batch (a node without eth_getBlockReceipts, one request
// per transaction) are read in several batches, none over the limit.
func TestLargeBatches(t *testing.T) {
	url, _ := gethtest.Start(t)
	ctx := context.Background()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	from := devAccount(t, url)
	const txs = gethBatchLimit + 100
	for start := 0; start < txs; start += 100 {
		elems := make([]rpc.BatchElem, 100)
		for i := range elems {
			tx := map[string]any{"from": from, "to": bob, "value": "0x1", "gas": "0x5208", "nonce": hexutil.Uint64(start + i)}
			elems[i] = rpc.BatchElem{Method: "eth_sendTransaction", Args: []any{tx}, Result: new(string)}
		}
		if err := c.BatchCallContext(ctx, elems); err != nil {
			t.Fatal(err)
		}
		for _, e := range elems {
			if e.Error != nil {
				t.Fatal(e.Error)
			}
		}
	}
	var head hexutil.Uint64
	plugintest.Eventually(t, time.Minute, func() error {
		var n hexutil.Uint64
		if err := c.CallContext(ctx, &n, "eth_getTransactionCount", from, "latest"); err != nil {
			return err
		}
		if n < txs {
			return fmt.Errorf("%d of %d transactions mined", n, txs)
		}
		return c.CallContext(ctx, &head, "eth_blockNumber")
	})

	var most atomic.Int64
	p := &proxy{missing: map[string]bool{"eth_getBlockReceipts": true}}
	u := newProxy(t, url, p)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) == nil && int64(len(batch)) > most.Load() {
			most.Store(int64(len(batch)))
		}
		if len(batch) > gethBatchLimit {
			http.Error(w, "batch too large", http.StatusRequestEntityTooLarge)
			return
		}
		resp, err := http.Post(u, "application/json", strings.NewReader(string(body)))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		_, _ = io.Copy(w, resp.Body)
	}))
	defer counting.Close()
	blocks, err := dial(t, counting.URL).Blocks(ctx, 1, int(head))
	if err != nil {
		t.Fatalf("Blocks: %v (largest batch %d)", err, most.Load())
	}
	read := 0
	for _, b := range blocks {
		read += len(b.Transactions)
	}
	if read != txs || most.Load() > gethBatchLimit {
		t.Fatalf("read %d of %d transactions, largest batch %d (limit %d)", read, txs, most.Load(), gethBatchLimit)
	}
}
