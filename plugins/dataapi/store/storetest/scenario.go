// Package storetest holds the tests every data API store backend passes,
// run by each backend's own tests: rolling a chain back at a fork
// (store.Store.Rollback).
package storetest

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/derive"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
)

// chain is the chain the tests index.
var chain = ids.ID{0x7e}

// evmChainID is its EVM chain ID.
const evmChainID = 43112

// Fork is the first block the two branches of the scenario differ in.
const Fork = 21

// The scenario's addresses: accounts, tokens (two from the start, one
// first seen in each branch after the fork), a router moving value by
// internal calls, a factory creating contracts, and accounts seen only
// after the fork in one branch.
var (
	erc20s   = []common.Address{common.HexToAddress("0x2000000000000000000000000000000000000001"), common.HexToAddress("0x2000000000000000000000000000000000000002")}
	lateA20  = common.HexToAddress("0x2000000000000000000000000000000000000a0a")
	lateB20  = common.HexToAddress("0x2000000000000000000000000000000000000b0b")
	erc721   = common.HexToAddress("0x7210000000000000000000000000000000000721")
	erc1155  = common.HexToAddress("0x1155000000000000000000000000000000001155")
	router   = common.HexToAddress("0x5e0000000000000000000000000000000000000f")
	factory  = common.HexToAddress("0xfac7000000000000000000000000000000000f0f")
	lateA    = fakeevm.Account(100)
	lateB    = fakeevm.Account(200)
	accounts = 8
)

// Scenario is a chain's blocks 0 to 30 (branch A) and another branch of
// blocks Fork to 35 (branch B) going on from A's block Fork-1.
type Scenario struct {
	A, B []evmapi.Block
	// Created are the contracts either branch creates.
	Created []common.Address
	// NFTs is the highest ERC-721 token ID either branch mints.
	NFTs int64
}

// NewScenario builds the two branches: every block has ERC-20, ERC-721
// and ERC-1155 transfers (mints, moves, burns, balances going to zero),
// value moved by internal calls and some contract creations, directly and
// by the factory.
func NewScenario() *Scenario {
	sc := &Scenario{}
	ca, cb := fakeevm.New(1), fakeevm.New(2)
	wa, wb := newWorld(), newWorld()
	sc.A = append(sc.A, ca.Block(0))
	for n := uint64(1); n <= 30; n++ {
		sc.A = append(sc.A, wa.build(ca, 'A', sc))
	}
	for n := uint64(1); n <= 35; n++ {
		branch := byte('A')
		if n >= Fork {
			branch = 'B'
		}
		blk := wb.build(cb, branch, sc)
		if n >= Fork {
			sc.B = append(sc.B, blk)
		}
	}
	sc.B[0].ParentHash = sc.A[Fork-1].Hash
	return sc
}

// world is what a branch's builder knows of its chain: balances and owners,
// so that every transfer is one the chain could make.
type world struct {
	erc20   map[[2]common.Address]int64 // holder, token
	erc1155 map[common.Address]map[int64]int64
	owner   map[int64]common.Address
	minted  int64
}

func newWorld() *world {
	return &world{erc20: map[[2]common.Address]int64{}, erc1155: map[common.Address]map[int64]int64{}, owner: map[int64]common.Address{}}
}

