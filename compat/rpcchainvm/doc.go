// Package rpcchainvm holds no code: its packages run avalanchego's own VM
// plugins, unchanged, under the real chainhost binary. subnetevm runs
// avalanchego v1.14.2's subnet-evm with go-ethereum's client and the data
// API's official SDK; xsvm runs its example VM xsvm with xsvm's own client,
// and v1.14.1's xsvm, a plugin of another rpcchainvm protocol version. The
// plugins are built from the Go module proxy by the modules under plugins/
// (`make avalanchego-plugins`).
//
// It is a Go module of its own so that those clients never reach the
// node's binary; `make test` runs it against the built node
// (CHAINHOST_BIN_DIR) and plugins (AVALANCHEGO_PLUGINS_DIR).
package rpcchainvm
