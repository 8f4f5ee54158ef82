package store_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// TestPerBlock: a batch splits into its blocks, each with its records,
// token and NFT metadata with the first block naming them; records of a
// block the batch does not hold, and blocks out of order, are refused.
func TestPerBlock(t *testing.T) {
	tok := store.Token{Address: common.Address{0x70}}
	late := store.Token{Address: common.Address{0x71}}
	orphan := store.Token{Address: common.Address{0x72}}
	nft := store.NFT{TokenID: big.NewInt(9)}
	b := &store.Batch{
		Blocks: []store.Block{{Number: 5}, {Number: 6}, {Number: 7}},
		Txs: []store.Tx{
			{BlockNumber: 5, ERC20: []store.ERC20Transfer{{Token: tok, Value: big.NewInt(1)}}},
			{BlockNumber: 7, ERC721: []store.ERC721Transfer{{Token: late, NFT: nft}}},
		},
		Balances:   []store.BalanceChange{{Block: 6}, {Block: 7}},
		Ownerships: []store.Ownership{{Token: late, NFT: nft, Block: 7}},
		Contracts:  []store.Contract{{BlockNumber: 6}},
		Tokens:     []store.Token{late, tok, orphan},
		NFTs:       []store.NFTRecord{{Token: late.Address, NFT: nft}},
	}
	parts, err := b.PerBlock()
	if err != nil {
		t.Fatal(err)
	}
	count := func(p store.Batch) [7]int {
		return [7]int{len(p.Txs), len(p.Balances), len(p.Ownerships), len(p.Contracts), len(p.Tokens), len(p.NFTs), len(p.Blocks)}
	}
	want := [][7]int{{1, 0, 0, 0, 2, 0, 1}, {0, 1, 0, 1, 0, 0, 1}, {1, 1, 1, 0, 1, 1, 1}}
	for i, p := range parts {
		if count(p) != want[i] || p.Blocks[0].Number != uint64(5+i) {
			t.Errorf("block %d: %v, want %v", 5+i, count(p), want[i])
		}
	}
	if parts[0].Tokens[0] != tok || parts[0].Tokens[1] != orphan || parts[2].Tokens[0] != late {
		t.Errorf("tokens by block: %v, %v", parts[0].Tokens, parts[2].Tokens)
	}
	for _, bad := range []struct {
		change func(b *store.Batch)
		err    string
	}{
		{func(b *store.Batch) { b.Ownerships[0].Block = 0 }, "an ERC-721 transfer of block 0"},
		{func(b *store.Batch) { b.Txs[0].BlockNumber = 8 }, "a transaction of block 8"},
		{func(b *store.Batch) { b.Balances[0].Block = 4 }, "a balance of block 4"},
		{func(b *store.Batch) { b.Blocks[2].Number = 6 }, "block 6 after block 6"},
	} {
		c := *b
		c.Blocks, c.Txs = append([]store.Block(nil), b.Blocks...), append([]store.Tx(nil), b.Txs...)
		c.Balances, c.Ownerships = append([]store.BalanceChange(nil), b.Balances...), append([]store.Ownership(nil), b.Ownerships...)
		bad.change(&c)
		if _, err := c.PerBlock(); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("want %q, got %v", bad.err, err)
		}
	}
}
