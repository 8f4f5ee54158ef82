// Command createchain creates a subnet and a subnet-evm chain on it on an
// avalanchego node of the local network, with avalanchego's own P-Chain
// wallet and the local network's funded key (ewoq), and prints the
// subnet's ID and the chain's, separated by a space. The node then runs the
// chain once it tracks the subnet (--track-subnets).
//
//	createchain -uri http://127.0.0.1:9650 -genesis subnet-evm-genesis.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
)

func main() {
	uri := flag.String("uri", primary.LocalAPIURI, "the node's HTTP URI")
	genesisFile := flag.String("genesis", "", "the subnet-evm genesis JSON")
	name := flag.String("name", "subnetevm", "the chain's name")
	flag.Parse()
	if err := run(*uri, *genesisFile, *name); err != nil {
		fmt.Fprintln(os.Stderr, "createchain:", err)
		os.Exit(1)
	}
}

func run(uri, genesisFile, name string) error {
	genesisBytes, err := os.ReadFile(genesisFile)
	if err != nil {
		return fmt.Errorf("read the genesis: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kc := secp256k1fx.NewKeychain(genesis.EWOQKey)
	w, err := primary.MakePWallet(ctx, uri, kc, primary.WalletConfig{})
	if err != nil {
		return fmt.Errorf("P-Chain wallet: %w", err)
	}
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{genesis.EWOQKey.Address()}}
	subnetTx, err := w.IssueCreateSubnetTx(owner)
	if err != nil {
		return fmt.Errorf("create the subnet: %w", err)
	}
	subnetID := subnetTx.ID()
	// A wallet knows a subnet's owner only when it is made after the
	// subnet was created.
	w, err = primary.MakePWallet(ctx, uri, kc, primary.WalletConfig{SubnetIDs: []ids.ID{subnetID}})
	if err != nil {
		return fmt.Errorf("P-Chain wallet with subnet %s: %w", subnetID, err)
	}
	chainTx, err := w.IssueCreateChainTx(subnetID, genesisBytes, constants.SubnetEVMID, nil, name)
	if err != nil {
		return fmt.Errorf("create the chain on subnet %s: %w", subnetID, err)
	}
	fmt.Println(subnetID, chainTx.ID())
	return nil
}
