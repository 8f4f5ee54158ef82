// Package evmapi is what other plugins may call on the EVM through host
// chain calls: its internal handlers, their methods and the Go types of
// their answers (docs/evm.md). It is kept apart from the VM so that a module
// imports it without the VM's go-ethereum node.
package evmapi

// VMName is the name the EVM plugin describes itself with.
const VMName = "evm"

// IndexerHandler is the EVM's internal handler: JSON-RPC over the read APIs
// a data indexer needs (eth, net and the debug tracers), whatever the chain
// config's API switches say. The node never serves it over HTTP.
const IndexerHandler = "indexer"
