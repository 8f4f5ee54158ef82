package xvm

import (
	"github.com/chainhost/chainhost/plugins/xvm/avax"
	"github.com/chainhost/chainhost/sdk/jsonrpc"
)

// parseEncoding reads the encoding param (avax.ParseEncoding) and names
// the param in its error.
func parseEncoding(s string, allowJSON bool) (string, error) {
	enc, err := avax.ParseEncoding(s, allowJSON)
	if err != nil {
		return "", jsonrpc.InvalidParams(`"encoding" %v`, err)
	}
	return enc, nil
}
