package jsonrpc

import "fmt"

// The error codes of JSON-RPC 2.0 that the node APIs use.
const (
	CodeParseError     = -32700 // the body is not valid JSON
	CodeInvalidRequest = -32600 // the JSON is not a valid request
	CodeMethodNotFound = -32601 // no method of that name
	CodeInvalidParams  = -32602 // params do not fit the method
	CodeServerError    = -32000 // any other failure of a method
)

// Error is a JSON-RPC error object. Methods return one to choose the code;
// any other error is answered as CodeServerError with its text as message.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error returns the message.
func (e *Error) Error() string {
	return e.Message
}

// NewError returns an error object with the given code and formatted message.
func NewError(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams returns a CodeInvalidParams error whose message is
// "invalid params: " followed by the formatted text.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + fmt.Sprintf(format, args...)}
}

// ServerError returns a CodeServerError error with the formatted message.
func ServerError(format string, args ...any) *Error {
	return NewError(CodeServerError, format, args...)
}

// invalidRequest returns a CodeInvalidRequest error whose message starts
// with "invalid request: ".
func invalidRequest(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
}

// internalError is the answer to a method that panicked or whose result
// cannot be encoded; details stay on the server.
func internalError() *Error {
	return &Error{Code: CodeServerError, Message: "internal error"}
}
