// Package ids holds the 32-byte identifiers of chains, containers,
// transactions and VMs, and the checksummed text encodings they travel in.
//
// Two encodings are used on the wire (docs/api/jsonrpc.md), both
// compatible with avalanchego:
//
//   - CB58: base58 of the bytes followed by a 4-byte checksum, the last four
//     bytes of their sha256. IDs are always written this way.
//   - Hex with checksum: "0x" followed by the hex of the same bytes and
//     checksum. The index API writes container bytes this way.
//
// Derived IDs (Derive) hash each part behind an 8-byte big-endian length, so
// that no two different part lists give the same ID.
package ids
