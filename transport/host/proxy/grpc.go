package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/httpwire"
	"github.com/chainhost/chainhost/transport/internal/httpmsg"
)

// serveGRPC forwards r, whose body is read, on the plugin's channel or, for
// a body over channelMaxBody or a plugin without channels, on a ServeHTTP
// call of its own.
func (h *handler) serveGRPC(w http.ResponseWriter, r *http.Request, c pluginv1.PluginClient, body []byte, deadline time.Time) {
	client, err := h.client(c)
	if err != nil {
		h.fail(w, r, http.StatusServiceUnavailable, err)
		return
	}
	if !deadline.IsZero() {
		// A timer, not a context deadline: gRPC would send the deadline to
		// the plugin, whose clock may end the handler a moment earlier and
		// have its answer taken for the plugin's.
		ctx, cancel := context.WithCancelCause(r.Context())
		timer := time.AfterFunc(time.Until(deadline), func() { cancel(errTimedOut) })
		defer timer.Stop()
		defer cancel(nil)
		r = r.WithContext(ctx)
	}
	req := requestToProto(r, h.opts.Handler, body, httpmsg.DropContentLength)
	if len(body) <= channelMaxBody {
		if ch := h.chans.get(client); ch != nil && h.serveChannel(w, r, client, ch, req) {
			return
		}
	}
	h.serveCall(w, r, client, req)
}

// serveChannel serves a request on the plugin's channel. It returns false,
// having answered nothing, when the plugin turns out not to serve
// channels: the request is then for a call of its own.
func (h *handler) serveChannel(w http.ResponseWriter, r *http.Request, client pluginv1.PluginClient, ch *clientChannel, req *pluginv1.HTTPRequest) bool {
	cr, err := ch.start(req)
	if err != nil {
		if status.Code(err) == codes.Unimplemented {
			h.chans.unsupported(client, ch)
			return false
		}
		h.failCall(w, r, err)
		return true
	}
	complete := false
	defer func() { ch.end(cr, complete) }()
	first, err := ch.recv(r.Context(), cr)
	if h.timedOut(w, r) {
		return true
	}
	if err != nil {
		if status.Code(err) == codes.Unimplemented && !cr.received {
			h.chans.unsupported(client, ch)
			return false
		}
		if bad, ok := errors.AsType[malformedError](err); ok {
			h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: %w", httpwire.ErrBadResponse, h.opts.Handler, bad))
			return true
		}
		h.failCall(w, r, err)
		return true
	}
	complete = h.relay(w, r, first, func() (*pluginv1.HTTPResponse, error) {
		return ch.recv(r.Context(), cr)
	}, func(msg *pluginv1.HTTPResponse) error {
		return ch.consumed(cr, msg)
	})
	return true
}

// serveCall serves a request with a ServeHTTP call of its own.
func (h *handler) serveCall(w http.ResponseWriter, r *http.Request, client pluginv1.PluginClient, req *pluginv1.HTTPRequest) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stream, err := client.ServeHTTP(ctx, req)
	if err != nil {
		h.failCall(w, r, err)
		return
	}
	first, err := stream.Recv()
	if h.timedOut(w, r) {
		return
	}
	if err != nil {
		h.noAnswer(w, r, err, "no response", h.failCall)
		return
	}
	h.relay(w, r, first, stream.Recv, nil)
}

// relay writes the plugin's response to the client: status and headers
// from first, then the body of every message until the one marked last
// (or the end of next's messages). consumed, if set, is told of each
// message written. It reports whether the response completed.
func (h *handler) relay(w http.ResponseWriter, r *http.Request, first *pluginv1.HTTPResponse,
	next func() (*pluginv1.HTTPResponse, error), consumed func(*pluginv1.HTTPResponse) error) bool {
	code := int(first.GetStatus())
	if code < 200 || code > 999 {
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: status %d", httpwire.ErrBadResponse, h.opts.Handler, code))
		return false
	}
	resp := make(http.Header, len(first.GetHeaders()))
	httpmsg.HeadersFromProto(first.GetHeaders(), resp, nil)
	setHeaders(w.Header(), resp)
	w.WriteHeader(code)
	rc := http.NewResponseController(w)
	for msg := first; ; {
		if len(msg.GetBody()) > 0 {
			if _, err := w.Write(msg.GetBody()); err != nil {
				return false // the client is gone, or the status allows no body
			}
		}
		if msg.GetLast() {
			return true // net/http completes the answer, with a Content-Length if it is small
		}
		_ = rc.Flush()
		if consumed != nil {
			if err := consumed(msg); err != nil {
				h.abort(w, r, err)
				return false
			}
		}
		var err error
		msg, err = next()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			h.abort(w, r, err)
			return false
		}
	}
}

// errTimedOut is the cause of a request's context cancelled by
// HandlerOptions.Timeout.
var errTimedOut = errors.New("timed out")

// timedOut answers 504 and reports true when r's Timeout passed before the
// plugin's answer began: whatever came then is the cancelled handler's.
func (h *handler) timedOut(w http.ResponseWriter, r *http.Request) bool {
	if !errors.Is(context.Cause(r.Context()), errTimedOut) {
		return false
	}
	h.fail(w, r, http.StatusGatewayTimeout, h.timeoutError())
	return true
}

// callFailure is the status and error of a call that failed before
// answering: 413 for a request over the gRPC message limit, 504 for the
// caller's deadline, 503 otherwise.
func (h *handler) callFailure(err error) (int, error) {
	switch status.Code(err) {
	case codes.ResourceExhausted:
		return http.StatusRequestEntityTooLarge, fmt.Errorf("%w: handler %s: %w", httpwire.ErrBodyTooLarge, h.opts.Handler, err)
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout, fmt.Errorf("%w: handler %s: no answer before the caller's deadline", httpwire.ErrPluginTimeout, h.opts.Handler)
	}
	return http.StatusServiceUnavailable, fmt.Errorf("%w: handler %s: %w", httpwire.ErrPluginUnavailable, h.opts.Handler, err)
}

// noAnswer answers a stream whose first message did not come: 502 when the
// plugin ended it without one (missing says what was due), as failed does
// otherwise.
func (h *handler) noAnswer(w http.ResponseWriter, r *http.Request, err error, missing string, failed func(http.ResponseWriter, *http.Request, error)) {
	if errors.Is(err, io.EOF) {
		h.fail(w, r, http.StatusBadGateway, fmt.Errorf("%w: handler %s: %s", httpwire.ErrBadResponse, h.opts.Handler, missing))
		return
	}
	failed(w, r, err)
}

// failCall answers a call that failed before answering.
func (h *handler) failCall(w http.ResponseWriter, r *http.Request, err error) {
	code, err := h.callFailure(err)
	h.fail(w, r, code, err)
}

// requestToProto converts a request received by the host, whose URL.Path is
// already the path below the handler. drop leaves out more headers (may be
// nil); body is the request body already read.
func requestToProto(r *http.Request, handler string, body []byte, drop func(key string) bool) *pluginv1.HTTPRequest {
	return &pluginv1.HTTPRequest{
		Handler:    handler,
		Method:     r.Method,
		Path:       r.URL.EscapedPath(),
		RawQuery:   r.URL.RawQuery,
		Headers:    httpmsg.HeadersToProto(r.Header, drop),
		Body:       body,
		RemoteAddr: r.RemoteAddr,
		Host:       r.Host,
		RequestUri: r.RequestURI,
	}
}

// setHeaders replaces, in dst, every header that src holds.
func setHeaders(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = vs
	}
}
