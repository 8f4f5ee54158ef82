package evm

import (
	"encoding/json"
	"errors"
)

// errRefused answers the debug_ methods a node serving others must not run.
var errRefused = errors.New("method refused: it rewinds the chain, writes or reads files on the server, or rewrites the database")

// setHeadRule says where debug_setHead runs (docs/evm.md, Rewinding the
// chain).
const setHeadRule = "debug_setHead runs only on a chain with the dev API on (dev-api-enabled: true in its chain config) " +
	"of a node that keeps no index (--index-enabled=false)"

// errSetHeadRefused answers debug_setHead where the dev API is off.
var errSetHeadRefused = errors.New("method refused: it rewinds the chain; " + setHeadRule)

// refusedDebugAPI replaces, method by method, the debug_ methods that
// rewind the chain or touch server files. Every argument is an optional
// raw value so that any call reaches the refusal.
type refusedDebugAPI struct{}

// SetHead is debug_setHead, refused (setHeadAPI serves it where the dev
// API is on).
func (refusedDebugAPI) SetHead(_, _, _ *json.RawMessage) error { return errSetHeadRefused }

// TraceBlockFromFile is debug_traceBlockFromFile, refused.
func (refusedDebugAPI) TraceBlockFromFile(_, _, _ *json.RawMessage) error { return errRefused }

// StandardTraceBlockToFile is debug_standardTraceBlockToFile, refused.
func (refusedDebugAPI) StandardTraceBlockToFile(_, _, _ *json.RawMessage) error { return errRefused }

// StandardTraceBadBlockToFile is debug_standardTraceBadBlockToFile, refused.
func (refusedDebugAPI) StandardTraceBadBlockToFile(_, _, _ *json.RawMessage) error {
	return errRefused
}

// ChaindbCompact is debug_chaindbCompact, refused.
func (refusedDebugAPI) ChaindbCompact(_, _, _ *json.RawMessage) error { return errRefused }

// SetTrieFlushInterval is debug_setTrieFlushInterval, refused.
func (refusedDebugAPI) SetTrieFlushInterval(_, _, _ *json.RawMessage) error { return errRefused }
