package jsonrpc

import (
	"bytes"
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

	"github.com/chainhost/chainhost/sdk/ids"
)

// echoParams exercises typed params: Uint64, a plain unsigned field and an
// ID with a custom text unmarshaler.
type echoParams struct {
	Index Uint64 `json:"index"`
	Count uint32 `json:"count,omitempty"`
	Name  string `json:"name,omitempty"`
	ID    ids.ID `json:"id,omitzero"`
}

// rangeParams checks itself after decoding.
type rangeParams struct {
	NumToFetch Uint64 `json:"numToFetch"`
}

// Validate rejects more than 1024 items, like index.getContainerRange.
func (p rangeParams) Validate() error {
	if p.NumToFetch > 1024 {
		return fmt.Errorf("numToFetch %d exceeds the maximum of 1024", p.NumToFetch)
	}
	return nil
}

// testServer is a Server with the methods the framing tests call.
type testServer struct {
	*Server
	counted atomic.Int64 // calls of test.count
}

func newTestServer(t *testing.T, opts Options) *testServer {
	t.Helper()
	ts := &testServer{Server: NewServer(opts)}
	ts.Register("test.echo", Method(func(_ context.Context, p echoParams) (echoParams, error) {
		return p, nil
	}))
	ts.Register("test.none", Method(func(_ context.Context, _ struct{}) (map[string]bool, error) {
		return map[string]bool{"ok": true}, nil
	}))
	ts.Register("test.range", Method(func(_ context.Context, p rangeParams) (Uint64, error) {
		return p.NumToFetch, nil
	}))
	ts.Register("test.count", Method(func(_ context.Context, _ struct{}) (struct{}, error) {
		ts.counted.Add(1)
		return struct{}{}, nil
	}))
	ts.Register("test.fail", func(context.Context, json.RawMessage) (any, error) {
		return nil, errors.New("boom")
	})
	ts.Register("test.wrapped", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("look up: %w", NewError(-32001, "not ready"))
	})
	ts.Register("test.typednil", func(context.Context, json.RawMessage) (any, error) {
		var e *Error
		return "fine", e
	})
	ts.Register("test.panic", func(context.Context, json.RawMessage) (any, error) {
		panic("secret detail")
	})
	ts.Register("test.badresult", func(context.Context, json.RawMessage) (any, error) {
		return make(chan int), nil
	})
	ts.Register("test.header", func(ctx context.Context, _ json.RawMessage) (any, error) {
		return RequestFromContext(ctx).Header.Get("X-Test"), nil
	})
	return ts
}

// wantResp is one expected response object: an error (code != 0) or a result.
type wantResp struct {
	id        string // raw JSON of the id
	code      int
	msg       string
	msgPrefix bool   // msg is a prefix of the message
	result    string // compact JSON of the result
}

// gotResp is a response object as read from the wire.
type gotResp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func checkResp(t *testing.T, got gotResp, want wantResp) {
	t.Helper()
	if got.JSONRPC != "2.0" {
		t.Errorf("jsonrpc = %q, want 2.0", got.JSONRPC)
	}
	if string(got.ID) != want.id {
		t.Errorf("id = %s, want %s", got.ID, want.id)
	}
	if want.code != 0 {
		if got.Error == nil {
			t.Fatalf("no error, want code %d (result %s)", want.code, got.Result)
		}
		if got.Result != nil {
			t.Errorf("result %s beside an error", got.Result)
		}
		if got.Error.Code != want.code {
			t.Errorf("code = %d, want %d (message %q)", got.Error.Code, want.code, got.Error.Message)
		}
		if want.msgPrefix && !strings.HasPrefix(got.Error.Message, want.msg) ||
			!want.msgPrefix && got.Error.Message != want.msg {
			t.Errorf("message = %q, want %q (prefix %v)", got.Error.Message, want.msg, want.msgPrefix)
		}
		return
	}
	if got.Error != nil {
		t.Fatalf("error %d %q, want result %s", got.Error.Code, got.Error.Message, want.result)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, got.Result); err != nil {
		t.Fatalf("result %q: %v", got.Result, err)
	}
	if compact.String() != want.result {
		t.Errorf("result = %s, want %s", compact.String(), want.result)
	}
}

