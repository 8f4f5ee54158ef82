// Package storage is the host's key-value database: one goleveldb database
// under <data-dir>/db, split into isolated namespaces (one per chain, one
// per module, and the host's own), with atomic batches that may span
// namespaces.
package storage
