// Package grpcerr maps Go errors to gRPC status errors and back, so that the
// sentinels plugin authors test with errors.Is survive a trip over the wire.
package grpcerr

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Sentinels lists a service's sentinel errors by the gRPC code each travels
// as; a code stands for one sentinel only.
type Sentinels map[codes.Code]error

// ToStatus returns err as a gRPC status error. An error matching one of
// sentinels gets its code; context errors keep their codes; an error that
// already carries a status keeps it; anything else is codes.Unknown. The
// message is always err.Error().
func ToStatus(err error, sentinels Sentinels) error {
	if err == nil {
		return nil
	}
	code, matched := codes.Unknown, false
	for c, sentinel := range sentinels {
		if errors.Is(err, sentinel) {
			code, matched = c, true
			break
		}
	}
	switch {
	case matched:
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	default:
		code = status.Code(err)
	}
	return status.Error(code, err.Error())
}

// FromStatus returns the Go error for a gRPC error received by a client: an
// *Error that keeps the message and matches, under errors.Is, the sentinel
// of its code or the context errors (for codes.Canceled and
// codes.DeadlineExceeded). A nil error stays nil.
func FromStatus(err error, sentinels Sentinels) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	return &Error{Code: st.Code(), Message: st.Message(), sentinel: sentinels[st.Code()]}
}

// Error is an error received from the other side of a gRPC connection.
type Error struct {
	// Code is the gRPC status code.
	Code codes.Code
	// Message is the remote error's text.
	Message  string
	sentinel error // what the code stands for, if anything
}

// Error returns the remote message.
func (e *Error) Error() string { return e.Message }

// Is reports whether the remote error stands for target.
func (e *Error) Is(target error) bool {
	if e.sentinel != nil && target == e.sentinel {
		return true
	}
	switch e.Code {
	case codes.Canceled:
		return target == context.Canceled
	case codes.DeadlineExceeded:
		return target == context.DeadlineExceeded
	}
	return false
}

// GRPCStatus returns the status the error arrived with, so that it crosses
// another hop unchanged.
func (e *Error) GRPCStatus() *status.Status { return status.New(e.Code, e.Message) }
