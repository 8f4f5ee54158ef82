package pgstore_test

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/sdk/rest"
)

// BenchmarkChainListPages: a page of 100 of each list of the chain and of
// the new address lists over BenchmarkTransactionsPage's million
// transactions (one in ten failed), through the API handler, on the
// embedded store and on PostgreSQL in the same run: the first page and a
// page half way through (a page token whose cursor is at block pageTxs/20,
// as the API seals it). The address's transaction list, which
// BenchmarkTransactionsPage measures, is the baseline of the same run.
func BenchmarkChainListPages(b *testing.B) {
	middle := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, pageTxs/20), 0)
	chain, addr := pageChain.String(), "/v1/chains/43112/addresses/"+hot.Hex()+"/"
	lower := strings.ToLower(hot.Hex())
	for _, l := range []struct {
		name, path string
		scope      string
		cursor     any
	}{
		{"address-txs", addr + "transactions?pageSize=100", rest.Scope("transactions", chain, lower, "", "", "desc"), map[string][]byte{"c": middle}},
		{"chain-txs", "/v1/chains/43112/transactions?pageSize=100", rest.Scope("chainTransactions", chain, ""), map[string][]byte{"c": middle}},
		{"chain-txs-failed", "/v1/chains/43112/transactions?pageSize=100&status=failed", rest.Scope("chainTransactions", chain, "failed"), map[string][]byte{"c": middle}},
		{"all-chains-txs", "/v1/transactions?pageSize=100", rest.Scope("latestTransactionsAllChains", "", ""), map[string]map[string][]byte{"n": {chain: middle}}},
		{"native", addr + "transactions:listNative?pageSize=100", rest.Scope("listNative", chain, lower, "", "", "desc"), map[string][]byte{"c": middle}},
		{"erc20", addr + "transactions:listErc20?pageSize=100", rest.Scope("listErc20", chain, lower, "", "", "desc"), map[string][]byte{"c": binary.BigEndian.AppendUint32(middle, 0)}},
	} {
		for _, engine := range []string{kvstore.EnginePebble, "postgres"} {
			for _, page := range []string{"first", "deep"} {
				b.Run(l.name+"/"+engine+"/"+page, func(b *testing.B) {
					h := pageHandler(b, pageStore(b, engine))
					path := l.path
					if page == "deep" {
						tokens, _ := rest.NewPageTokens(make([]byte, 32), time.Hour)
						deep, err := tokens.Seal(l.scope, l.cursor)
						if err != nil {
							b.Fatal(err)
						}
						path += "&pageToken=" + deep
					}
					var resp struct {
						NextPageToken string            `json:"nextPageToken"`
						Transactions  []json.RawMessage `json:"transactions"`
					}
					if err := json.Unmarshal(servePage(b, h, path), &resp); err != nil || len(resp.Transactions) != 100 || resp.NextPageToken == "" {
						b.Fatalf("%s: %d items, %v", path, len(resp.Transactions), err)
					}
					durations := make([]time.Duration, 0, b.N)
					b.ResetTimer()
					for range b.N {
						begin := time.Now()
						servePage(b, h, path)
						durations = append(durations, time.Since(begin))
					}
					b.StopTimer()
					reportLatency(b, durations)
				})
			}
		}
	}
}
