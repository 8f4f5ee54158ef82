// Command dataapi is the chain data REST API module as a chainhost plugin
// binary (docs/data-api.md).
package main

import (
	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	sdk.Serve(sdk.ServeOpts{
		Description: sdk.Description{Name: dataapi.Name, Version: "0.1.0", Prefixes: api.Prefixes},
		Module:      dataapi.New(dataapi.Options{}),
	})
}
