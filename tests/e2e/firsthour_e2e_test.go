package e2e

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/core/nodetest"
)

// The first hour of a newcomer (issue 27): what a user writes and reads
// first works as written.

// bigBalanceConfig runs one EVM chain whose genesis, in block YAML as a
// user writes it, funds an address with a plain YAML integer beyond 64
// bits.
const bigBalanceConfig = `
chains:
  - alias: C
    vm: evm
    genesis:
      config:
        chainId: 43112
        homesteadBlock: 0
        eip150Block: 0
        eip155Block: 0
        eip158Block: 0
        byzantiumBlock: 0
        constantinopleBlock: 0
        petersburgBlock: 0
        istanbulBlock: 0
        muirGlacierBlock: 0
        berlinBlock: 0
        londonBlock: 0
        shanghaiTime: 0
        cancunTime: 0
        terminalTotalDifficulty: 0
      gasLimit: "0x1c9c380"
      difficulty: "0x0"
      alloc:
        "000000000000000000000000000000000000bA1a":
          balance: 50000000000000000000000000
modules: []
`

// TestYAMLGenesisBigInteger: a genesis balance written as a plain YAML
// integer of 26 digits starts the chain, and the address holds exactly
// that many wei.
func TestYAMLGenesisBigInteger(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{Config: bigBalanceConfig})
	n.WaitHealthy(t)
	c := evmDial(t, n, "C", "rpc")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := c.BalanceAt(ctx, common.HexToAddress("0x000000000000000000000000000000000000bA1a"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := new(big.Int).SetString("50000000000000000000000000", 10)
	if got.Cmp(want) != 0 {
		t.Errorf("balance = %s, want %s", got, want)
	}
}
