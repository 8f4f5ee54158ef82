// Command pvm is the P-Chain VM (plugins/pvm) as a chainhost plugin binary.
package main

import (
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/pvm"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: pvm.VMName, VMID: pvmapi.VMID, Version: "0.1.0"},
		Plugin:      pvm.New(),
	})
}
