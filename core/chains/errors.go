package chains

import "github.com/chainhost/chainhost/sdk/host"

// notFound is an error that matches host.ErrNotFound under errors.Is, so
// that it reaches plugins as the SDK's not-found error, without adding
// words to its message.
type notFound struct{ error }

// Is reports whether target is host.ErrNotFound.
func (notFound) Is(target error) bool { return target == host.ErrNotFound }

// Unwrap returns the error it marks.
func (e notFound) Unwrap() error { return e.error }
