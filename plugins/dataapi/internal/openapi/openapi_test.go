package openapi

import (
	"os"
	"strings"
	"testing"
)

// TestValidate: answers that break the contract are caught, each with
// where and why.
func TestValidate(t *testing.T) {
	wd, _ := os.Getwd()
	path, err := Find(wd)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	const block = `{"chainId":"1","blockNumber":"2","blockTimestamp":3,"blockHash":"0x","txCount":1,"baseFee":"0","gasUsed":"0","gasLimit":"0","gasCost":"0","parentHash":"0x","feesSpent":"0","cumulativeTransactions":"1"`
	const erc20 = `{"nativeTokenBalance":{"name":"A","symbol":"A","decimals":18,"chainId":"1","balance":"0"},"erc20TokenBalances":[{"address":"0x","name":"T","symbol":"T","decimals":6,"ercType":"ERC-20","chainId":"1","balance":"5","tokenReputation":%s}]}`
	for _, tc := range []struct {
		path, body string
		status     int
		want       string // "" when valid
	}{
		{"/v1/chains/1/blocks/2", block + `}`, 200, ""},
		{"/v1/chains/1/blocks/2", block + `,"extra":1}`, 200, `at '/extra': false schema`},
		{"/v1/chains/1/blocks/2", strings.Replace(block, `"txCount":1`, `"txCount":"1"`, 1) + `}`, 200, `at '/txCount': got string, want number`},
		{"/v1/chains/1/blocks/2", strings.Replace(block, `"baseFee":"0",`, ``, 1) + `}`, 200, `missing property 'baseFee'`},
		{"/v1/chains/1/blocks/2", strings.Replace(block, `"gasCost":"0"`, `"gasCost":null`, 1) + `}`, 200, `at '/gasCost': got null, want string`},
		{"/v1/chains/1/addresses/0x1/balances:listErc20", strings.Replace(erc20, "%s", "null", 1), 200, ""},
		{"/v1/chains/1/addresses/0x1/balances:listErc20", strings.Replace(erc20, "%s", `"Benign"`, 1), 200, ""},
		{"/v1/chains/1/addresses/0x1/balances:listErc20", strings.Replace(erc20, "%s", `"Fine"`, 1), 200, `value must be one of 'Malicious', 'Benign'`},
		{"/v1/chains/1/addresses/0x1/balances:listErc20", strings.Replace(strings.Replace(erc20, "%s", `null`, 1), `,"tokenReputation":null`, ``, 1), 200, `missing property 'tokenReputation'`},
		{"/v1/chains", `{"chains":[]}`, 200, ""},
		{"/v1/chains", `{}`, 200, `missing property 'chains'`},
		{"/v1/chains", `{"message":"m","statusCode":400,"error":"Bad Request"}`, 400, ""},
		{"/v1/chains", `{"message":"m","statusCode":400}`, 400, `missing property 'error'`},
		{"/v1/chains", `{"chains":[]}`, 418, "no 418 answer"},
		{"/v1/nothing", `{}`, 200, "no path of the contract matches"},
	} {
		err := c.Validate("GET", tc.path, tc.status, []byte(tc.body))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %.60s: %v", tc.path, tc.body, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %.60s: %v, want an error with %q", tc.path, tc.body, err, tc.want)
		}
	}
	// A oneOf item must match exactly one schema: ercType picks it.
	coll := `{"collectibleBalances":[{"address":"0x","ercType":"ERC-1155","tokenId":"1","tokenUri":"","metadata":{"indexStatus":"INDEXED"},"chainId":"1","balance":"1"},{"address":"0x","ercType":"ERC-999","tokenId":"1","tokenUri":"","metadata":{"indexStatus":"INDEXED"},"chainId":"1","balance":"1"}]}`
	if err := c.Validate("GET", "/v1/chains/1/addresses/0x1/balances:listCollectibles", 200, []byte(coll)); err == nil || !strings.Contains(err.Error(), "at '/collectibleBalances/1': 'oneOf' failed, none matched") {
		t.Errorf("a collectible of no kind: %v", err)
	}
}
