package kvstore

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/sdk/ids"
)

// Tables: the first byte of every key. Chain-scoped keys continue with the
// chain's 4-byte tag; docs/data-api.md ("Storage layout") lists them with
// their values.
const (
	tChainTag  byte = 0x00 // chain ID (32) → tag (4)
	tMeta      byte = 0x01 // a backfill's name → nothing: it ran (backfill.go)
	tState     byte = 0x02 // tag → ChainState
	tBlock     byte = 0x10 // tag, number (8) → Block
	tBlockHash byte = 0x11 // tag, hash (32) → number (8)
	tTx        byte = 0x12 // tag, hash (32) → Tx, complete
	tChainTx   byte = 0x13 // tag, number, tx index (4) → Tx, bare
	tTxStatus  byte = 0x14 // tag, status (1: 1 success, 0 failed), number, tx index → Tx, bare
	tAddrTx    byte = 0x20 // tag, address, number, tx index (4) → Tx, the address's view
	tAddr721   byte = 0x21 // tag, address, number, tx index, log index (4) → ERC721Item
	tAddr1155  byte = 0x22 // tag, address, number, tx index, log index, batch index (4) → ERC1155Item
	tAddrInt   byte = 0x23 // tag, address, number, tx index, frame (4) → InternalItem
	tAddrNat   byte = 0x24 // tag, address, number, tx index → Tx, bare: the address sent or received it
	tAddr20    byte = 0x25 // tag, address, number, tx index, log index (4) → ERC20Item
	tCur20     byte = 0x30 // tag, holder, token → ERC20Balance, non-zero now
	tHeld20    byte = 0x31 // tag, holder, token → Token: every token the holder ever had
	tHist20    byte = 0x32 // tag, holder, token, ^number (8) → balance after that block
	tCur1155   byte = 0x33 // tag, holder, token, token ID (32) → ERC1155Balance, non-zero now
	tHeld1155  byte = 0x34 // tag, holder, token, token ID → ERC1155Balance (balance unused)
	tHist1155  byte = 0x35 // tag, holder, token, token ID, ^number → balance after that block
	tCollect   byte = 0x36 // tag, holder, token, token ID → Collectible, owned now
	tDeploy    byte = 0x40 // tag, deployer, number, tx index, frame → Contract
	tContract  byte = 0x41 // tag, contract → Contract
	tToken     byte = 0x42 // tag, token → Token
	tNFT       byte = 0x43 // tag, token, token ID → NFT
	tTokenXfer byte = 0x44 // tag, token, number, tx index, log index, batch index (4) → TokenTransfer
	tAddrChain byte = 0x50 // address, tag → nothing
	tUndo      byte = 0x60 // tag, number → undo record: the keys the block's write changed, with their values before
	// The P-Chain's records (pchain.go); a creation's place is its block
	// (8) and index in the block (4).
	tPBlock       byte = 0x70 // tag, height (8) → PBlock
	tPBlockID     byte = 0x71 // tag, block ID (32) → height (8)
	tPChain       byte = 0x72 // tag, creation place → Blockchain
	tPChainID     byte = 0x73 // tag, blockchain ID (32) → creation place
	tPSubnet      byte = 0x74 // tag, creation place → Subnet, as last changed
	tPSubnetID    byte = 0x75 // tag, subnet ID (32) → creation place
	tPSubnetChain byte = 0x76 // tag, subnet ID, the chain's creation place → Blockchain
)

// Lengths of key parts.
const (
	tagLen  = 4
	addrLen = common.AddressLength
	idLen   = 32 // a uint256 token ID
	posLen  = 8 + 4
)

// tag is a chain's short key prefix.
type tag [tagLen]byte

// key builds keys by appending parts.
type key []byte

func newKey(table byte, t tag, capacity int) key {
	k := make(key, 0, 1+tagLen+capacity)
	return append(append(k, table), t[:]...)
}

func (k key) addr(a common.Address) key { return append(k, a[:]...) }
func (k key) hash(h common.Hash) key    { return append(k, h[:]...) }
func (k key) id(id ids.ID) key          { return append(k, id[:]...) }
func (k key) u64(n uint64) key          { return binary.BigEndian.AppendUint64(k, n) }
func (k key) u32(n uint64) key          { return binary.BigEndian.AppendUint32(k, uint32(n)) }

// tokenID appends a token ID as 32 big-endian bytes, so that IDs sort by
// value.
func (k key) tokenID(id *big.Int) key {
	var b [idLen]byte
	if id != nil {
		id.FillBytes(b[:])
	}
	return append(k, b[:]...)
}

// successor returns the least key above every key with prefix p, nil when
// there is none (p is all 0xff).
func successor(p []byte) []byte {
	out := append([]byte(nil), p...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] != 0xff {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

// metaKey is the key of the tMeta record name.
func metaKey(name string) []byte { return append([]byte{tMeta}, name...) }
