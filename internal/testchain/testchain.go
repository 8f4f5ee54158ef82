// Package testchain generates EVM chains for the tests and benchmarks that
// need a long, varied history: a genesis funding the well-known local key,
// and blocks made with go-ethereum's chain maker, written as an RLP chain
// file that an EVM chain imports at start (import-chain-file, docs/evm.md).
// A chain is a function of its Options alone: two nodes that import the
// same Options' file hold the same blocks, byte for byte.
package testchain

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/chainhost/chainhost/plugins/evm"
)

// ChainID is the EVM chain ID of the generated chains: the local C-Chain's.
const ChainID = 43112

// localKeyHex is the well-known local-network key (README: public test
// values), funded in the genesis.
const localKeyHex = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// GenesisJSON is the chains' genesis: London to Cancun from block 0, a 30M
// gas limit, the local key funded with 50,000,000 coins.
const GenesisJSON = `{"config": {"chainId": 43112, "homesteadBlock": 0, "eip150Block": 0, "eip155Block": 0,
  "eip158Block": 0, "byzantiumBlock": 0, "constantinopleBlock": 0, "petersburgBlock": 0, "istanbulBlock": 0,
  "muirGlacierBlock": 0, "berlinBlock": 0, "londonBlock": 0, "shanghaiTime": 0, "cancunTime": 0,
  "terminalTotalDifficulty": 0},
 "gasLimit": "0x1c9c380", "difficulty": "0x0",
 "alloc": {"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": {"balance": "0x295be96e64066972000000"}}}`

// Mix says what a chain's transactions do.
type Mix int

const (
	// Varied mixes, from five senders: ERC-20 transfers and burns, native
	// transfers, ERC-721 mints, transfers and burns, ERC-1155 single and
	// batch mints, transfers and burns, calls that move value through
	// internal calls (Factory.mixed of plugins/evm/testdata/Calls.sol,
	// which also makes reverted frames and a failed CREATE), factory
	// deployments with CREATE and CREATE2, ERC-20 tokens deployed by
	// several accounts, and failing transactions.
	Varied Mix = iota
	// TransfersAndCalls alternates ERC-20 transfers and Factory.mixed
	// calls, from five senders.
	TransfersAndCalls
)

// Options shapes a chain.
type Options struct {
	// Txs is how many transactions the chain holds, the set-up block's
	// included.
	Txs int
	// TxsPerBlock is the most transactions a block holds; 0 fills each
	// block to about half its gas limit (the EIP-1559 target, so that the
	// base fee does not climb).
	TxsPerBlock int
	// Recipients is how many accounts without a key receive transfers;
	// 0: 24.
	Recipients int
	// Mix says what the transactions do.
	Mix Mix
}

// Chain is a generated chain.
type Chain struct {
	// File is the RLP chain file (blocks from 1).
	File string
	// Head is the number of the last block.
	Head uint64
	// Hashes are the blocks' hashes, from block 1.
	Hashes []common.Hash
	// Txs are the transactions' hashes, in chain order.
	Txs []common.Hash
	// Sent is how many transactions each sender sent.
	Sent map[common.Address]int
	// Addresses are the scenario's accounts: senders, recipients and every
	// contract created (by a transaction or by a factory).
	Addresses []common.Address
	// Kinds counts the transactions by what they do.
	Kinds map[string]int
	// Failed is how many transactions failed (status 0), each on purpose.
	Failed int
}

// chunk is how many blocks are generated at a time.
const chunk = 32

