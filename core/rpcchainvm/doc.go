// Package rpcchainvm runs avalanchego's VM plugins unchanged, beside
// chainhost's own plugin protocol: the runtime handshake, the vm.proto
// client, the host services the protocol asks for and one-node consensus
// (docs/rpcchainvm.md).
package rpcchainvm

import "github.com/ava-labs/avalanchego/version"

// Protocol is the rpcchainvm protocol version the host speaks: that of the
// avalanchego release go.mod requires. A plugin must speak exactly it.
const Protocol = version.RPCChainVMProtocol
