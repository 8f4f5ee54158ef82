package host

import (
	"google.golang.org/grpc/codes"

	"github.com/chainhost/chainhost/transport/grpcerr"
)

// sentinels are the package's errors that keep their identity across the
// wire, by the gRPC code each travels as.
var sentinels = grpcerr.Sentinels{
	codes.NotFound:           ErrNotFound,
	codes.AlreadyExists:      ErrAlreadyIndexed,
	codes.FailedPrecondition: ErrNoIndex,
	codes.PermissionDenied:   ErrReadOnly,
	codes.ResourceExhausted:  ErrWatchBehind,
	codes.Aborted:            ErrSharedMemoryConflict,
	codes.Unimplemented:      ErrUnsupported,
}

// toStatus turns a service error into the gRPC error a server returns.
func toStatus(err error) error { return grpcerr.ToStatus(err, sentinels) }

// fromStatus turns a gRPC error a client received back into a Go error that
// keeps its message and matches the package's sentinels and the context
// errors.
func fromStatus(err error) error { return grpcerr.FromStatus(err, sentinels) }
