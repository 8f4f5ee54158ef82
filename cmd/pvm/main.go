// Command pvm is the P-Chain VM (plugins/pvm) as a chainhost plugin binary.
package main

import (
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: pvm.VMName, Version: "0.1.0", Aliases: []string{"platformvm"}},
		Plugin:      pvm.New(),
	})
}
