package jsonrpc

import "encoding/json"

// RawResult is a method result already encoded as JSON. The server sends
// it as it is: it is neither encoded nor checked again, which spares a
// full pass over a large result (an index range of megabytes). It must
// hold one valid JSON value; empty means null.
type RawResult []byte

// encodeMethodResult returns the JSON of a method's result.
func encodeMethodResult(result any) (json.RawMessage, error) {
	if raw, ok := result.(RawResult); ok {
		if len(raw) == 0 {
			return json.RawMessage("null"), nil
		}
		return json.RawMessage(raw), nil
	}
	return json.Marshal(result)
}
