package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/chainhost/chainhost/transport/route"
)

// ErrorBody is the JSON of every REST error answer.
type ErrorBody struct {
	Message    any    `json:"message"` // string, or []string in the messages style
	StatusCode int    `json:"statusCode"`
	Error      string `json:"error"`
}

// ErrorWriter answers an error; WriteError and WriteErrorMessages are the two.
type ErrorWriter func(w http.ResponseWriter, err error)

// internalMessage is the message of every error that is not an *Error.
const internalMessage = "internal error"

// StatusName returns the `error` text of a status.
func StatusName(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "Bad Request"
	case http.StatusUnauthorized:
		return "Unauthorized"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "Not Found"
	case http.StatusTooManyRequests:
		return "Too Many Requests"
	case http.StatusInternalServerError:
		return "Internal Server Error"
	case http.StatusBadGateway:
		return "Bad Gateway"
	case http.StatusServiceUnavailable:
		return "Service Unavailable"
	}
	if text := http.StatusText(status); text != "" {
		return text
	}
	return fmt.Sprintf("Status %d", status)
}

// Error is an answer for the client: a status and a message it may see.
// Cause, if set, is logged by callers but never shown.
type Error struct {
	// Status is the HTTP status, 4xx or 5xx; any other is answered as 500.
	Status int
	// Message is what the client sees.
	Message string
	// Messages, when set, are the separate problems that Message joins with
	// "; "; WriteErrorMessages sends them as separate array items.
	Messages []string
	// Cause is the underlying error, for logs only.
	Cause error
}

// Error returns the message, followed by the cause when there is one.
func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error {
	return e.Cause
}

// WithCause returns a copy of e with its cause set to err.
func (e *Error) WithCause(err error) *Error {
	c := *e
	c.Cause = err
	return &c
}

// Errorf returns an error answered with status and the formatted message.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// BadRequest returns a 400 error with the formatted message.
func BadRequest(format string, args ...any) *Error {
	return Errorf(http.StatusBadRequest, format, args...)
}

// Forbidden returns a 403 error with the formatted message.
func Forbidden(format string, args ...any) *Error {
	return Errorf(http.StatusForbidden, format, args...)
}

// NotFound returns a 404 error with the formatted message.
func NotFound(format string, args ...any) *Error {
	return Errorf(http.StatusNotFound, format, args...)
}

// Unavailable returns a 503 error with the formatted message.
func Unavailable(format string, args ...any) *Error {
	return Errorf(http.StatusServiceUnavailable, format, args...)
}

// problems returns a 400 error whose message joins msgs with "; " and
// whose Messages are msgs.
func problems(msgs []string) *Error {
	return &Error{
		Status:   http.StatusBadRequest,
		Message:  strings.Join(msgs, "; "),
		Messages: msgs,
	}
}

// WriteError answers err: an *Error (found with errors.As) with its status
// and message; anything else 500 with the message "internal error" (the
// cause never reaches the client).
func WriteError(w http.ResponseWriter, err error) {
	status, msg, _ := describe(err)
	WriteJSON(w, status, ErrorBody{Message: msg, StatusCode: status, Error: StatusName(status)})
}

// WriteErrorMessages is WriteError with `message` as an array of strings
// (the metrics v1 style): the Messages of an *Error, or its Message alone.
func WriteErrorMessages(w http.ResponseWriter, err error) {
	status, msg, msgs := describe(err)
	if len(msgs) == 0 {
		msgs = []string{msg}
	}
	WriteJSON(w, status, ErrorBody{Message: msgs, StatusCode: status, Error: StatusName(status)})
}

// ErrorWriterFor returns the writer of a request to path's error body:
// WriteErrorMessages under one of messagePrefixes (a module's declared
// MessageArrayPrefixes, docs/modules.md), WriteError elsewhere. The module
// and the host answering for it pick the same way, so the style of a
// route does not depend on who wrote its error.
func ErrorWriterFor(messagePrefixes []string, path string) ErrorWriter {
	for _, p := range messagePrefixes {
		if route.PrefixMatches(p, path) {
			return WriteErrorMessages
		}
	}
	return WriteError
}

// describe returns the status and the messages the client sees for err.
func describe(err error) (status int, msg string, msgs []string) {
	var e *Error
	if !errors.As(err, &e) || e == nil {
		return http.StatusInternalServerError, internalMessage, nil
	}
	status = e.Status
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	return status, e.Message, e.Messages
}

// JSONAppender is an answer that writes its own JSON: WriteJSON appends
// it to a reused buffer instead of encoding it by reflection, which a
// large answer (a page of thousands of points) would pay for in time and
// garbage. AppendJSON must append exactly one valid JSON value to b and
// return the extended slice; it cannot fail.
type JSONAppender interface {
	AppendJSON(b []byte) []byte
}

// jsonBuffers are WriteJSON's buffers for JSONAppenders; one that grew
// past maxPooledJSON is left to the collector.
var jsonBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledJSON = 1 << 20

// WriteJSON answers status with v as JSON (Content-Type application/json),
// ended by a newline. A v that cannot be encoded is answered as 500
// "internal error".
func WriteJSON(w http.ResponseWriter, status int, v any) {
	if a, ok := v.(JSONAppender); ok {
		buf := jsonBuffers.Get().(*[]byte)
		body := append(a.AppendJSON((*buf)[:0]), '\n')
		writeBody(w, status, body) // a Write does not keep its argument
		if cap(body) <= maxPooledJSON {
			*buf = body[:0]
			jsonBuffers.Put(buf)
		}
		return
	}
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(ErrorBody{
			Message:    internalMessage,
			StatusCode: status,
			Error:      StatusName(status),
		})
	}
	writeBody(w, status, append(body, '\n'))
}

// writeBody answers status with the JSON body.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
