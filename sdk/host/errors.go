package host

import "github.com/chainhost/chainhost/sdk/internal/grpcerr"

// toStatus turns a service error into the gRPC error a server returns.
func toStatus(err error) error { return grpcerr.ToStatus(err, ErrNotFound) }

// fromStatus turns a gRPC error a client received back into a Go error that
// keeps its message and matches ErrNotFound and the context errors.
func fromStatus(err error) error { return grpcerr.FromStatus(err, ErrNotFound) }
