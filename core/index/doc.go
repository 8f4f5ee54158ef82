// Package index is the host's container index: for every (chain, kind)
// pair, such as (C-Chain, "block") or (X-Chain, "tx"), an append-only list
// of the containers the chain accepted, in acceptance order, looked up by
// position or by container ID. It also serves the index JSON-RPC API over
// one such list and enforces the start-up rule on --index-enabled
// (docs/index.md, "Indexing turned off and on").
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
// # The API
//
// newService and NewHandler serve the six index.* methods over one index.
// Their wire rules (field formats, params, the order of the range rules,
// the errors of a miss, the header of an incomplete index) are written once,
// in docs/index.md; docs/api/index.md lists the methods.
package index
