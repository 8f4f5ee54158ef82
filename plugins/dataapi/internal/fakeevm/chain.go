// Package fakeevm is an EVM chain for the data API's tests and benchmarks:
// blocks built by hand (transactions, token transfers with their logs,
// call frames, creations), and the JSON-RPC of the EVM's internal indexer
// handler over them (indexer_getBlocks, eth_chainId, eth_blockNumber,
// eth_call of the token methods, eth_getBalance), with the token balances
// a real chain would answer at every block, as ground truth.
package fakeevm

import (
	"encoding/binary"
	"math/big"
	"sort"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/derive"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Token standards of a fake contract.
const (
	ERC20 = iota + 1
	ERC721
	ERC1155
	Plain // a contract that is no token
)

// Token is a fake token contract.
type Token struct {
	Kind     int
	Name     string
	Symbol   string
	Decimals uint8
	// URI returns the tokenURI / uri of a token ID; "" reverts.
	URI func(id *big.Int) string
}

// balKey names a balance: a holder's, of a token and (ERC-1155) an ID.
type balKey struct {
	holder, token common.Address
	id            common.Hash
}

// point is a balance after a block.
type point struct {
	block uint64
	value *big.Int
}

// Chain is a fake EVM chain. Block 0 is the genesis block.
type Chain struct {
	ID uint64
	// MaxTxs caps the transactions of one indexer_getBlocks answer (after
	// the first block); 0: evmapi.MaxTransactions.
	MaxTxs int
	// NoGenesis makes indexer_getBlocks skip block 0.
	NoGenesis bool

	mu       sync.Mutex
	blocks   []evmapi.Block
	tokens   map[common.Address]*Token
	balances map[balKey][]point
	native   map[common.Address][]point
	owners   map[balKey]common.Address // ERC-721: token, id → owner (holder unused)
	failNext int                       // indexer_getBlocks calls to fail
	empties  int                       // indexer_getBlocks calls from a block above 0 to answer with none
	pruned   uint64                    // state below this block is gone
	calls    map[string]int            // methods called
}

// New returns a chain with EVM chain ID id and its genesis block.
func New(id uint64) *Chain {
	c := &Chain{
		ID: id, tokens: map[common.Address]*Token{}, balances: map[balKey][]point{},
		native: map[common.Address][]point{}, owners: map[balKey]common.Address{}, calls: map[string]int{},
	}
	c.blocks = append(c.blocks, evmapi.Block{
		Number: 0, Hash: blockHash(id, 0), Timestamp: 1_700_000_000, GasLimit: 15_000_000,
		BaseFee: (*hexutil.Big)(big.NewInt(25_000_000_000)), Transactions: []evmapi.Transaction{},
	})
	return c
}

// blockHash returns the hash of block n of chain id.
func blockHash(id, n uint64) common.Hash {
	return crypto.Keccak256Hash(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte("block"), id), n))
}

// Fund sets an address's native balance at genesis.
func (c *Chain) Fund(a common.Address, amount *big.Int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.native[a] = []point{{0, new(big.Int).Set(amount)}}
}

// AddToken makes a at address a token contract (as if it existed since
// genesis).
func (c *Chain) AddToken(a common.Address, t *Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tokens[a] = t
}

// Head returns the number of the last block.
func (c *Chain) Head() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return uint64(len(c.blocks) - 1)
}

// Block returns block n.
func (c *Chain) Block(n uint64) evmapi.Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blocks[n]
}

// ContainerID returns the index container ID of block n: its hash.
func (c *Chain) ContainerID(n uint64) ids.ID {
	h := c.Block(n).Hash
	id, _ := ids.FromBytes(h[:])
	return id
}

// FailGetBlocks makes the next n indexer_getBlocks calls fail.
func (c *Chain) FailGetBlocks(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failNext = n
}

// EmptyGetBlocks makes the next n indexer_getBlocks calls from a block
// above 0 answer no block, as the EVM does for a block its index shows
// before it has taken it as reported.
func (c *Chain) EmptyGetBlocks(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.empties = n
}

// PruneBelow makes eth_getBalance and eth_call refuse blocks below n, as
// a pruning node does.
func (c *Chain) PruneBelow(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruned = n
}

// Calls returns how often method was called.
func (c *Chain) Calls(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[method]
}

// at returns the value of a history after block n (zero before any).
func at(h []point, n uint64) *big.Int {
	i := sort.Search(len(h), func(i int) bool { return h[i].block > n })
	if i == 0 {
		return new(big.Int)
	}
	return new(big.Int).Set(h[i-1].value)
}

// set records v as the value of a history after block n.
func set(h []point, n uint64, v *big.Int) []point {
	if len(h) > 0 && h[len(h)-1].block == n {
		h[len(h)-1].value = new(big.Int).Set(v)
		return h
	}
	return append(h, point{n, new(big.Int).Set(v)})
}

// BalanceOf returns what balanceOf answers after block n: an ERC-20
// balance (id nil) or an ERC-1155 one.
func (c *Chain) BalanceOf(token, holder common.Address, id *big.Int, n uint64) *big.Int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return at(c.balances[c.key(token, holder, id)], n)
}

// NativeBalance returns an address's native balance after block n.
func (c *Chain) NativeBalance(a common.Address, n uint64) *big.Int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return at(c.native[a], n)
}

// Holders returns every (token, holder, id) with a balance history.
func (c *Chain) Holders() []Holding {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Holding
	for k := range c.balances {
		h := Holding{Token: k.token, Holder: k.holder}
		if c.tokens[k.token] != nil && c.tokens[k.token].Kind == ERC1155 {
			h.ID = new(big.Int).SetBytes(k.id[:])
		}
		out = append(out, h)
	}
	return out
}

// Holding names a holder's balance of a token (ID set for ERC-1155).
type Holding struct {
	Token, Holder common.Address
	ID            *big.Int
}

func (c *Chain) key(token, holder common.Address, id *big.Int) balKey {
	k := balKey{holder: holder, token: token}
	if id != nil {
		k.id = common.BigToHash(id)
	}
	return k
}

// addBalance adds delta to a balance after block n.
func (c *Chain) addBalance(token, holder common.Address, id *big.Int, n uint64, delta *big.Int) {
	if holder == (common.Address{}) {
		return
	}
	k := c.key(token, holder, id)
	v := at(c.balances[k], n)
	c.balances[k] = set(c.balances[k], n, v.Add(v, delta))
}

// addNative adds delta to a native balance after block n.
func (c *Chain) addNative(a common.Address, n uint64, delta *big.Int) {
	v := at(c.native[a], n)
	c.native[a] = set(c.native[a], n, v.Add(v, delta))
}

// topic returns an address as an indexed topic.
func topic(a common.Address) common.Hash { return common.BytesToHash(a[:]) }

// transferTopics is what the standards' events index.
var (
	transferTopic = derive.TransferTopic
	singleTopic   = derive.TransferSingleTopic
	batchTopic    = derive.TransferBatchTopic
)
