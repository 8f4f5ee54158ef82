package fakeevm

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/avax/evmapi"
)

// SynthOptions shapes synthetic blocks.
type SynthOptions struct {
	// Blocks and TxsPerBlock size the run.
	Blocks, TxsPerBlock int
	// Accounts is how many addresses send and receive.
	Accounts int
	// Seed makes the run repeatable.
	Seed uint64
}

// Synthetic tokens: three ERC-20s, an ERC-721 and an ERC-1155.
var (
	SynthERC20 = []common.Address{
		common.HexToAddress("0x5e20000000000000000000000000000000000001"),
		common.HexToAddress("0x5e20000000000000000000000000000000000002"),
		common.HexToAddress("0x5e20000000000000000000000000000000000003"),
	}
	synthERC721  = common.HexToAddress("0x5e72100000000000000000000000000000000001")
	synthERC1155 = common.HexToAddress("0x5e11550000000000000000000000000000000001")
	synthRouter  = common.HexToAddress("0x5e0000000000000000000000000000000000000f")
)

// Account returns synthetic account i.
func Account(i int) common.Address {
	var a common.Address
	a[0] = 0xac
	binary.BigEndian.PutUint64(a[12:], uint64(i)+1)
	return a
}

// Synthesize appends a block funding every account, then blocks of a
// token economy: of every ten
// transactions, six are ERC-20 transfers (one a mint), one a native
// transfer, one an ERC-721 mint or transfer, one an ERC-1155 transfer, one
// a router call moving value to an account through an internal CALL.
func (c *Chain) Synthesize(o SynthOptions) {
	rng := rand.New(rand.NewPCG(o.Seed, 7))
	for i, a := range SynthERC20 {
		c.AddToken(a, &Token{Kind: ERC20, Name: "Synthetic", Symbol: "SYN" + string(rune('A'+i)), Decimals: 18})
	}
	c.AddToken(synthERC721, &Token{Kind: ERC721, Name: "Synthetic NFT", Symbol: "SNFT", URI: func(id *big.Int) string {
		return `data:application/json,{"name":"s"}`
	}})
	c.AddToken(synthERC1155, &Token{Kind: ERC1155, URI: func(*big.Int) string { return "https://x.invalid/{id}" }})
	c.AddToken(synthRouter, &Token{Kind: Plain})
	// Every account starts rich in every ERC-20, so that no transfer
	// takes a balance below zero.
	b := c.NewBlock()
	for i := range max(o.Accounts, 2) {
		tx := b.Tx(Account(i), &synthRouter, nil, []byte{0x40, 0xc1, 0x0f, 0x19})
		for _, tok := range SynthERC20 {
			tx.ERC20(tok, common.Address{}, Account(i), new(big.Int).Lsh(big.NewInt(1), 100))
		}
	}
	b.Commit()
	owner := map[uint64]common.Address{}
	nextNFT := uint64(1)
	acct := func() common.Address { return Account(rng.IntN(max(o.Accounts, 2))) }
	for range o.Blocks {
		b := c.NewBlock()
		for t := range o.TxsPerBlock {
			from, to := acct(), acct()
			switch t % 10 {
			case 0:
				tok := SynthERC20[rng.IntN(len(SynthERC20))]
				b.Tx(from, &tok, nil, []byte{0x40, 0xc1, 0x0f, 0x19}).ERC20(tok, common.Address{}, to, big.NewInt(1_000_000))
			case 1, 2, 3, 4, 5:
				tok := SynthERC20[rng.IntN(len(SynthERC20))]
				b.Tx(from, &tok, nil, []byte{0xa9, 0x05, 0x9c, 0xbb}).ERC20(tok, from, to, big.NewInt(int64(rng.IntN(1000))))
			case 6:
				b.Tx(from, &to, big.NewInt(1), nil)
			case 7:
				tok := synthERC721
				id := uint64(rng.IntN(int(nextNFT))) + 1
				prev, minted := owner[id]
				if !minted {
					id, prev = nextNFT, common.Address{}
					nextNFT++
				}
				owner[id] = to
				b.Tx(from, &tok, nil, []byte{0x42, 0x84, 0x2e, 0x0e}).ERC721(tok, prev, to, new(big.Int).SetUint64(id))
			case 8:
				tok := synthERC1155
				b.Tx(from, &tok, nil, []byte{0xf2, 0x42, 0x43, 0x2a}).Single(tok, from, common.Address{}, to, big.NewInt(int64(rng.IntN(5))), big.NewInt(2))
			case 9:
				r := synthRouter
				b.Tx(from, &r, big.NewInt(5), []byte{0x7f, 0xf3, 0x6a, 0xb5}).Frame(1, evmapi.CallType, r, to, big.NewInt(5), false, nil)
			}
		}
		b.Commit()
	}
}
