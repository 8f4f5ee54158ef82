package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

// contentType is the media type of requests and responses.
const contentType = "application/json"

// ServeHTTP answers one HTTP request holding a JSON-RPC request or batch.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		RefuseMethod(w, r.Method)
		return
	}
	if rpcErr := checkContentType(r.Header.Get("Content-Type")); rpcErr != nil {
		WriteHTTPError(w, http.StatusUnsupportedMediaType, rpcErr)
		return
	}
	body, status, rpcErr := s.readBody(w, r)
	if rpcErr != nil {
		WriteHTTPError(w, status, rpcErr)
		return
	}
	out := s.handleBody(withRequest(r.Context(), r), body)
	if out == nil {
		// Only notifications: nothing to answer.
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out) // the client is gone if this fails; nothing to do
}

// RefuseMethod answers 405 to a request whose HTTP method is not POST.
func RefuseMethod(w http.ResponseWriter, method string) {
	w.Header().Set("Allow", http.MethodPost)
	WriteHTTPError(w, http.StatusMethodNotAllowed, invalidRequest("HTTP method %s not allowed, use POST", method))
}

// RefuseContentType answers 415 to a request whose Content-Type header is
// refused, saying what is wrong with it.
func RefuseContentType(w http.ResponseWriter, header string) {
	rpcErr := checkContentType(header)
	if rpcErr == nil { // application/json, refused by the caller's own rules
		rpcErr = invalidRequest("unsupported Content-Type %q, want %s", header, contentType)
	}
	WriteHTTPError(w, http.StatusUnsupportedMediaType, rpcErr)
}

// checkContentType accepts application/json with an optional utf-8 charset.
func checkContentType(header string) *Error {
	if header == "" {
		return invalidRequest("missing Content-Type, want %s", contentType)
	}
	media, params, err := mime.ParseMediaType(header)
	if err != nil {
		return invalidRequest("malformed Content-Type %q, want %s", header, contentType)
	}
	if media != contentType {
		return invalidRequest("unsupported Content-Type %q, want %s", media, contentType)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return invalidRequest("unsupported charset %q, want utf-8", cs)
	}
	return nil
}

// readBody reads the request body up to the size limit. On failure it
// returns the HTTP status and error to answer.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, *Error) {
	limit := s.opts.MaxBodyBytes
	tooLarge := invalidRequest("request body exceeds the limit of %d bytes", limit)
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	case err != nil && !errors.Is(err, io.EOF):
		return nil, http.StatusBadRequest, invalidRequest("read request body: %v", err)
	}
	return buf.Bytes(), 0, nil
}

// WriteHTTPError answers an HTTP-level refusal: the status, with a JSON-RPC
// error response (id null) as body. The host answers its own refusals of
// JSON-RPC routes (unknown chain, plugin down) with it too.
func WriteHTTPError(w http.ResponseWriter, status int, rpcErr *Error) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(encodeResponse(&response{Error: rpcErr}))
}

// Compile-time check that Server is an http.Handler.
var _ http.Handler = (*Server)(nil)
