// Command dataapi is the chain data REST API module as a chainhost plugin
// binary (docs/data-api.md). `dataapi migrate` copies the module's
// embedded store into PostgreSQL (docs/data-api.md, "Scaling out").
package main

import (
	"os"

	"github.com/chainhost/chainhost/plugins/dataapi"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/migrate"
	"github.com/chainhost/chainhost/sdk"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "migrate" {
		os.Exit(migrate.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	sdk.Main(sdk.ServeOpts{
		Description: sdk.Description{Name: dataapi.Name, Version: "0.1.0", Prefixes: api.Prefixes},
		Module:      dataapi.New(dataapi.Options{}),
	})
}
