package rest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Networks are the names the REST APIs take for a network (docs/rest.md):
// mainnet, and fuji and testnet, the two names of the test network.
var Networks = []string{"mainnet", "fuji", "testnet"}

// mainnetID is the network ID of mainnet; a node of any other network
// answers to the test network's names.
const mainnetID = 1

// Network is the network whose names a node's REST modules answer to
// (docs/rest.md, "Networks").
type Network struct {
	// Mainnet is true when the node answers to mainnet, false when to
	// fuji and testnet.
	Mainnet bool
}

// NodeNetwork returns the network a module answers to: configured
// (mainnet, fuji or testnet) when not empty, otherwise the one of the
// node's network ID (1 is mainnet; the local network answers to fuji and
// testnet). A configured name outside Networks is an error.
func NodeNetwork(networkID uint32, configured string) (Network, error) {
	if configured == "" {
		return Network{Mainnet: networkID == mainnetID}, nil
	}
	if !slices.Contains(Networks, configured) {
		return Network{}, fmt.Errorf("must be one of %s, or empty to follow the network ID, got %q", strings.Join(Networks, "|"), configured)
	}
	return Network{Mainnet: configured == "mainnet"}, nil
}

// Serves reports whether the node answers to the network name.
func (n Network) Serves(name string) bool { return (name == "mainnet") == n.Mainnet }

// PathParam returns the network path parameter name of r: a 400 naming
// it when the value is not one of Networks, a 404 when the node does not
// answer to it.
func (n Network) PathParam(r *http.Request, name string) (string, error) {
	v, err := PathParam(r, name)
	if err != nil {
		return "", err
	}
	if !slices.Contains(Networks, v) {
		return "", BadRequest("%s: must be one of %s, got %s", name, strings.Join(Networks, "|"), Quote(v))
	}
	if !n.Serves(v) {
		return "", NotFound("this node does not serve network %s", v)
	}
	return v, nil
}
