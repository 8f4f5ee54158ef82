package host

import (
	"context"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Error is the type of the package's sentinel errors: constants, so that no
// one can reassign them. Match them with errors.Is.
type Error string

// Error returns the sentinel's text.
func (e Error) Error() string { return string(e) }

const (
	// ErrNotFound is returned when a key, chain or container does not exist.
	ErrNotFound = Error("not found")
	// ErrStop, returned by an Iterate or Feed callback, ends the walk early
	// without error.
	ErrStop = Error("stop")
	// ErrAlreadyIndexed is Index.Accept's refusal of a container ID the
	// index already holds (a VM that re-sends its last container after a
	// crash can take it as done).
	ErrAlreadyIndexed = Error("container already indexed")
	// ErrNoIndex is Index.Feed's answer on a node that keeps no index
	// (--index-enabled=false).
	ErrNoIndex = Error("the node keeps no index")
	// ErrReadOnly is Index.Accept's answer to a module: modules read
	// indexes, only a chain's VM appends to its own.
	ErrReadOnly = Error("a module cannot append to an index")
	// ErrWatchBehind ends a ChainRegistry.Watch whose callback fell too far
	// behind the events; watch again.
	ErrWatchBehind = Error("chain watch fell behind")
)

// Op is one write of an atomic batch: a put of Value at Key, or a delete.
type Op struct {
	// Key is the key written.
	Key []byte
	// Value is the value put; ignored for a delete.
	Value []byte
	// Delete makes the op a delete of Key.
	Delete bool
}

// Database is the plugin instance's key-value namespace.
type Database interface {
	// Get returns the value at key, or an error matching ErrNotFound.
	Get(ctx context.Context, key []byte) ([]byte, error)
	// Has reports whether key exists.
	Has(ctx context.Context, key []byte) (bool, error)
	// Put sets key to value.
	Put(ctx context.Context, key, value []byte) error
	// Delete removes key; deleting a missing key is no error.
	Delete(ctx context.Context, key []byte) error
	// Write applies ops atomically, in order; sync forces them to disk first.
	Write(ctx context.Context, ops []Op, sync bool) error
	// Iterate calls fn for each pair whose key has prefix and is not below
	// start (a full key; nil starts at the prefix), in key order. An error
	// from fn stops the walk and is returned, except ErrStop, which stops it
	// and returns nil. Slices passed to fn must not be kept after it returns.
	Iterate(ctx context.Context, prefix, start []byte, fn func(key, value []byte) error) error
}

// Container is an accepted block, vertex or transaction in an index.
type Container struct {
	// ID is the container ID (an EVM block's hash).
	ID ids.ID
	// Bytes is the container's encoding.
	Bytes []byte
	// Index is its position in the index, from 0.
	Index uint64
	// Timestamp is when this node accepted (or indexed) it.
	Timestamp time.Time
}

// Accepted is where Index.Accept put a container.
type Accepted struct {
	// Index is the container's position in its index.
	Index uint64
	// Timestamp is the acceptance time the host recorded.
	Timestamp time.Time
}

// Index appends this chain's accepted containers and streams any chain's.
type Index interface {
	// Accept appends a container to this chain's index of kind, atomically
	// with the state writes to this plugin's database namespace. kind is
	// one the VM declares (sdk.ContainerSource's IndexKinds); id is any 32
	// bytes not yet in this chain's index of kind (the zero ID too), else
	// the error matches ErrAlreadyIndexed and nothing is written. An error
	// may also come after the host committed (a cut call): read the
	// height back before building again (docs/writing-a-vm.md, "The
	// cut-accept rule").
	Accept(ctx context.Context, kind string, id ids.ID, bytes []byte, state []Op) (Accepted, error)
	// Feed calls fn for each container of a chain's index of kind from
	// position start, in order; chain is an ID or alias, "" for the caller's
	// own. Without follow it returns after the last one; with follow it waits
	// for new containers until ctx ends and returns ctx's error. An error
	// from fn stops the feed and is returned, except ErrStop (nil).
	Feed(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(Container) error) error
}

// PositionIndex is an Index that feeds positions alone, reading no
// container: the host's does.
type PositionIndex interface {
	Index
	// FeedPositions is Feed with only each container's position.
	FeedPositions(ctx context.Context, chain, kind string, start uint64, follow bool, fn func(position uint64) error) error
}

// FeedPositions is ix.Feed for a plugin that reads what the containers
// hold from the chain itself (docs/modules.md, "Reading a chain's
// blocks"): fn gets only each container's position. A PositionIndex (the
// host's) then reads and sends no container; another Index feeds them and
// their bytes are dropped.
func FeedPositions(ctx context.Context, ix Index, chain, kind string, start uint64, follow bool, fn func(position uint64) error) error {
	if p, ok := ix.(PositionIndex); ok {
		return p.FeedPositions(ctx, chain, kind, start, follow, fn)
	}
	return ix.Feed(ctx, chain, kind, start, follow, func(c Container) error { return fn(c.Index) })
}

// ChainInfo describes one chain of the node.
type ChainInfo struct {
	// ID is the blockchain ID.
	ID ids.ID
	// VMID is the ID of the chain's VM.
	VMID ids.ID
	// VMName is the VM's name.
	VMName string
	// Aliases lists the chain's aliases, primary first.
	Aliases []string
	// IndexKinds lists the kinds of containers the chain indexes.
	IndexKinds []string
	// Handlers lists the chain's HTTP handler names.
	Handlers []string
	// InternalHandlers lists the handlers only chain calls reach.
	InternalHandlers []string
	// Running reports whether the chain's plugin is up.
	Running bool
}

// ChainEventKind says what a ChainEvent reports.
type ChainEventKind string

// The kinds of ChainEvent.
const (
	// ChainCurrent is a chain's state when the watch began.
	ChainCurrent ChainEventKind = pluginv1.ChainCurrent
	// ChainStarted is a chain whose plugin came up (also after a restart,
	// and a chain that admin.loadVMs started).
	ChainStarted ChainEventKind = pluginv1.ChainStarted
	// ChainStopped is a chain whose plugin went down or was stopped.
	ChainStopped ChainEventKind = pluginv1.ChainStopped
)

// ChainEvent is a change of the node's chains.
type ChainEvent struct {
	// Kind says what happened.
	Kind ChainEventKind
	// Chain is the chain as it is after the event.
	Chain ChainInfo
}

// ChainRegistry lists the node's chains, resolves aliases and reports
// chains starting and stopping.
type ChainRegistry interface {
	// List returns every chain of the node's config that is enabled, in
	// config order, the caller's own included. A chain waiting for its VM
	// (not installed yet) is listed with Running false and no handlers or
	// index kinds; a chain whose plugin is starting, restarting or failed,
	// with Running false. A chain with enabled: false is not a chain of
	// the node: neither listed nor resolved.
	List(ctx context.Context) ([]ChainInfo, error)
	// Resolve returns the chain with the ID or alias, or an error matching
	// ErrNotFound.
	Resolve(ctx context.Context, alias string) (ChainInfo, error)
	// Watch calls fn with a ChainCurrent event for each chain, then with an
	// event each time a chain starts or stops, until ctx ends (it then
	// returns ctx's error) or fn returns an error (returned, except
	// ErrStop: nil). A watch whose fn falls too far behind ends with an
	// error matching ErrWatchBehind.
	Watch(ctx context.Context, fn func(ChainEvent) error) error
}

// ChainCaller sends a request to a chain's HTTP handler.
type ChainCaller interface {
	// Call POSTs a JSON body to a handler of chain (an ID or alias),
	// public or internal, and returns the response status and body.
	// handlerPath is the handler name, optionally followed by a path below
	// it ("indexer", "rpc/sub/path"). An unknown chain or handler is an
	// error matching ErrNotFound.
	Call(ctx context.Context, chain, handlerPath string, body []byte) (status int, resp []byte, err error)
}

// Services bundles the host services offered to one plugin instance.
type Services struct {
	// DB is the instance's key-value namespace.
	DB Database
	// Index appends and streams containers.
	Index Index
	// Chains lists and resolves the node's chains.
	Chains ChainRegistry
	// Calls reaches other chains' handlers.
	Calls ChainCaller
	// SharedMemory reads what other chains put in shared memory for this
	// chain; nil for a module. Its writes travel with BatchIndex.AcceptBatch.
	SharedMemory SharedMemory
}