// post sends body to url the way a client would.
func post(t *testing.T, url, httpMethod, contentType, body string, chunked bool) *http.Response {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // hides the length: sent chunked
	}
	req, err := http.NewRequestWithContext(t.Context(), httpMethod, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("X-Test", "from-header")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// req builds a request object text.
func req(id, method, params string) string {
	s := `{"jsonrpc":"2.0"`
	if id != "" {
		s += `,"id":` + id
	}
	s += `,"method":"` + method + `"`
	if params != "" {
		s += `,"params":` + params
	}
	return s + "}"
}

// batch joins request texts into a batch.
func batch(items ...string) string {
	return "[" + strings.Join(items, ",") + "]"
}

// repeated returns n echo requests with ids 1..n, and their answers.
func repeated(n int) (string, []wantResp) {
	items := make([]string, n)
	want := make([]wantResp, n)
	for i := range n {
		items[i] = req(fmt.Sprint(i+1), "test.echo", fmt.Sprintf(`{"index":%d}`, i))
		want[i] = wantResp{id: fmt.Sprint(i + 1), result: fmt.Sprintf(`{"index":"%d"}`, i)}
	}
	return batch(items...), want
}

// TestFraming is the table of the JSON-RPC framing rules of
// docs/api/jsonrpc.md, over real HTTP.
func TestFraming(t *testing.T) {
	const (
		maxBatch = 40
		maxBody  = 4096
	)
	atLimit, atLimitWant := repeated(maxBatch)
	overLimit, _ := repeated(maxBatch + 1)
	underLimit, underLimitWant := repeated(2)
	badChecksum := ids.ID{}.String()[:len(ids.ID{}.String())-1] + "Z"
	note := req("", "test.count", "")

	tests := []struct {
		name        string
		httpMethod  string // POST when empty
		contentType string // application/json when empty; "none" sends none
		body        string
		chunked     bool
		wantStatus  int
		wantAllow   bool       // the Allow: POST header
		wantEmpty   bool       // no body at all
		want        *wantResp  // one response object
		wantBatch   []wantResp // an array of response objects
		wantCounted int64      // calls of test.count
	}{
		// HTTP level.
		{name: "GET is 405", httpMethod: http.MethodGet, body: "", wantStatus: 405, wantAllow: true,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: HTTP method GET not allowed, use POST"}},
		{name: "PUT is 405", httpMethod: http.MethodPut, body: req("1", "test.none", ""), wantStatus: 405, wantAllow: true,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: HTTP method PUT not allowed, use POST"}},
		{name: "text/plain is 415", contentType: "text/plain", body: req("1", "test.none", ""), wantStatus: 415,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: `invalid request: unsupported Content-Type "text/plain", want application/json`}},
		{name: "missing content type is 415", contentType: "none", body: req("1", "test.none", ""), wantStatus: 415,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: missing Content-Type, want application/json"}},
		{name: "non-utf-8 charset is 415", contentType: "application/json; charset=latin1", body: req("1", "test.none", ""), wantStatus: 415,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: `invalid request: unsupported charset "latin1", want utf-8`}},
		{name: "utf-8 charset is accepted", contentType: "application/json; charset=UTF-8", body: req("1", "test.none", ""), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"ok":true}`}},
		{name: "oversize body is 413", body: req("1", "test.echo", `{"name":"`+strings.Repeat("x", maxBody)+`"}`), wantStatus: 413,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: request body exceeds the limit of 4096 bytes"}},
		{name: "oversize chunked body is 413", chunked: true, body: req("1", "test.echo", `{"name":"`+strings.Repeat("x", maxBody)+`"}`), wantStatus: 413,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: request body exceeds the limit of 4096 bytes"}},
		{name: "body just under the limit is served", chunked: true, body: req("1", "test.echo", `{"name":"`+strings.Repeat("x", maxBody-200)+`"}`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"index":"0","name":"` + strings.Repeat("x", maxBody-200) + `"}`}},

		// Parse and request errors.
		{name: "malformed JSON", body: `{"jsonrpc":"2.0","id":1,`, wantStatus: 200,
			want: &wantResp{id: "null", code: CodeParseError, msg: "parse error: ", msgPrefix: true}},
		{name: "trailing garbage", body: req("1", "test.none", "") + "x", wantStatus: 200,
			want: &wantResp{id: "null", code: CodeParseError, msg: "parse error: ", msgPrefix: true}},
		{name: "empty body", body: "", wantStatus: 200,
			want: &wantResp{id: "null", code: CodeParseError, msg: "parse error: empty body"}},
		{name: "not an object", body: `5`, wantStatus: 200,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: want a JSON object"}},
		{name: "wrong jsonrpc version", body: `{"jsonrpc":"1.0","id":1,"method":"test.none"}`, wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidRequest, msg: `invalid request: "jsonrpc" must be "2.0"`}},
		{name: "jsonrpc as a number", body: `{"jsonrpc":2.0,"id":1,"method":"test.none"}`, wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidRequest, msg: `invalid request: "jsonrpc" must be "2.0"`}},
		{name: "missing jsonrpc without id is still answered", body: `{"method":"test.none"}`, wantStatus: 200,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: `invalid request: "jsonrpc" must be "2.0"`}},
		{name: "missing method", body: `{"jsonrpc":"2.0","id":7}`, wantStatus: 200,
			want: &wantResp{id: "7", code: CodeInvalidRequest, msg: `invalid request: "method" must be a non-empty string`}},
		{name: "method not a string", body: `{"jsonrpc":"2.0","id":7,"method":5}`, wantStatus: 200,
			want: &wantResp{id: "7", code: CodeInvalidRequest, msg: `invalid request: "method" must be a non-empty string`}},
		{name: "id of wrong type", body: `{"jsonrpc":"2.0","id":{"a":1},"method":"test.none"}`, wantStatus: 200,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: `invalid request: "id" must be a number, a string or null`}},
		{name: "id boolean", body: `{"jsonrpc":"2.0","id":true,"method":"test.none"}`, wantStatus: 200,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: `invalid request: "id" must be a number, a string or null`}},
		{name: "string id echoed", body: req(`"abc"`, "test.none", ""), wantStatus: 200,
			want: &wantResp{id: `"abc"`, result: `{"ok":true}`}},
		{name: "null id is answered", body: req("null", "test.none", ""), wantStatus: 200,
			want: &wantResp{id: "null", result: `{"ok":true}`}},
		{name: "big id echoed exactly", body: req("123456789012345678901234567890", "test.none", ""), wantStatus: 200,
			want: &wantResp{id: "123456789012345678901234567890", result: `{"ok":true}`}},
		{name: "unknown method", body: req("1", "test.nope", ""), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeMethodNotFound, msg: `method not found: "test.nope"`}},

		// Params shapes.
		{name: "object params", body: req("1", "test.echo", `{"index":3,"name":"a"}`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"index":"3","name":"a"}`}},
		{name: "one-element array params", body: req("1", "test.echo", `[{"index":3,"name":"a"}]`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"index":"3","name":"a"}`}},
		{name: "empty array params", body: req("1", "test.none", `[]`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"ok":true}`}},
		{name: "absent params", body: req("1", "test.none", ""), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"ok":true}`}},
		{name: "null params", body: req("1", "test.none", "null"), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"ok":true}`}},
		{name: "two-element array params", body: req("1", "test.echo", `[{"index":1},{"index":2}]`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: "invalid params: want an object or an array holding one object"}},
		{name: "array of a number", body: req("1", "test.echo", `[1]`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: "invalid params: want an object or an array holding one object"}},
		{name: "string params", body: req("1", "test.echo", `"x"`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidRequest, msg: `invalid request: "params" must be an object or an array`}},

		// Bad params, named.
		{name: "param of wrong type", body: req("1", "test.echo", `{"count":"x"}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "count": want an unsigned integer, got string`}},
		{name: "negative plain unsigned param", body: req("1", "test.echo", `{"count":-1}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "count": want an unsigned integer, got number -1`}},
		{name: "string where a string is wanted", body: req("1", "test.echo", `{"name":5}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "name": want a string, got number`}},
		{name: "unknown param", body: req("1", "test.echo", `{"indx":1}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: unknown param "indx"`}},
		{name: "unknown param in array form", body: req("1", "test.none", `[{"extra":true}]`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: unknown param "extra"`}},
		{name: "ID with a bad checksum", body: req("1", "test.echo", `{"id":"`+badChecksum+`"}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "id": parse ID "` + badChecksum + `": decode cb58: invalid checksum`}},
		{name: "ID of wrong JSON type", body: req("1", "test.echo", `{"id":5}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "id": want a string, got number`}},
		{name: "Validate error", body: req("1", "test.range", `{"numToFetch":1025}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: "invalid params: numToFetch 1025 exceeds the maximum of 1024"}},
		{name: "Validate passes", body: req("1", "test.range", `{"numToFetch":"1024"}`), wantStatus: 200,
			want: &wantResp{id: "1", result: `"1024"`}},

		// Uint64 params.
		{name: "uint64 as number", body: req("1", "test.echo", `{"index":12}`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"index":"12"}`}},
		{name: "uint64 as string", body: req("1", "test.echo", `{"index":"12"}`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"index":"12"}`}},
		{name: "uint64 max", body: req("1", "test.echo", `{"index":"18446744073709551615"}`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"index":"18446744073709551615"}`}},
		{name: "uint64 negative", body: req("1", "test.echo", `{"index":-1}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer, got -1`}},
		{name: "uint64 negative string", body: req("1", "test.echo", `{"index":"-1"}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer, got "-1"`}},
		{name: "uint64 fraction", body: req("1", "test.echo", `{"index":1.5}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer, got 1.5`}},
		{name: "uint64 exponent", body: req("1", "test.echo", `{"index":1e3}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer, got 1e3`}},
		{name: "uint64 hex", body: req("1", "test.echo", `{"index":"0x10"}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want a decimal unsigned integer, got "0x10"`}},
		{name: "uint64 overflow", body: req("1", "test.echo", `{"index":18446744073709551616}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer of at most 18446744073709551615, got 18446744073709551616`}},
		{name: "uint64 overflow string", body: req("1", "test.echo", `{"index":"18446744073709551616"}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer of at most 18446744073709551615, got "18446744073709551616"`}},
		{name: "uint64 empty string", body: req("1", "test.echo", `{"index":""}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer, got ""`}},
		{name: "uint64 boolean", body: req("1", "test.echo", `{"index":true}`), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeInvalidParams, msg: `invalid params: "index": want an unsigned integer, got boolean`}},
		{name: "uint64 null keeps zero", body: req("1", "test.echo", `{"index":null}`), wantStatus: 200,
			want: &wantResp{id: "1", result: `{"index":"0"}`}},

		// Method outcomes.
		{name: "plain error is -32000", body: req("1", "test.fail", ""), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeServerError, msg: "boom"}},
		{name: "wrapped *Error keeps its code", body: req("1", "test.wrapped", ""), wantStatus: 200,
			want: &wantResp{id: "1", code: -32001, msg: "not ready"}},
		{name: "typed nil *Error is success", body: req("1", "test.typednil", ""), wantStatus: 200,
			want: &wantResp{id: "1", result: `"fine"`}},
		{name: "panic is internal error", body: req("1", "test.panic", ""), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeServerError, msg: "internal error"}},
		{name: "unencodable result", body: req("1", "test.badresult", ""), wantStatus: 200,
			want: &wantResp{id: "1", code: CodeServerError, msg: "internal error: encode result: ", msgPrefix: true}},
		{name: "request reaches the method", body: req("1", "test.header", ""), wantStatus: 200,
			want: &wantResp{id: "1", result: `"from-header"`}},

		// Batches.
		{name: "batch under the limit", body: underLimit, wantStatus: 200, wantBatch: underLimitWant},
		{name: "batch at the limit", body: atLimit, wantStatus: 200, wantBatch: atLimitWant},
		{name: "batch over the limit", body: overLimit, wantStatus: 200,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: batch of 41 items exceeds the limit of 40"}},
		{name: "empty batch", body: `[]`, wantStatus: 200,
			want: &wantResp{id: "null", code: CodeInvalidRequest, msg: "invalid request: empty batch"}},
		{name: "batch items answered independently, in order", wantStatus: 200,
			body: batch(req("1", "test.fail", ""), `1`, req("3", "test.nope", ""), req("4", "test.echo", `{"index":"4"}`), req("5", "test.panic", "")),
			wantBatch: []wantResp{
				{id: "1", code: CodeServerError, msg: "boom"},
				{id: "null", code: CodeInvalidRequest, msg: "invalid request: want a JSON object"},
				{id: "3", code: CodeMethodNotFound, msg: `method not found: "test.nope"`},
				{id: "4", result: `{"index":"4"}`},
				{id: "5", code: CodeServerError, msg: "internal error"},
			}},

		// Notifications.
		{name: "notification runs, no answer", body: note, wantStatus: 200, wantEmpty: true, wantCounted: 1},
		{name: "notification of an unknown method, no answer", body: req("", "test.nope", ""), wantStatus: 200, wantEmpty: true},
		{name: "notification with bad params, no answer", body: req("", "test.count", `{"x":1}`), wantStatus: 200, wantEmpty: true},
		{name: "notification in a batch", body: batch(note, req("2", "test.none", ""), note), wantStatus: 200,
			wantBatch: []wantResp{{id: "2", result: `{"ok":true}`}}, wantCounted: 2},
		{name: "batch of only notifications", body: batch(note, note, note), wantStatus: 200, wantEmpty: true, wantCounted: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, Options{MaxBatchSize: maxBatch, MaxBodyBytes: maxBody})
			hs := httptest.NewServer(ts)
			defer hs.Close()

			httpMethod := tc.httpMethod
			if httpMethod == "" {
				httpMethod = http.MethodPost
			}
			ct := tc.contentType
			switch ct {
			case "":
				ct = "application/json"
			case "none":
				ct = ""
			}
			resp := post(t, hs.URL, httpMethod, ct, tc.body, tc.chunked)
			defer func() { _ = resp.Body.Close() }()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", resp.StatusCode, tc.wantStatus, body)
			}
			if got := resp.Header.Get("Allow"); tc.wantAllow && got != "POST" {
				t.Errorf("Allow = %q, want POST", got)
			}
			if got := ts.counted.Load(); got != tc.wantCounted {
				t.Errorf("test.count ran %d times, want %d", got, tc.wantCounted)
			}
			switch {
			case tc.wantEmpty:
				if len(body) != 0 {
					t.Fatalf("body = %s, want none", body)
				}
			case tc.want != nil:
				if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q, want application/json", ct)
				}
				var got gotResp
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatalf("response %s is not one object: %v", body, err)
				}
				checkResp(t, got, *tc.want)
			default:
				var got []gotResp
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatalf("response %s is not an array: %v", body, err)
				}
				if len(got) != len(tc.wantBatch) {
					t.Fatalf("%d responses, want %d: %s", len(got), len(tc.wantBatch), body)
				}
				for i := range got {
					checkResp(t, got[i], tc.wantBatch[i])
				}
			}
		})
	}
}