// build appends the next block of branch to c.
func (w *world) build(c *fakeevm.Chain, branch byte, sc *Scenario) evmapi.Block {
	b := c.NewBlock()
	n := b.Number()
	rng := rand.New(rand.NewPCG(n, uint64(branch)))
	people := make([]common.Address, accounts)
	for i := range people {
		people[i] = fakeevm.Account(i)
	}
	tokens := erc20s
	if n >= Fork {
		late, tok := lateA, lateA20
		if branch == 'B' {
			late, tok = lateB, lateB20
		}
		people = append(people, late)
		if n >= Fork+3 {
			tokens = append(tokens[:len(tokens):len(tokens)], tok)
		}
	}
	pick := func() common.Address { return people[rng.IntN(len(people))] }
	var zero common.Address
	// ERC-20: mints to whoever has little, then transfers.
	for _, tok := range tokens {
		to := pick()
		if w.erc20[[2]common.Address{to, tok}] < 100 {
			b.Tx(to, &tok, nil, []byte{0x40, 0xc1, 0x0f, 0x19}).ERC20(tok, zero, to, big.NewInt(1000))
			w.erc20[[2]common.Address{to, tok}] += 1000
		}
	}
	for range 3 {
		tok := tokens[rng.IntN(len(tokens))]
		from, to := pick(), pick()
		have := w.erc20[[2]common.Address{from, tok}]
		if have == 0 {
			continue
		}
		v := 1 + rng.Int64N(have)
		b.Tx(from, &tok, nil, []byte{0xa9, 0x05, 0x9c, 0xbb}).ERC20(tok, from, to, big.NewInt(v))
		w.erc20[[2]common.Address{from, tok}] -= v
		w.erc20[[2]common.Address{to, tok}] += v
	}
	// ERC-721: a mint every other block, else a move or a burn.
	tok := erc721
	switch {
	case n%2 == 1 || len(w.owner) == 0:
		w.minted++
		to := pick()
		w.owner[w.minted] = to
		sc.NFTs = max(sc.NFTs, w.minted)
		b.Tx(to, &tok, nil, []byte{0x40, 0xc1, 0x0f, 0x19}).ERC721(tok, zero, to, big.NewInt(w.minted))
	default:
		id := 1 + rng.Int64N(w.minted)
		from, ok := w.owner[id]
		if !ok {
			break
		}
		to := pick()
		if n%5 == 0 {
			to = zero
			delete(w.owner, id)
		} else {
			w.owner[id] = to
		}
		b.Tx(from, &tok, nil, []byte{0x42, 0x84, 0x2e, 0x0e}).ERC721(tok, from, to, big.NewInt(id))
	}
	// ERC-1155: mints, moves of part or all of a balance, a batch.
	multi := erc1155
	to := pick()
	id := 1 + rng.Int64N(3)
	if n >= Fork+2 && n%2 == 0 {
		id = 4 + int64(branch-'A') // a token ID first minted after the fork, one per branch
	}
	b.Tx(to, &multi, nil, nil).Single(multi, to, zero, to, big.NewInt(id), big.NewInt(4))
	w.add1155(to, id, 4)
	from := pick()
	for id := int64(1); id <= 5; id++ {
		v := w.erc1155[from][id]
		if v == 0 {
			continue
		}
		move := v
		if rng.IntN(2) == 0 {
			move = 1
		}
		to := pick()
		if n%4 == 0 {
			b.Tx(from, &multi, nil, nil).Batch(multi, from, from, to, []*big.Int{big.NewInt(id)}, []*big.Int{big.NewInt(move)})
		} else {
			b.Tx(from, &multi, nil, nil).Single(multi, from, from, to, big.NewInt(id), big.NewInt(move))
		}
		w.add1155(from, id, -move)
		w.add1155(to, id, move)
		break
	}
	// Value moved by the router, one frame reverted now and then.
	r := router
	b.Tx(pick(), &r, big.NewInt(5), []byte{0x7f, 0xf3, 0x6a, 0xb5}).
		Frame(1, evmapi.CallType, router, pick(), big.NewInt(3), n%3 == 0, nil).
		Frame(1, evmapi.CallType, router, pick(), big.NewInt(2), false, nil)
	// A call that fails now and then.
	if n%3 == 1 {
		b.Tx(pick(), &r, nil, []byte{0xde, 0xad, 0xbe, 0xef}).Fail()
	}
	// Creations: by a transaction, and by the factory.
	if n%4 == 2 {
		addr := contractAddr(branch, n, 1)
		sc.Created = append(sc.Created, addr)
		b.Creation(pick(), addr, nil)
	}
	if n%6 == 3 {
		f, addr := factory, contractAddr(branch, n, 2)
		sc.Created = append(sc.Created, addr)
		b.Tx(pick(), &f, nil, []byte{1, 2, 3, 4}).Frame(1, evmapi.Create2Type, factory, addr, nil, false, nil)
	}
	return b.Commit()
}