// Generate writes a chain to dir/chain.rlp.
func Generate(dir string, opts Options) (c *Chain, err error) {
	if opts.Txs <= 0 {
		return nil, errors.New("testchain: Txs must be positive")
	}
	if opts.Recipients <= 0 {
		opts.Recipients = 24
	}
	genesis, err := evm.ParseGenesis([]byte(GenesisJSON))
	if err != nil {
		return nil, err
	}
	s, err := newScenario(opts)
	if err != nil {
		return nil, err
	}
	// The chain maker panics on a transaction it cannot apply (a nonce or
	// a balance the scenario got wrong).
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("testchain: generate: %v", r)
		}
	}()
	engine := beacon.New(ethash.NewFaker())
	db, blocks, receipts := core.GenerateChainWithGenesis(genesis, engine, 1, s.block)
	for s.total < opts.Txs {
		more, rs := core.GenerateChain(genesis.Config, blocks[len(blocks)-1], engine, db, chunk, s.block)
		blocks, receipts = append(blocks, more...), append(receipts, rs...)
	}
	for len(blocks) > 1 && len(blocks[len(blocks)-1].Transactions()) == 0 {
		blocks, receipts = blocks[:len(blocks)-1], receipts[:len(receipts)-1]
	}
	c = &Chain{File: filepath.Join(dir, "chain.rlp"), Head: blocks[len(blocks)-1].NumberU64(),
		Sent: map[common.Address]int{}, Kinds: s.kinds}
	if err := s.check(blocks, receipts, c); err != nil {
		return nil, err
	}
	if err := writeChain(c.File, blocks); err != nil {
		return nil, err
	}
	return c, nil
}

// check verifies that every transaction succeeded or failed as the
// scenario meant, and fills c's lists from the blocks.
func (s *scenario) check(blocks []*types.Block, receipts []types.Receipts, c *Chain) error {
	seen := map[common.Address]bool{}
	add := func(a common.Address) {
		if !seen[a] {
			seen[a] = true
			c.Addresses = append(c.Addresses, a)
		}
	}
	for _, k := range s.keys {
		add(k.addr)
	}
	for _, r := range s.recipients {
		add(r)
	}
	made := s.contracts["Factory"].abi.Events["Made"]
	for i, b := range blocks {
		c.Hashes = append(c.Hashes, b.Hash())
		for j, tx := range b.Transactions() {
			r := receipts[i][j]
			if wantFail := s.failing[tx.Hash()]; (r.Status == types.ReceiptStatusFailed) != wantFail {
				return fmt.Errorf("testchain: transaction %d of block %d (%s): status %d, meant to fail: %v",
					j, b.NumberU64(), s.what[tx.Hash()], r.Status, wantFail)
			}
			if r.Status == types.ReceiptStatusFailed {
				c.Failed++
			}
			c.Txs = append(c.Txs, tx.Hash())
			c.Sent[s.sentBy[tx.Hash()]]++
			if r.ContractAddress != (common.Address{}) && r.Status == types.ReceiptStatusSuccessful {
				add(r.ContractAddress)
			}
			for _, l := range r.Logs {
				if len(l.Topics) > 0 && l.Topics[0] == made.ID {
					add(common.BytesToAddress(l.Data[:32]))
				}
			}
		}
	}
	return nil
}

// writeChain writes the blocks as consecutive RLP blocks, as `geth
// export` does.
func writeChain(path string, blocks []*types.Block) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("testchain: %w", err)
	}
	for _, b := range blocks {
		if err := rlp.Encode(f, b); err != nil {
			f.Close()
			return fmt.Errorf("testchain: write block %d: %w", b.NumberU64(), err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("testchain: %w", err)
	}
	return nil
}

// key is a sender.
type key struct {
	priv *ecdsa.PrivateKey
	addr common.Address
}

// workerKey is the i-th sender after the local key: the Keccak-256 of a
// name, so that every chain has the same ones.
func workerKey(i int) (key, error) {
	sum := crypto.Keccak256([]byte(fmt.Sprintf("testchain sender %d", i)))
	k, err := crypto.ToECDSA(sum)
	if err != nil {
		return key{}, fmt.Errorf("testchain: sender %d: %w", i, err)
	}
	return key{priv: k, addr: crypto.PubkeyToAddress(k.PublicKey)}, nil
}

// coins is n coins of 18 decimals.
func coins(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }
