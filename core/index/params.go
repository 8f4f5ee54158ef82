package index

import (
	"strings"

	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// MaxFetchedByRange is the most containers index.getContainerRange returns
// (docs/api/index.md).
const MaxFetchedByRange = 1024

// encodingHex is the only encoding of container bytes (docs/index.md).
const encodingHex = "hex"

// checkEncoding accepts an absent encoding or "hex" in any case.
func checkEncoding(enc *string) error {
	if enc == nil || strings.EqualFold(*enc, encodingHex) {
		return nil
	}
	return jsonrpc.InvalidParams(`"encoding": unsupported encoding %q, want "hex"`, clip(*enc))
}

// clip shortens a client's value for an error message.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// encodingParams are the params of index.getLastAccepted.
type encodingParams struct {
	Encoding *string `json:"encoding"`
}

// Validate checks the encoding.
func (p *encodingParams) Validate() error { return checkEncoding(p.Encoding) }

// idParams are the params of the methods that look a container ID up.
type idParams struct {
	ID       *ids.ID `json:"id"`
	Encoding *string `json:"encoding"`
}

// Validate requires the ID and checks the encoding.
func (p *idParams) Validate() error {
	if p.ID == nil {
		return jsonrpc.InvalidParams(`missing param "id"`)
	}
	return checkEncoding(p.Encoding)
}

// indexParams are the params of index.getContainerByIndex.
type indexParams struct {
	Index    jsonrpc.Uint64 `json:"index"`
	Encoding *string        `json:"encoding"`
}

// Validate checks the encoding.
func (p *indexParams) Validate() error { return checkEncoding(p.Encoding) }

// rangeParams are the params of index.getContainerRange.
type rangeParams struct {
	StartIndex jsonrpc.Uint64 `json:"startIndex"`
	NumToFetch jsonrpc.Uint64 `json:"numToFetch"`
	Encoding   *string        `json:"encoding"`
}

// Validate checks numToFetch against the limit and the encoding.
func (p *rangeParams) Validate() error {
	if p.NumToFetch > MaxFetchedByRange {
		return jsonrpc.InvalidParams(`"numToFetch" must be at most %d, got %d`, MaxFetchedByRange, p.NumToFetch)
	}
	return checkEncoding(p.Encoding)
}
