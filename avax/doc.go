// Package avax holds the byte formats that avalanchego's primary-network
// chains share, written from their description in docs/xvm.md: the linear
// codec's packing (big-endian integers, length-prefixed slices and
// strings, a 2-byte codec version before each top-level value, a 4-byte
// type ID before each interface value), UTXOs and their IDs, the
// secp256k1fx transfer inputs, outputs and credentials, recoverable
// secp256k1 signatures, and bech32 addresses with the network's HRP.
//
// The X-Chain (plugins/xvm) uses it; the C-Chain's atomic transactions use
// the same formats with the same type IDs.
package avax
