// Package index is the host's container index: for every (chain, kind)
// pair, such as (C-Chain, "block") or (X-Chain, "tx"), an append-only list
// of the containers the chain accepted, in acceptance order, looked up by
// position or by container ID (SPEC 2.1, 3 and A3). It also serves the
// index JSON-RPC API over one such list and enforces the start-up rule on
// --index-enabled (SPEC 7.2 rule 4).
//
// # Storage
//
// The caller gives a namespace; each (chain, kind) gets a namespace nested
// in it (the chain's 32 raw ID bytes, then the kind) that holds
//
//	0x00                   next index: 8 bytes big-endian
//	0x01 BE64(index)       record: version 0x00, timestamp (unix nanos,
//	                       8 bytes big-endian), container ID (32 bytes),
//	                       container bytes
//	0x02 ID                index: 8 bytes big-endian
//
// One append is one atomic batch holding the record, the ID entry and the
// new counter, and whatever the caller's extra function adds: a VM that
// passes its own state writes there commits them together with the index
// entry, so neither can exist without the other. Appends to one index are
// serialised; a container ID already in the index is refused and nothing
// is written. One Indexes must own a namespace: the counter is cached in
// memory, and so is a bloom filter of the IDs each index holds, built in
// the background, which spares the duplicate check its database lookup for
// most new IDs (filter.go, docs/index.md).
//
// # Wire decisions (where SPEC is silent, compatible with avalanchego)
//
//   - timestamp: RFC 3339 in UTC with up to nine fraction digits and
//     trailing zeros trimmed (Go's time.RFC3339Nano, the encoding of a
//     time.Time in JSON, which is what avalanchego sends), for example
//     "2021-11-04T00:42:55.01643414Z". avalanchego writes the node's local
//     offset; chainhost always writes UTC so answers do not depend on the
//     host's time zone. Every RFC 3339 parser reads both.
//   - bytes: "0x", hex of the bytes and their 4-byte checksum
//     (ids.HexWithChecksum); index: decimal string; id: CB58.
//   - encoding: absent or null means "hex"; "hex" is accepted in any case
//     and answered as "hex"; any other value is -32602 naming "encoding".
//   - id: required; a value that is not a CB58 ID is -32602 naming "id".
//     uint64 params (index, startIndex, numToFetch) accept a number or a
//     decimal string; absent means 0, as in avalanchego.
//   - index.getContainerRange answers a bare array, as SPEC A3 and the
//     avalanchego documentation show (avalanchego's server wraps it in
//     {"containers": [...]}). numToFetch 0 answers [] (SPEC: "empty, for
//     example null"; an empty array keeps the result's type stable).
//     numToFetch above 1024 is -32602; startIndex above the last accepted
//     index, or any startIndex on an empty index, is -32000; a short tail
//     answers the containers that exist.
//   - unknown ID or index, and getLastAccepted on an empty index, are
//     -32000 with a message saying what is missing ("no container at index
//     7", "no container with ID ...", "no containers have been accepted").
//     index.isAccepted answers false for an unknown ID.
//   - an index marked incomplete (CheckStartup) answers every method as
//     usual, so clients that validate result shapes keep working, and every
//     HTTP response carries the header "X-Chainhost-Index-Incomplete: true"
//     (NewHandler). MarkComplete clears the persisted mark; the host calls
//     it once every chain's index has been backfilled from its VM
//     (docs/index.md).
package index
