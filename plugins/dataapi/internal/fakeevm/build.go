package fakeevm

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// Fees of every fake transaction.
var (
	gasPrice = big.NewInt(25_000_000_000)
	baseFee  = big.NewInt(25_000_000_000)
)

// Gas of every fake transaction.
const (
	gasLimit = 100_000
	gasUsed  = 21_000
)

// BlockBuilder builds the next block.
type BlockBuilder struct {
	c   *Chain
	n   uint64
	txs []*TxBuilder
}

// NewBlock starts the next block.
func (c *Chain) NewBlock() *BlockBuilder {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &BlockBuilder{c: c, n: uint64(len(c.blocks))}
}

// Number returns the number of the block being built.
func (b *BlockBuilder) Number() uint64 { return b.n }

// TxBuilder builds one transaction.
type TxBuilder struct {
	tx      evmapi.Transaction
	failed  bool
	logs    []evmapi.Log
	effects []func(c *Chain, n uint64)
	created map[common.Address]*Token
	undone  []bool // by depth: whether the frame on the path at that depth failed
}

// Tx adds a call (to set) or a creation of contract (to nil, contract
// set) from from, moving value.
func (b *BlockBuilder) Tx(from common.Address, to *common.Address, value *big.Int, input []byte) *TxBuilder {
	i := uint64(len(b.txs))
	if value == nil {
		value = new(big.Int)
	}
	h := crypto.Keccak256Hash(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64([]byte("tx"), b.c.ID), b.n), i))
	t := &TxBuilder{tx: evmapi.Transaction{
		Hash: h, Index: hexutil.Uint64(i), Type: 2, From: from, To: to, Value: (*hexutil.Big)(new(big.Int).Set(value)),
		Input: append(hexutil.Bytes{}, input...), Nonce: hexutil.Uint64(i), Gas: gasLimit,
		GasPrice: (*hexutil.Big)(gasPrice), MaxFeePerGas: (*hexutil.Big)(big.NewInt(50_000_000_000)),
		MaxPriorityFeePerGas: (*hexutil.Big)(big.NewInt(1_000_000_000)), Status: 1, GasUsed: gasUsed,
	}, created: map[common.Address]*Token{}}
	typ, callee := evmapi.CallType, common.Address{}
	if to != nil {
		callee = *to
	} else {
		typ = evmapi.CreateType
	}
	t.tx.Calls = append(t.tx.Calls, evmapi.CallFrame{Type: typ, From: from, To: callee, Value: (*hexutil.Big)(new(big.Int).Set(value)), Gas: gasLimit, GasUsed: gasUsed})
	t.effects = append(t.effects, func(c *Chain, n uint64) {
		if value.Sign() != 0 {
			c.addNative(from, n, new(big.Int).Neg(value))
			c.addNative(t.tx.Calls[0].To, n, value)
		}
	})
	b.txs = append(b.txs, t)
	return t
}

// Creation adds a transaction from from creating contract, a token when
// tok is set.
func (b *BlockBuilder) Creation(from, contract common.Address, tok *Token) *TxBuilder {
	t := b.Tx(from, nil, nil, []byte{0x60, 0x80, 0x60, 0x40})
	t.tx.ContractAddress = &contract
	t.tx.Calls[0].To = contract
	if tok == nil {
		tok = &Token{Kind: Plain}
	}
	t.created[contract] = tok
	return t
}

// Hash returns the transaction's hash.
func (t *TxBuilder) Hash() common.Hash { return t.tx.Hash }

// Fail makes the transaction fail: status 0, no logs, its call reverted.
func (t *TxBuilder) Fail() *TxBuilder {
	t.failed = true
	t.tx.Status = 0
	t.tx.Calls[0].Reverted = true
	t.tx.ContractAddress = nil
	return t
}

// log adds a log.
func (t *TxBuilder) log(token common.Address, data []byte, topics ...common.Hash) {
	t.logs = append(t.logs, evmapi.Log{Address: token, Topics: topics, Data: data})
}

// word returns n as a 32-byte word.
func word(n *big.Int) []byte { return common.BigToHash(n).Bytes() }

// ERC20 adds an ERC-20 Transfer of amount from from to to (zero from:
// a mint, zero to: a burn).
func (t *TxBuilder) ERC20(token, from, to common.Address, amount *big.Int) *TxBuilder {
	t.log(token, word(amount), transferTopic, topic(from), topic(to))
	amount = new(big.Int).Set(amount)
	t.effects = append(t.effects, func(c *Chain, n uint64) {
		c.addBalance(token, from, nil, n, new(big.Int).Neg(amount))
		c.addBalance(token, to, nil, n, amount)
	})
	return t
}

// SilentMint raises an ERC-20 balance without an event, as a token that
// breaks the standard does.
func (t *TxBuilder) SilentMint(token, to common.Address, amount *big.Int) *TxBuilder {
	amount = new(big.Int).Set(amount)
	t.effects = append(t.effects, func(c *Chain, n uint64) { c.addBalance(token, to, nil, n, amount) })
	return t
}

