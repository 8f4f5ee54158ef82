// Package evmremote reads an EVM chain that another node runs, through its
// standard JSON-RPC only, into the blocks of evmapi: the data and metrics
// modules index such a chain as they index the node's own
// (docs/data-api.md, "Indexing a chain of another node").
package evmremote

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/chainhost/chainhost/sdk/ids"
)

// Chain is an EVM chain reached by URL, as one entry of a module's
// `external-chains` config names it. Zero limits take the defaults
// (WithDefaults).
type Chain struct {
	// Name is the display name, unique among the module's chains; it is
	// the chain's alias in the API and, unless BlockchainID is set, what
	// its blockchain ID is derived from.
	Name string `json:"name"`
	// ChainID is the EVM chain ID, checked against eth_chainId.
	ChainID uint64 `json:"chain-id"`
	// BlockchainID is the chain's Avalanche blockchain ID (CB58), for an
	// L1 of avalanchego; "" derives one from Name (DerivedID).
	BlockchainID string `json:"blockchain-id"`
	// RPCURL is the node's HTTP(S) JSON-RPC URL.
	RPCURL string `json:"rpc-url"`
	// WSURL, optional, is its WebSocket URL: new heads arrive by
	// subscription instead of polling.
	WSURL string `json:"ws-url"`
	// PublicRPCURL and PublicWSURL are the URLs /v1/chains advertises; ""
	// advertises RPCURL and WSURL.
	PublicRPCURL string `json:"public-rpc-url"`
	PublicWSURL  string `json:"public-ws-url"`
	// Symbol is the native token's symbol; "" is NATIVE.
	Symbol string `json:"symbol"`
	// StartBlock is the first block indexed.
	StartBlock uint64 `json:"start-block"`
	// Confirmations keeps the indexer this many blocks behind the head;
	// Finalized keeps it at the node's "finalized" block instead.
	Confirmations uint64 `json:"confirmations"`
	Finalized     bool   `json:"finalized"`
	// MaxReorgDepth is the deepest fork the indexer rolls back by itself.
	MaxReorgDepth uint64 `json:"max-reorg-depth"`
	// RequestsInFlight, BlocksPerRequest and RequestsPerSecond limit what
	// the node is asked: requests at once, blocks in one JSON-RPC batch,
	// and requests a second (0: no limit).
	RequestsInFlight  int     `json:"requests-in-flight"`
	BlocksPerRequest  int     `json:"blocks-per-request"`
	RequestsPerSecond float64 `json:"requests-per-second"`
}

// Defaults of a Chain's limits.
const (
	DefaultRequestsInFlight = 4
	DefaultBlocksPerRequest = 20
	DefaultMaxReorgDepth    = 64
)

// WithDefaults returns c with its zero limits set to the defaults.
func (c Chain) WithDefaults() Chain {
	if c.RequestsInFlight == 0 {
		c.RequestsInFlight = DefaultRequestsInFlight
	}
	if c.BlocksPerRequest == 0 {
		c.BlocksPerRequest = DefaultBlocksPerRequest
	}
	if c.MaxReorgDepth == 0 {
		c.MaxReorgDepth = DefaultMaxReorgDepth
	}
	return c
}

// ID returns the chain's blockchain ID: BlockchainID, or DerivedID(Name).
func (c Chain) ID() (ids.ID, error) {
	if c.BlockchainID == "" {
		return DerivedID(c.Name), nil
	}
	id, err := ids.FromString(c.BlockchainID)
	if err != nil {
		return ids.ID{}, fmt.Errorf("blockchain-id: %w", err)
	}
	return id, nil
}

// DerivedID is the blockchain ID of an external chain without one: a hash
// of its name, so that it stays the same across restarts and differs from
// every chain ID avalanchego makes.
func DerivedID(name string) ids.ID {
	return ids.Derive([]byte("chainhost external EVM chain"), []byte(name))
}

// Validate checks one entry, its zero limits taken as the defaults; key
// names it in messages ("external-chains[0]").
func (c Chain) Validate(key string) error {
	c = c.WithDefaults()
	var problems []error
	bad := func(format string, a ...any) {
		problems = append(problems, fmt.Errorf(key+"."+format, a...))
	}
	if c.Name == "" {
		bad("name: must be set (the chain's display name)")
	}
	if c.ChainID == 0 {
		bad("chain-id: must be set (the EVM chain ID the node answers to eth_chainId)")
	}
	if _, err := c.ID(); err != nil {
		bad("%v", err)
	}
	checkURL := func(name, v string, required bool, schemes ...string) {
		if v == "" {
			if required {
				bad("%s: must be set", name)
			}
			return
		}
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || !slices.Contains(schemes, u.Scheme) {
			bad("%s: must be a %s URL, got %q", name, strings.Join(schemes, " or "), v)
		}
	}
	checkURL("rpc-url", c.RPCURL, true, "http", "https")
	checkURL("ws-url", c.WSURL, false, "ws", "wss")
	checkURL("public-rpc-url", c.PublicRPCURL, false, "http", "https")
	checkURL("public-ws-url", c.PublicWSURL, false, "ws", "wss")
	if c.Finalized && c.Confirmations > 0 {
		bad("confirmations: set either confirmations or finalized, not both")
	}
	if n := c.RequestsInFlight; n < 1 || n > 64 {
		bad("requests-in-flight: must be from 1 to 64, got %d", n)
	}
	if n := c.BlocksPerRequest; n < 1 || n > 1024 {
		bad("blocks-per-request: must be from 1 to 1024, got %d", n)
	}
	if c.RequestsPerSecond < 0 {
		bad("requests-per-second: must be 0 (no limit) or more, got %g", c.RequestsPerSecond)
	}
	if c.MaxReorgDepth > 100_000 {
		bad("max-reorg-depth: must be at most 100000, got %d", c.MaxReorgDepth)
	}
	return errors.Join(problems...)
}

// ValidateList checks a module's list of external chains: each entry, and
// that no two share a name, an ID or an EVM chain ID.
func ValidateList(chains []Chain) error {
	var problems []error
	names, idsSeen, evm := map[string]int{}, map[ids.ID]int{}, map[uint64]int{}
	for i, c := range chains {
		key := fmt.Sprintf("external-chains[%d]", i)
		if err := c.Validate(key); err != nil {
			problems = append(problems, err)
			continue
		}
		id, _ := c.ID()
		if j, ok := names[c.Name]; ok {
			problems = append(problems, fmt.Errorf("%s.name: %q is also the name of external-chains[%d]", key, c.Name, j))
		}
		if j, ok := idsSeen[id]; ok {
			problems = append(problems, fmt.Errorf("%s: blockchain ID %s is also that of external-chains[%d]", key, id, j))
		}
		if j, ok := evm[c.ChainID]; ok {
			problems = append(problems, fmt.Errorf("%s.chain-id: %d is also that of external-chains[%d]", key, c.ChainID, j))
		}
		names[c.Name], idsSeen[id], evm[c.ChainID] = i, i, i
	}
	return errors.Join(problems...)
}
