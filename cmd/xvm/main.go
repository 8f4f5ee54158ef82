// Command xvm is the X-Chain VM (plugins/xvm) as a chainhost plugin binary.
package main

import (
	"github.com/chainhost/chainhost/plugins/xvm"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: xvm.VMName, Version: "0.1.0"},
		Plugin:      xvm.New(),
	})
}
