package index

import (
	"errors"
	"fmt"

	"github.com/chainhost/chainhost/sdk/ids"
)

var (
	// ErrNotFound is matched (errors.Is) by the error of a lookup of a
	// position, an ID or a last container that the index does not hold.
	ErrNotFound = errors.New("not found")
	// ErrWouldBeIncomplete is matched by the error of CheckStartup when
	// indexing was on in a previous run and is now off without
	// --index-allow-incomplete.
	ErrWouldBeIncomplete = errors.New("the index was enabled on a previous run; " +
		"starting with --index-enabled=false would leave it incomplete. " +
		"Pass --index-allow-incomplete to start anyway")
)

// notFoundError is a lookup miss with a message that says what is missing.
type notFoundError struct{ msg string }

// Error returns the message.
func (e *notFoundError) Error() string { return e.msg }

// Is makes the error match ErrNotFound.
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// notFound returns a lookup miss with a formatted message.
func notFound(format string, args ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, args...)}
}

// errNoneAccepted is the miss of Last on an empty index; its text is
// avalanchego's.
var errNoneAccepted = &notFoundError{msg: "no containers have been accepted"}

// AlreadyIndexedError is the error of an append of a container ID that the
// index already holds.
type AlreadyIndexedError struct {
	ID    ids.ID // the container ID
	Index uint64 // where the index holds it
}

// Error says which container is indexed where.
func (e *AlreadyIndexedError) Error() string {
	return fmt.Sprintf("container %s already indexed at %d", e.ID, e.Index)
}
