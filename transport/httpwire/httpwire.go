// Package httpwire is what every carrier of HTTP between the host and a
// plugin agrees on (docs/decisions.md, "Packages"): the request body cap
// and how a body is read under it, the errors a failed forward is
// reported with and the writer that answers them in a route's format, and
// which headers are hop-by-hop. A chain's own listener reads bodies with
// it too, so that every path refuses the same bodies with the same words.
package httpwire

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// DefaultMaxBodyBytes is the request body cap when none is set; it matches
// the default of the host's http-max-body-size.
const DefaultMaxBodyBytes int64 = 10 << 20

// Errors a failed forward to a plugin is reported with, for errors.Is.
var (
	// ErrBodyTooLarge is a request body over the cap (status 413).
	ErrBodyTooLarge = errors.New("request body too large")
	// ErrPluginUnavailable is a plugin that is down or whose call failed
	// before answering (status 503).
	ErrPluginUnavailable = errors.New("plugin unavailable")
	// ErrBadResponse is a malformed answer from the plugin (status 502).
	ErrBadResponse = errors.New("bad response from plugin")
	// ErrResponseAborted is a forward that failed after the response
	// started; an ErrorWriter sees it only when net/http does not serve
	// the request.
	ErrResponseAborted = errors.New("plugin response aborted")
	// ErrPluginTimeout is a plugin that did not answer within the
	// request's time (status 504).
	ErrPluginTimeout = errors.New("plugin did not answer in time")
)

// ErrorWriter answers a request that failed with status, in the format of
// the route it was made to (JSON-RPC error or REST body). err wraps one of
// the Err* sentinels of this package, or describes a bad request.
type ErrorWriter func(w http.ResponseWriter, r *http.Request, status int, err error)

// ReadBody reads the request body whole, up to limit bytes: a body over it
// is an error wrapping ErrBodyTooLarge, which BodyStatus answers with 413.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrBodyTooLarge, r.ContentLength, limit)
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength >= 0 {
		// The length is said and under the limit, and net/http reads no
		// further: one buffer of that size.
		body := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		return body, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, fmt.Errorf("%w: limit %d bytes", ErrBodyTooLarge, limit)
		}
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return body, nil
}

// BodyStatus is the status a ReadBody error is answered with: 413 for a
// body over the cap, 400 for one that could not be read.
func BodyStatus(err error) int {
	if errors.Is(err, ErrBodyTooLarge) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// BodyAllowed reports whether an answer of status may have a body.
func BodyAllowed(status int) bool {
	return status != http.StatusNoContent && status != http.StatusNotModified && status >= 200
}

// IsHopHeader reports whether a canonical header key is hop-by-hop (RFC 9110
// section 7.6.1, plus the obsolete ones proxies still drop).
func IsHopHeader(key string) bool {
	switch key {
	case "Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
		"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// ConnectionTokens returns the canonical header names listed in h's
// Connection header, which are hop-by-hop too.
func ConnectionTokens(h http.Header) map[string]bool {
	var names map[string]bool
	for _, v := range h["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			tok = strings.TrimSpace(tok)
			if tok == "" {
				continue
			}
			if names == nil {
				names = make(map[string]bool)
			}
			names[textproto.CanonicalMIMEHeaderKey(tok)] = true
		}
	}
	return names
}
