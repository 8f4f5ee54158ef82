// Package host holds the services the chainhost host offers to a plugin, as
// plain Go interfaces, and the gRPC adapters that carry them over the
// go-plugin broker in both directions.
//
// A plugin receives a Services value in sdk.Env and never sees gRPC. The host
// serves its implementations with RegisterServers on the broker stream it
// passes to the plugin in Initialize; the SDK dials that stream and wraps it
// with NewClients. Errors keep their messages across the wire, and
// ErrNotFound and the context errors stay matchable with errors.Is.
//
// Every service is scoped by the host to the calling plugin instance: the
// Database is that instance's key namespace, Index.Accept appends to that
// chain's index, SharedMemory reads what other chains put for that chain.
// BatchIndex.AcceptBatch appends to several kinds of the chain's index
// with the instance's state and the chain's shared-memory writes in one
// atomic write (docs/shared-memory.md).
package host
