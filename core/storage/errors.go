package storage

import "errors"

var (
	// ErrNotFound is returned by Get when the key is absent.
	ErrNotFound = errors.New("storage: key not found")
	// ErrClosed is returned by every operation after Close.
	ErrClosed = errors.New("storage: database closed")
	// ErrStopIteration, returned by an Iterate callback, ends the
	// iteration without an error.
	ErrStopIteration = errors.New("storage: stop iteration")
	// ErrInUse is returned by Open when another process holds the database.
	ErrInUse = errors.New("database locked: data dir in use by another chainhost?")
)