// ERC721 adds an ERC-721 Transfer of token ID id.
func (t *TxBuilder) ERC721(token, from, to common.Address, id *big.Int) *TxBuilder {
	t.log(token, nil, transferTopic, topic(from), topic(to), common.BigToHash(id))
	id = new(big.Int).Set(id)
	t.effects = append(t.effects, func(c *Chain, n uint64) {
		k := balKey{token: token, id: common.BigToHash(id)}
		if to == (common.Address{}) {
			delete(c.owners, k)
		} else {
			c.owners[k] = to
		}
	})
	return t
}

// Single adds an ERC-1155 TransferSingle.
func (t *TxBuilder) Single(token, operator, from, to common.Address, id, value *big.Int) *TxBuilder {
	t.log(token, append(word(id), word(value)...), singleTopic, topic(operator), topic(from), topic(to))
	t.move1155(token, from, to, id, value)
	return t
}

// Batch adds an ERC-1155 TransferBatch.
func (t *TxBuilder) Batch(token, operator, from, to common.Address, ids, values []*big.Int) *TxBuilder {
	data := append(word(big.NewInt(64)), word(big.NewInt(int64(64+32+32*len(ids))))...)
	data = append(data, word(big.NewInt(int64(len(ids))))...)
	for _, id := range ids {
		data = append(data, word(id)...)
	}
	data = append(data, word(big.NewInt(int64(len(values))))...)
	for _, v := range values {
		data = append(data, word(v)...)
	}
	t.log(token, data, batchTopic, topic(operator), topic(from), topic(to))
	for i := range ids {
		t.move1155(token, from, to, ids[i], values[i])
	}
	return t
}

func (t *TxBuilder) move1155(token, from, to common.Address, id, value *big.Int) {
	id, value = new(big.Int).Set(id), new(big.Int).Set(value)
	t.effects = append(t.effects, func(c *Chain, n uint64) {
		c.addBalance(token, from, id, n, new(big.Int).Neg(value))
		c.addBalance(token, to, id, n, value)
	})
}

// Frame adds a call frame below the transaction's own call (depth 1 or
// more, in depth-first order). A CREATE or CREATE2 frame that is not
// reverted makes the contract at to (a token when tok is set).
func (t *TxBuilder) Frame(depth int, typ string, from, to common.Address, value *big.Int, reverted bool, tok *Token) *TxBuilder {
	if value == nil {
		value = new(big.Int)
	}
	t.tx.Calls = append(t.tx.Calls, evmapi.CallFrame{
		Type: typ, From: from, To: to, Value: (*hexutil.Big)(new(big.Int).Set(value)),
		Gas: 50_000, GasUsed: 10_000, Depth: depth, Reverted: reverted,
	})
	// A frame below a failed one is undone with it.
	t.undone = append(t.undone[:depth-1], reverted || (depth > 1 && t.undone[depth-2]))
	reverted = t.undone[len(t.undone)-1]
	if (typ == evmapi.CreateType || typ == evmapi.Create2Type) && !reverted {
		if tok == nil {
			tok = &Token{Kind: Plain}
		}
		t.created[to] = tok
	}
	if (typ == evmapi.CallType || typ == evmapi.CreateType || typ == evmapi.Create2Type) && !reverted && value.Sign() != 0 {
		v := new(big.Int).Set(value)
		t.effects = append(t.effects, func(c *Chain, n uint64) {
			c.addNative(from, n, new(big.Int).Neg(v))
			c.addNative(to, n, v)
		})
	}
	return t
}

// Commit appends the block: log indexes are numbered across the block,
// and the effects of the transactions that did not fail apply after it.
func (b *BlockBuilder) Commit() evmapi.Block {
	c := b.c
	c.mu.Lock()
	defer c.mu.Unlock()
	parent := c.blocks[len(c.blocks)-1]
	blk := evmapi.Block{
		Number: hexutil.Uint64(b.n), Hash: blockHash(c.ID, b.n), ParentHash: parent.Hash,
		Timestamp: parent.Timestamp + 2, GasLimit: 15_000_000, BaseFee: (*hexutil.Big)(baseFee),
		Transactions: make([]evmapi.Transaction, 0, len(b.txs)),
	}
	var logIndex uint64
	for _, t := range b.txs {
		tx := t.tx
		tx.Logs = []evmapi.Log{}
		if !t.failed {
			for _, l := range t.logs {
				l.Index = hexutil.Uint64(logIndex)
				logIndex++
				tx.Logs = append(tx.Logs, l)
			}
			for _, fx := range t.effects {
				fx(c, b.n)
			}
			for a, tok := range t.created {
				c.tokens[a] = tok
			}
		}
		blk.GasUsed += tx.GasUsed
		blk.Transactions = append(blk.Transactions, tx)
	}
	c.blocks = append(c.blocks, blk)
	return blk
}