// TestWireShape pins the exact bytes of a success and an error response.
func TestWireShape(t *testing.T) {
	ts := newTestServer(t, Options{})
	hs := httptest.NewServer(ts)
	defer hs.Close()
	tests := []struct {
		name, body, want string
	}{
		{"success", req("1", "test.none", "{}"), `{"jsonrpc":"2.0","result":{"ok":true},"id":1}`},
		{"error", req("2", "test.fail", "{}"), `{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom"},"id":2}`},
		{"batch", batch(req("1", "test.none", ""), req("2", "test.fail", "")),
			`[{"jsonrpc":"2.0","result":{"ok":true},"id":1},{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom"},"id":2}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, hs.URL, http.MethodPost, "application/json", tc.body, false)
			defer func() { _ = resp.Body.Close() }()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("body = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestErrorData(t *testing.T) {
	ts := NewServer(Options{})
	ts.Register("test.data", func(context.Context, json.RawMessage) (any, error) {
		return nil, &Error{Code: CodeInvalidParams, Message: "invalid params: bad", Data: map[string]int{"max": 1024}}
	})
	ts.Register("test.baddata", func(context.Context, json.RawMessage) (any, error) {
		return nil, &Error{Code: -32001, Message: "odd", Data: make(chan int)}
	})
	hs := httptest.NewServer(ts)
	defer hs.Close()
	tests := []struct {
		method, want string
	}{
		{"test.data", `{"jsonrpc":"2.0","error":{"code":-32602,"message":"invalid params: bad","data":{"max":1024}},"id":1}`},
		{"test.baddata", `{"jsonrpc":"2.0","error":{"code":-32001,"message":"odd"},"id":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			resp := post(t, hs.URL, http.MethodPost, "application/json", req("1", tc.method, ""), false)
			defer func() { _ = resp.Body.Close() }()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("body = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestHooks(t *testing.T) {
	type call struct {
		method string
		code   int
	}
	var calls []call
	var panics []string
	ts := newTestServer(t, Options{
		OnCall: func(method string, dur time.Duration, err *Error) {
			if dur < 0 {
				t.Errorf("negative duration %v", dur)
			}
			c := call{method: method}
			if err != nil {
				c.code = err.Code
			}
			calls = append(calls, c)
		},
		OnPanic: func(method string, recovered any, stack []byte) {
			if !bytes.Contains(stack, []byte("server_test.go")) {
				t.Errorf("stack does not show the panicking method:\n%s", stack)
			}
			panics = append(panics, fmt.Sprintf("%s: %v", method, recovered))
		},
	})
	hs := httptest.NewServer(ts)
	defer hs.Close()
	body := batch(req("1", "test.none", ""), req("2", "test.nope", ""), req("3", "test.echo", `{"bad":1}`),
		req("4", "test.panic", ""), `{"id":5}`)
	resp := post(t, hs.URL, http.MethodPost, "application/json", body, false)
	_ = resp.Body.Close()

	wantCalls := []call{{"test.none", 0}, {"test.echo", CodeInvalidParams}, {"test.panic", CodeServerError}}
	if fmt.Sprint(calls) != fmt.Sprint(wantCalls) {
		t.Errorf("OnCall saw %v, want %v", calls, wantCalls)
	}
	if want := []string{"test.panic: secret detail"}; fmt.Sprint(panics) != fmt.Sprint(want) {
		t.Errorf("OnPanic saw %v, want %v", panics, want)
	}
}

func TestAbortHandlerPanicPropagates(t *testing.T) {
	ts := NewServer(Options{})
	ts.Register("test.abort", func(context.Context, json.RawMessage) (any, error) {
		panic(http.ErrAbortHandler)
	})
	hs := httptest.NewServer(ts)
	defer hs.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL, strings.NewReader(req("1", "test.abort", "")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("got HTTP %d, want the connection aborted", resp.StatusCode)
	}
}

func TestRegister(t *testing.T) {
	s := NewServer(Options{})
	noop := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	s.Register("b.two", noop)
	s.Register("a.one", noop)
	if got, want := fmt.Sprint(s.Methods()), "[a.one b.two]"; got != want {
		t.Errorf("Methods = %s, want %s", got, want)
	}
	tests := []struct {
		name    string
		method  string
		handler Handler
		want    string
	}{
		{"duplicate", "a.one", noop, `jsonrpc: method "a.one" registered twice`},
		{"empty name", "", noop, "jsonrpc: Register with an empty method name"},
		{"nil handler", "c.three", nil, `jsonrpc: Register "c.three" with a nil handler`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := recover(); got != tc.want {
					t.Fatalf("panic = %v, want %q", got, tc.want)
				}
			}()
			s.Register(tc.method, tc.handler)
		})
	}
}

func TestRequestFromContextOutsideACall(t *testing.T) {
	if r := RequestFromContext(t.Context()); r != nil {
		t.Fatalf("RequestFromContext = %v, want nil", r)
	}
}

func TestDefaults(t *testing.T) {
	s := NewServer(Options{MaxBatchSize: -1})
	if s.opts.MaxBatchSize != DefaultMaxBatchSize || s.opts.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Fatalf("options = %+v, want the defaults", s.opts)
	}
}

func TestMethodDirect(t *testing.T) {
	h := Method(func(_ context.Context, p echoParams) (string, error) {
		if p.Name == "nil-error" {
			var e *Error
			return "kept", e
		}
		return "index " + p.Index.String(), nil
	})
	tests := []struct {
		name, params, want string
	}{
		{"nil params are {}", "", "index 0"},
		{"object", `{"index":"7"}`, "index 7"},
		{"typed nil *Error keeps the result", `{"name":"nil-error"}`, "kept"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := h(t.Context(), json.RawMessage(tc.params))
			if toError(err) != nil {
				t.Fatalf("error %v", err)
			}
			if got != tc.want {
				t.Fatalf("result = %v, want %q", got, tc.want)
			}
		})
	}
}
