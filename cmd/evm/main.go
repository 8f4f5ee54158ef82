// Command evm is the EVM chain VM (go-ethereum) as a chainhost plugin binary.
package main

import (
	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/evm"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: evmapi.VMName, Version: evm.Version},
		Plugin:      evm.New(),
	})
}
