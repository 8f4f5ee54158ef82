// Command subnet-evm is avalanchego v1.14.2's subnet-evm VM plugin, served
// exactly as subnet-evm's own main serves it (its plugin/runner.Run), less
// one step: runner.Run first raises the open-file limit and exits when the
// hard limit is under 32,768, which it is on the test machines (20,000,
// and an unprivileged process cannot raise it). The VM, its libevm extras
// and the rpcchainvm server are subnet-evm's and avalanchego's, unchanged.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/ava-labs/avalanchego/graft/subnet-evm/plugin/evm"
	"github.com/ava-labs/avalanchego/vms/rpcchainvm"
)

func main() {
	evm.RegisterAllLibEVMExtras()
	if err := rpcchainvm.Serve(context.Background(), &evm.VM{}); err != nil {
		fmt.Printf("failed to serve VM: %s", err)
		os.Exit(1)
	}
}
