package httpgrpc

import (
	"fmt"
	"net/http"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/httpwire"
	"github.com/chainhost/chainhost/transport/internal/httpmsg"
)

// responseWriter is the http.ResponseWriter of a plugin handler: it buffers
// the body up to a chunk and sends HTTPResponse messages, the first with
// status and headers.
type responseWriter struct {
	send    func(*pluginv1.HTTPResponse) error // sends one message to the host
	chunk   int
	head    bool // a HEAD request: the body is discarded
	header  http.Header
	status  int         // 0 until WriteHeader
	sent    http.Header // the headers as of WriteHeader
	started bool        // the first message is sent
	buf     []byte
	err     error // the first send failure; every later write fails with it
}

var (
	_ http.ResponseWriter = (*responseWriter)(nil)
	_ http.Flusher        = (*responseWriter)(nil)
)

func newResponseWriter(send func(*pluginv1.HTTPResponse) error, chunk int, head bool) *responseWriter {
	return &responseWriter{send: send, chunk: chunk, head: head, header: make(http.Header)}
}

// Header returns the response headers, sent at the first flush.
func (w *responseWriter) Header() http.Header { return w.header }

// WriteHeader sets the status, once; informational codes are not carried.
func (w *responseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code)) // as net/http
	}
	if w.status != 0 || code < 200 {
		return
	}
	w.status = code
	w.sent = w.header.Clone()
}

// Write buffers p, sending every full chunk.
func (w *responseWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !httpwire.BodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.head {
		return len(p), nil
	}
	n := len(p)
	for len(p) > 0 {
		k := min(w.chunk-len(w.buf), len(p))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == w.chunk {
			if err := w.sendMsg(false); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// Flush sends the status, headers and buffered body now.
func (w *responseWriter) Flush() { _ = w.FlushError() }

// FlushError is Flush that reports a send failure (http.ResponseController).
func (w *responseWriter) FlushError() error {
	if w.err != nil {
		return w.err
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.started && len(w.buf) == 0 {
		return nil
	}
	return w.sendMsg(false)
}

// finish sends what is left once the handler returned, marked last.
func (w *responseWriter) finish() error {
	if w.err != nil {
		return w.err
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.sendMsg(true)
}

// sendMsg sends the buffer as one message, with status and headers if
// first. A message must not change after it is sent, so the buffer is not
// reused.
func (w *responseWriter) sendMsg(last bool) error {
	msg := &pluginv1.HTTPResponse{Body: w.buf, Last: last}
	if !w.started {
		msg.Status = int32(w.status)
		msg.Headers = httpmsg.HeadersToProto(w.sent, nil)
	}
	w.buf = nil
	w.started = true
	if err := w.send(msg); err != nil {
		w.err = fmt.Errorf("send http response: %w", err)
		return w.err
	}
	return nil
}

// sendError replaces whatever was buffered by a plain-text answer; only
// valid before the first message is sent.
func (w *responseWriter) sendError(code int, text string) error {
	w.header = make(http.Header)
	w.header.Set("Content-Type", "text/plain; charset=utf-8")
	w.header.Set("X-Content-Type-Options", "nosniff")
	w.status = 0
	w.buf = nil
	w.WriteHeader(code)
	if !w.head {
		w.buf = append(w.buf, text+"\n"...)
	}
	return w.finish()
}
