package evmremote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// Errors a Client's answers wrap.
var (
	// ErrMalformed marks an answer that is not what the method answers: a
	// wrong JSON type, a missing field, or data that contradicts itself
	// (see Blocks for what is checked).
	ErrMalformed = errors.New("malformed answer")
	// ErrTooLarge marks an answer over Options.MaxResponseBytes.
	ErrTooLarge = errors.New("answer larger than the response limit")
	// ErrReorg marks blocks of one answer that are not linked by their
	// parent hashes: the chain was reorganised during the read, and
	// reading again gets the new branch.
	ErrReorg = errors.New("blocks not linked by parent hash (reorganised during the read)")
	// ErrTrace marks a transaction the node's tracer failed on.
	ErrTrace = errors.New("the node's tracer failed")
)

// malformed returns an ErrMalformed error.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// HTTPError is an answer with an HTTP status other than 2xx.
type HTTPError struct {
	StatusCode int
	Status     string
	// RetryAfter is the answer's Retry-After, 0 when it has none.
	RetryAfter time.Duration
	// Body is the start of the answer's body.
	Body string
}

func (e *HTTPError) Error() string {
	msg := "HTTP " + e.Status
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// RetryAfter returns the Retry-After of the HTTP answer err carries, if it
// had one.
func RetryAfter(err error) (time.Duration, bool) {
	var he *HTTPError
	if errors.As(err, &he) && he.RetryAfter > 0 {
		return he.RetryAfter, true
	}
	return 0, false
}

// States of the upstream node that Classify tells apart.
const (
	StateUnreachable = "unreachable"  // no answer: connection, DNS, timeout
	StateRateLimited = "rate-limited" // HTTP 429
	StateHTTPError   = "http-error"   // another HTTP status
	StateRPCError    = "rpc-error"    // a JSON-RPC error, or the tracer failed
	StateMalformed   = "malformed"    // an answer refused (ErrMalformed, ErrTooLarge)
	StateReorg       = "reorg"        // ErrReorg
)

// Classify returns the state of the upstream node an error of a Client
// shows (the State constants; "" for nil), so that a caller logs once per
// change of state and reports it in its health.
func Classify(err error) string {
	var (
		he  *HTTPError
		re  rpc.Error
		se  *json.SyntaxError
		ute *json.UnmarshalTypeError
		cut *cutError
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrReorg):
		return StateReorg
	case errors.As(err, &cut):
		return StateUnreachable
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrTooLarge), errors.As(err, &se), errors.As(err, &ute),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, rpc.ErrMissingBatchResponse), errors.Is(err, rpc.ErrNoResult):
		return StateMalformed
	case errors.As(err, &he):
		if he.StatusCode == 429 {
			return StateRateLimited
		}
		return StateHTTPError
	case errors.Is(err, ErrTrace), errors.As(err, &re):
		return StateRPCError
	default:
		return StateUnreachable
	}
}
