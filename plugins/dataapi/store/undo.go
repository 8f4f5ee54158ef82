package store

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// PerBlock splits a batch into one batch per block, in block order, each
// holding the records of its block, so that a backend can log what each
// block changes (Batch.Undo). A token's or NFT's metadata goes with the
// first block whose transfers (or, for a token, creation) name it, else
// with the first block. The parts have no state (the caller writes b's
// once). It fails on blocks out of order and on records of a block the
// batch does not hold.
func (b *Batch) PerBlock() ([]Batch, error) {
	if b.hasPChain() {
		return nil, ErrPChainUndo
	}
	parts := make([]Batch, len(b.Blocks))
	at := make(map[uint64]int, len(b.Blocks))
	for i := range b.Blocks {
		n := b.Blocks[i].Number
		if i > 0 && n <= b.Blocks[i-1].Number {
			return nil, fmt.Errorf("store: block %d after block %d in a batch", n, b.Blocks[i-1].Number)
		}
		at[n] = i
		parts[i] = Batch{Chain: b.Chain, Blocks: b.Blocks[i : i+1], Undo: true}
	}
	part := func(what string, n uint64) (*Batch, error) {
		i, ok := at[n]
		if !ok {
			return nil, fmt.Errorf("store: %s of block %d, which the batch does not hold", what, n)
		}
		return &parts[i], nil
	}
	// firstToken and firstNFT are the first block naming each.
	firstToken := map[common.Address]uint64{}
	firstNFT := map[nftKey]uint64{}
	seen := func(token common.Address, id *big.Int, n uint64) {
		if _, ok := firstToken[token]; !ok {
			firstToken[token] = n
		}
		if id == nil {
			return
		}
		k := nftKey{token, common.BigToHash(id)}
		if _, ok := firstNFT[k]; !ok {
			firstNFT[k] = n
		}
	}
	for i := range b.Txs {
		tx := &b.Txs[i]
		p, err := part("a transaction", tx.BlockNumber)
		if err != nil {
			return nil, err
		}
		p.Txs = append(p.Txs, *tx)
		for _, x := range tx.ERC20 {
			seen(x.Token.Address, nil, tx.BlockNumber)
		}
		for _, x := range tx.ERC721 {
			seen(x.Token.Address, x.NFT.TokenID, tx.BlockNumber)
		}
		for _, x := range tx.ERC1155 {
			seen(x.Token.Address, x.NFT.TokenID, tx.BlockNumber)
		}
	}
	for i := range b.Balances {
		p, err := part("a balance", b.Balances[i].Block)
		if err != nil {
			return nil, err
		}
		p.Balances = append(p.Balances, b.Balances[i])
	}
	for i := range b.Ownerships {
		p, err := part("an ERC-721 transfer", b.Ownerships[i].Block)
		if err != nil {
			return nil, err
		}
		p.Ownerships = append(p.Ownerships, b.Ownerships[i])
	}
	for i := range b.Contracts {
		c := &b.Contracts[i]
		p, err := part("a contract", c.BlockNumber)
		if err != nil {
			return nil, err
		}
		p.Contracts = append(p.Contracts, *c)
		seen(c.Address, nil, c.BlockNumber)
	}
	if len(parts) == 0 {
		if len(b.Tokens)+len(b.NFTs) > 0 {
			return nil, fmt.Errorf("store: token metadata in a batch without blocks")
		}
		return parts, nil
	}
	first := b.Blocks[0].Number
	for _, t := range b.Tokens {
		n, ok := firstToken[t.Address]
		if !ok {
			n = first
		}
		p, _ := part("a token", n)
		p.Tokens = append(p.Tokens, t)
	}
	for _, r := range b.NFTs {
		n, ok := firstNFT[nftKey{r.Token, common.BigToHash(r.NFT.TokenID)}]
		if !ok {
			n = first
		}
		p, _ := part("an NFT", n)
		p.NFTs = append(p.NFTs, r)
	}
	return parts, nil
}

// nftKey names one NFT.
type nftKey struct {
	token common.Address
	id    common.Hash
}
