package evm

import (
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// web3API is the web3_ namespace, which go-ethereum's node would otherwise
// add itself.
type web3API struct {
	version string
}

// ClientVersion is web3_clientVersion.
func (w web3API) ClientVersion() string { return w.version }

// Sha3 is web3_sha3: the Keccak-256 of the input.
func (web3API) Sha3(input hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(input) }