func (w *world) add1155(holder common.Address, id, v int64) {
	if w.erc1155[holder] == nil {
		w.erc1155[holder] = map[int64]int64{}
	}
	w.erc1155[holder][id] += v
}

// contractAddr is the address of a contract created in block n of branch.
func contractAddr(branch byte, n uint64, i byte) common.Address {
	var a common.Address
	a[0], a[1], a[18], a[19] = 0xcc, branch, byte(n), i
	return a
}

// Index indexes blocks into s as the indexer does, perWrite blocks a
// write: derived by the derive package, with token and NFT metadata read
// from the store (recorded, made up from the address, the first time) and
// balances from the store. With undo, the writes keep undo records, those
// of the last keep blocks only when keep is above 0.
func Index(ctx context.Context, s store.Store, blocks []evmapi.Block, perWrite int, undo bool, keep uint64) error {
	state, err := s.State(ctx, chain)
	if err != nil {
		return err
	}
	state.EVMChainID = evmChainID
	for start := 0; start < len(blocks); start += perWrite {
		d := derive.Decode(blocks[start:min(start+perWrite, len(blocks))])
		n := d.Needs()
		r := &derive.Resolved{
			Tokens: map[common.Address]store.Token{}, NFTs: map[derive.NFTKey]store.NFT{},
			Balances: map[derive.BalanceKey]*big.Int{}, Contracts: map[common.Address]store.Token{},
		}
		for a, need := range n.Tokens {
			tok, err := s.Token(ctx, chain, a)
			if errors.Is(err, store.ErrNotFound) {
				tok = store.Token{Address: a, Kind: need.Kind, Name: "Token " + a.Hex()[2:6], Symbol: a.Hex()[38:], Decimals: 18}
				r.NewTokens = append(r.NewTokens, tok)
			} else if err != nil {
				return err
			}
			r.Tokens[a] = tok
		}
		for k := range n.NFTs {
			nft, err := s.NFT(ctx, chain, k.Token, k.BigID())
			if errors.Is(err, store.ErrNotFound) {
				nft = store.NFT{TokenID: k.BigID(), URI: "ipfs://x/" + k.BigID().String(), Metadata: store.NFTMetadata{Status: "UNINDEXED"}}
				r.NewNFTs = append(r.NewNFTs, store.NFTRecord{Token: k.Token, NFT: nft})
			} else if err != nil {
				return err
			}
			r.NFTs[k] = nft
		}
		for k := range n.Balances {
			var id *big.Int
			if k.ERC1155 {
				id = k.BigID()
			}
			if r.Balances[k], err = s.Balance(ctx, chain, k.Holder, k.Token, id); err != nil {
				return err
			}
		}
		for a := range n.Contracts {
			r.Contracts[a] = store.Token{Address: a, Kind: store.KindERC20, Name: "Made " + a.Hex()[2:6], Symbol: "MADE", Decimals: 6}
		}
		batch, _ := d.Build(chain, state, r)
		batch.Undo = undo
		if keep > 0 && batch.State.Next > keep {
			batch.PruneUndoBelow = batch.State.Next - keep
		}
		if err := s.Write(ctx, batch); err != nil {
			return err
		}
		state = batch.State
	}
	return nil
}

// UndoWrites is a store whose writes keep undo records (store.Batch.Undo),
// as the indexer of a chain that may reorganise writes.
type UndoWrites struct{ store.Store }

// Write writes b with its undo records.
func (s UndoWrites) Write(ctx context.Context, b *store.Batch) error {
	b.Undo = true
	return s.Store.Write(ctx, b)
}
