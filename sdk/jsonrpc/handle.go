package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"
)

// response is one JSON-RPC response object.
type response struct {
	JSONRPC string          `json:"jsonrpc"` // set by encodeResponse
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"` // nil encodes as null
}

// encodeResponse returns the JSON of resp. An error whose data cannot be
// encoded is sent without its data.
func encodeResponse(resp *response) []byte {
	if resp.Error == nil && len(resp.Result) > 0 {
		return encodeResult(resp.Result, resp.ID)
	}
	resp.JSONRPC = "2.0"
	out, err := json.Marshal(resp)
	if err == nil {
		return out
	}
	e := internalError()
	if resp.Error != nil {
		e = &Error{Code: resp.Error.Code, Message: resp.Error.Message}
	}
	out, err = json.Marshal(&response{JSONRPC: "2.0", Error: e, ID: resp.ID})
	if err != nil {
		// Only a malformed id could get here, and ids are validated.
		panic(fmt.Sprintf("jsonrpc: encode error response: %v", err))
	}
	return out
}

// encodeResult returns a success response, written by hand: the result
// comes from json.Marshal and the id from a validated request, both valid
// JSON already, and json.Marshal would scan a json.RawMessage again, which
// for a large result (an index range of megabytes) costs as much as
// encoding it. The members are in the order json.Marshal writes them.
func encodeResult(result, id json.RawMessage) []byte {
	out := make([]byte, 0, len(result)+len(id)+len(`{"jsonrpc":"2.0","result":,"id":null}`))
	out = append(out, `{"jsonrpc":"2.0","result":`...)
	out = append(out, result...)
	out = append(out, `,"id":`...)
	if id == nil {
		out = append(out, "null"...)
	} else {
		out = append(out, id...)
	}
	return append(out, '}')
}

// handleBody answers a request body: the encoded response, or nil when
// nothing is to be answered.
func (s *Server) handleBody(ctx context.Context, body []byte) []byte {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !json.Valid(trimmed) {
		return encodeResponse(&response{Error: parseError(trimmed)})
	}
	if trimmed[0] == '[' {
		return s.handleBatch(ctx, trimmed)
	}
	resp := s.handleOne(ctx, trimmed)
	if resp == nil {
		return nil
	}
	return encodeResponse(resp)
}

// parseError describes why body is not valid JSON.
func parseError(body []byte) *Error {
	if len(body) == 0 {
		return NewError(CodeParseError, "parse error: empty body")
	}
	var v json.RawMessage
	err := json.Unmarshal(body, &v)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return NewError(CodeParseError, "parse error: %v at offset %d", syn, syn.Offset)
	}
	return NewError(CodeParseError, "parse error: %v", err)
}

// handleBatch answers a JSON array of requests.
func (s *Server) handleBatch(ctx context.Context, body []byte) []byte {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return encodeResponse(&response{Error: NewError(CodeParseError, "parse error: %v", err)})
	}
	switch {
	case len(items) == 0:
		return encodeResponse(&response{Error: invalidRequest("empty batch")})
	case len(items) > s.opts.MaxBatchSize:
		return encodeResponse(&response{Error: invalidRequest(
			"batch of %d items exceeds the limit of %d", len(items), s.opts.MaxBatchSize)})
	}
	var out bytes.Buffer
	out.WriteByte('[')
	answered := 0
	for _, item := range items {
		resp := s.handleOne(ctx, item)
		if resp == nil {
			continue
		}
		if answered > 0 {
			out.WriteByte(',')
		}
		out.Write(encodeResponse(resp))
		answered++
	}
	if answered == 0 {
		return nil
	}
	out.WriteByte(']')
	return out.Bytes()
}

// request is a validated request object.
type request struct {
	id           json.RawMessage // nil for a notification
	notification bool
	method       string
	params       json.RawMessage // nil when absent
}

// handleOne answers one request object, or returns nil for a notification.
func (s *Server) handleOne(ctx context.Context, raw json.RawMessage) *response {
	req, rpcErr := parseRequest(raw)
	if rpcErr != nil {
		return &response{Error: rpcErr, ID: req.id}
	}
	result, rpcErr := s.dispatch(ctx, req)
	if req.notification {
		return nil
	}
	if rpcErr != nil {
		return &response{Error: rpcErr, ID: req.id}
	}
	return &response{Result: result, ID: req.id}
}

// parseRequest validates a request object. On error, the returned request
// holds the id to answer with (nil, encoded as null, when unreadable).
func parseRequest(raw json.RawMessage) (request, *Error) {
	var req request
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return req, invalidRequest("want a JSON object")
	}
	id, hasID := members["id"]
	if hasID {
		if !validID(id) {
			return req, invalidRequest(`"id" must be a number, a string or null`)
		}
		req.id = id
	}
	var version string
	if err := json.Unmarshal(members["jsonrpc"], &version); err != nil || version != "2.0" {
		return req, invalidRequest(`"jsonrpc" must be "2.0"`)
	}
	if err := json.Unmarshal(members["method"], &req.method); err != nil || req.method == "" {
		return req, invalidRequest(`"method" must be a non-empty string`)
	}
	if p := bytes.TrimSpace(members["params"]); len(p) > 0 {
		switch p[0] {
		case '{', '[':
			req.params = p
		case 'n': // null: as if absent
		default:
			return req, invalidRequest(`"params" must be an object or an array`)
		}
	}
	req.notification = !hasID
	return req, nil
}

// validID reports whether a raw id is a number, a string or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	default:
		return bytes.Equal(id, []byte("null"))
	}
}

// dispatch finds and calls the method of req.
func (s *Server) dispatch(ctx context.Context, req request) (json.RawMessage, *Error) {
	h, ok := s.lookup(req.method)
	if !ok {
		return nil, NewError(CodeMethodNotFound, "method not found: %q", req.method)
	}
	start := time.Now()
	result, rpcErr := s.call(ctx, req, h)
	if s.opts.OnCall != nil {
		s.opts.OnCall(req.method, time.Since(start), rpcErr)
	}
	return result, rpcErr
}

// call runs a method on its normalized params and encodes its result.
func (s *Server) call(ctx context.Context, req request, h Handler) (json.RawMessage, *Error) {
	params, rpcErr := normalizeParams(req.params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	result, err := s.invoke(ctx, req.method, h, params)
	if rpcErr := toError(err); rpcErr != nil {
		return nil, rpcErr
	}
	out, err := encodeMethodResult(result)
	if err != nil {
		return nil, ServerError("internal error: encode result: %v", err)
	}
	return out, nil
}

// invoke calls h, turning a panic into an internal error.
func (s *Server) invoke(ctx context.Context, method string, h Handler, params json.RawMessage) (result any, err error) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if v == http.ErrAbortHandler { // net/http aborts the response on this panic; let it
			panic(v)
		}
		if s.opts.OnPanic != nil {
			s.opts.OnPanic(method, v, debug.Stack())
		}
		result, err = nil, internalError()
	}()
	return h(ctx, params)
}

// toError returns the error object to answer for a method's error: the
// *Error in its chain, or a server error with its text. A nil error, or a
// nil *Error returned as an error, means success.
func toError(err error) *Error {
	if err == nil {
		return nil
	}
	var rpcErr *Error
	if errors.As(err, &rpcErr) {
		if rpcErr != nil {
			return rpcErr
		}
		if direct, ok := err.(*Error); ok && direct == nil { // a nil *Error returned as error
			return nil
		}
	}
	return &Error{Code: CodeServerError, Message: err.Error()}
}
