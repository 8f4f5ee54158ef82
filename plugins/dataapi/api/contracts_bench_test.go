package api

import (
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/sdk/rest"
)

// BenchmarkTokenTransfersPage: one page of 100 of a token's transfers
// (the benchmark store's token moved a million times), through the API
// handler: the first page and a page half way through, in both orders.
func BenchmarkTokenTransfersPage(b *testing.B) {
	for _, order := range []string{"desc", "asc"} {
		for _, page := range []string{"first", "deep"} {
			b.Run(order+"/"+page, func(b *testing.B) {
				h := benchServer(b, benchStore(b, kvstore.EnginePebble))
				path := "/v1/chains/43112/tokens/" + benchToken.Address.Hex() + "/transfers?pageSize=100&sortOrder=" + order
				if page == "deep" {
					tokens, _ := rest.NewPageTokens(make([]byte, 32), time.Hour)
					// block benchTxs/20, transaction 0, log 0, batch item 0
					middle := binary.BigEndian.AppendUint64(nil, benchTxs/20)
					middle = append(middle, make([]byte, 12)...)
					deep, err := tokens.Seal(rest.Scope("tokenTransfers", benchChain.String(), lowerHex(benchToken.Address), "", "", order), cursor{C: middle})
					if err != nil {
						b.Fatal(err)
					}
					path += "&pageToken=" + deep
				}
				var resp ListTransfersResponse
				if err := json.Unmarshal(serve(b, h, path), &resp); err != nil || len(resp.Transfers) != 100 || resp.NextPageToken == "" {
					b.Fatalf("page: %d items, %v", len(resp.Transfers), err)
				}
				timePage(b, h, path)
			})
		}
	}
}
