// Command explorer is the explorer module as a chainhost plugin binary: the
// node's web front end at /explorer (docs/explorer.md).
package main

import (
	"github.com/chainhost/chainhost/plugins/explorer"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: explorer.Name, Version: "0.1.0", Prefixes: []string{explorer.Prefix}, Home: true},
		Module:      explorer.New(explorer.Options{}),
	})
}
