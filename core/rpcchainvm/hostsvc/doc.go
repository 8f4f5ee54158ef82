// Package hostsvc provides the host services an avalanchego VM plugin gets
// through its snow.Context and the arguments of VMClient.Initialize, each
// over chainhost's own parts: shared memory, chain aliases, the node's BLS
// key and warp signer, an app sender for a network of one node and the
// P-Chain's validator state.
package hostsvc
