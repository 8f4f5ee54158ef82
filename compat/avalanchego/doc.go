// Package compat checks chainhost's X-Chain (docs/xvm.md) and the C-Chain's
// atomic transactions (docs/evm.md) against avalanchego v1.14's own wallet
// libraries: transactions that avalanchego builds and signs are accepted by
// chainhost, and chainhost's bytes decode with avalanchego's and coreth's
// codecs to the same transactions and blocks.
//
// It is a Go module of its own so that avalanchego's dependencies never
// reach the node's binary; `make test` runs it against the built node
// (CHAINHOST_BIN_DIR).
package compat
